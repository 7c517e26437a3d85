// rust_hidden_race with a std RwLock taken for writing: a race that this
// run hides from happens-before.  The first thread writes SHARED, then
// takes and releases the write side; the second, which a socket pair makes
// run only afterwards, takes and releases it and then writes SHARED.  The
// lock orders the two writes in this schedule, so --detector=hb reports
// nothing; the two sections write different fields, and in the schedule
// where the second thread's runs first the writes are adjacent, which the
// predictive detectors find once std's futex RwLock is a lock
// (--rwlock-functions), not atomics.  The socket pairs only fix the order
// (racepred runs this with --fd-sync=no); the second one makes the first
// thread wait until the second has started, as in rust_hidden_race.
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, RwLock};
use std::thread;

static mut SHARED: u32 = 0;

#[inline(never)]
fn first_thread(m: &RwLock<(u32, u32)>, mut order: UnixStream) {
    unsafe { SHARED = 1 };
    m.write().unwrap().0 = 1;
    order.write_all(b"x").unwrap();
}

#[inline(never)]
fn second_thread(m: &RwLock<(u32, u32)>, mut order: UnixStream) {
    let mut byte = [0u8; 1];
    order.read_exact(&mut byte).unwrap();
    m.write().unwrap().1 = 2;
    unsafe { SHARED = 2 };
}

fn main() {
    let (rx, tx) = UnixStream::pair().unwrap();
    let (mut started_rx, started_tx) = UnixStream::pair().unwrap();
    let m = Arc::new(RwLock::new((0u32, 0u32)));
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
    let owners = *m.read().unwrap();
    println!("{} {} {}", unsafe { SHARED }, owners.0, owners.1);
}
