// Two threads add to a static without a lock (unsafe code): a race, at
// line 16.  Each adds right after its fetch_add on an atomic counter, which
// orders the other thread's earlier events before it but not its own
// addition after it; the Barrier makes them run together.  The counter,
// updated with fetch_add and read with an atomic load, is no race.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;

static mut TOTAL: u64 = 0;
static DONE: AtomicU64 = AtomicU64::new(0);

fn work(start: &Barrier, n: u64) {
    start.wait();
    DONE.fetch_add(1, Ordering::AcqRel);
    unsafe { TOTAL += n };
}

fn main() {
    let start = Arc::new(Barrier::new(2));
    let threads: Vec<_> = (1..3)
        .map(|n| {
            let s = Arc::clone(&start);
            thread::spawn(move || work(&s, n))
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    println!("{} {}", unsafe { TOTAL }, DONE.load(Ordering::Acquire));
}
