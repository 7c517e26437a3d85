// hidden_race.c in Rust: a race that this run hides from happens-before.
// The first thread writes SHARED, then takes and releases a std Mutex (built
// with --cfg rwlock, as rust_rwlock_hidden_race: the write side of a std
// RwLock); the second, which a socket pair makes run only afterwards, takes
// and releases the lock and then writes SHARED.  The lock orders the two
// writes in this schedule, so --detector=hb reports nothing; the two
// critical sections write different fields, and in the schedule where the
// second thread's runs first the writes are adjacent, which the predictive
// detectors find once std's futex locks are locks (--lock-functions,
// --rwlock-functions), not atomics.  The socket pair only fixes the order;
// racepred runs this with --fd-sync=no.  A second socket pair makes the
// first thread wait until the second has started and closed its end (a
// close, unlike a write, lets no stack address out, so the second thread's
// stack stays its own).  Otherwise, on a loaded machine, the first thread
// can run to its exit before the second is created, and std's thread-exit
// handler (a critical section on the lock of its thread-info map, which the
// second thread's start then takes and reads) orders the writes in every
// reordering, so that no sound detector may report them.
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::thread;

#[cfg(not(rwlock))]
type Owners = std::sync::Mutex<(u32, u32)>;
#[cfg(rwlock)]
type Owners = std::sync::RwLock<(u32, u32)>;

#[cfg(not(rwlock))]
#[inline(always)]
fn take(m: &Owners) -> std::sync::MutexGuard<'_, (u32, u32)> {
    m.lock().unwrap()
}

#[cfg(rwlock)]
#[inline(always)]
fn take(m: &Owners) -> std::sync::RwLockWriteGuard<'_, (u32, u32)> {
    m.write().unwrap()
}

static mut SHARED: u32 = 0;

#[inline(never)]
fn first_thread(m: &Owners, mut order: UnixStream) {
    unsafe { SHARED = 1 };
    take(m).0 = 1;
    order.write_all(b"x").unwrap();
}

#[inline(never)]
fn second_thread(m: &Owners, mut order: UnixStream) {
    let mut byte = [0u8; 1];
    order.read_exact(&mut byte).unwrap();
    take(m).1 = 2;
    unsafe { SHARED = 2 };
}

fn main() {
    let (rx, tx) = UnixStream::pair().unwrap();
    let (mut started_rx, started_tx) = UnixStream::pair().unwrap();
    let m = Arc::new(Owners::new((0u32, 0u32)));
    let (m1, m2) = (Arc::clone(&m), Arc::clone(&m));
    let t1 = thread::spawn(move || {
        started_rx.read(&mut [0u8; 1]).unwrap();
        first_thread(&m1, tx)
    });
    let t2 = thread::spawn(move || {
        drop(started_tx);
        second_thread(&m2, rx)
    });
    t1.join().unwrap();
    t2.join().unwrap();
    let owners = *take(&m);
    println!("{} {} {}", unsafe { SHARED }, owners.0, owners.1);
}
