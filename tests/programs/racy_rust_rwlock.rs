// Two threads write HITS while holding only the read side of a std RwLock:
// readers share the lock, so their writes are not ordered (racy_rwlock_readers
// in Rust).  Both accesses are reported with the RwLock held.  As atomics
// (--rwlock-functions=none), the second reader's compare-and-swap on the
// lock's word would read what the first one's unlock wrote and order the
// writes, and happens-before would report nothing.  The socket pairs only
// fix the order (racepred runs this with --fd-sync=no); the second one makes
// the first reader wait until the second has started, as in
// rust_hidden_race: a first thread that ran to its exit before the second
// was created would be ordered before it by std's thread-info lock.
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, RwLock};
use std::thread;

static mut HITS: u32 = 0;

#[inline(never)]
fn first_reader(table: &RwLock<u32>, mut order: UnixStream) {
    {
        let _guard = table.read().unwrap();
        unsafe { HITS += 1 };
    }
    order.write_all(b"x").unwrap();
}

#[inline(never)]
fn second_reader(table: &RwLock<u32>, mut order: UnixStream) {
    let mut byte = [0u8; 1];
    order.read_exact(&mut byte).unwrap();
    let _guard = table.read().unwrap();
    unsafe { HITS += 1 };
}

fn main() {
    let (rx, tx) = UnixStream::pair().unwrap();
    let (mut started_rx, started_tx) = UnixStream::pair().unwrap();
    let table = Arc::new(RwLock::new(0u32));
    let (t1_table, t2_table) = (Arc::clone(&table), Arc::clone(&table));
    let t1 = thread::spawn(move || {
        started_rx.read(&mut [0u8; 1]).unwrap();
        first_reader(&t1_table, tx)
    });
    let t2 = thread::spawn(move || {
        drop(started_tx);
        second_reader(&t2_table, rx)
    });
    t1.join().unwrap();
    t2.join().unwrap();
    *table.write().unwrap() += 1;
    println!("{} {}", unsafe { HITS }, *table.read().unwrap());
}
