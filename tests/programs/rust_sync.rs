// Rust's standard synchronisation, each handing data written before it to
// another thread: Mutex, RwLock, Condvar, mpsc channels (unbounded and
// bounded), Once, scoped threads, Arc, and an AtomicBool stored with
// release order and loaded once with acquire order (outside any loop).
// std builds its channels and its Once on atomics, and on x86 an atomic
// load or store is a plain move: racepred knows them by their source,
// core::sync::atomic (--atomic-sources).  Race-free.
//
// The socket pair only makes the main thread wait for the flag's writer;
// racepred runs the program with --fd-sync=no, so that only the atomic
// orders them.
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::ptr::addr_of;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Condvar, Mutex, Once, RwLock};
use std::thread;

static mut PUBLISHED: [u64; 4] = [0; 4];
static READY: AtomicBool = AtomicBool::new(false);
static INIT: Once = Once::new();
static mut INIT_VALUE: u64 = 0;

fn atomic_flag() -> u64 {
    let (mut rx, mut tx) = UnixStream::pair().unwrap();
    let t = thread::spawn(move || {
        unsafe { PUBLISHED = [1, 2, 3, 4] };
        READY.store(true, Ordering::Release);
        tx.write_all(b"x").unwrap();
    });
    let mut byte = [0u8; 1];
    rx.read_exact(&mut byte).unwrap();
    let published = if READY.load(Ordering::Acquire) { unsafe { *addr_of!(PUBLISHED) } } else { [0; 4] };
    t.join().unwrap();
    published.iter().sum()
}

fn mutex_and_condvar() -> u64 {
    let pair = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
    let other = Arc::clone(&pair);
    let t = thread::spawn(move || {
        let (lock, cond) = &*other;
        lock.lock().unwrap().push(5u64);
        cond.notify_one();
    });
    let (lock, cond) = &*pair;
    let mut items = lock.lock().unwrap();
    while items.is_empty() {
        items = cond.wait(items).unwrap();
    }
    let sum = items.iter().sum();
    drop(items);
    t.join().unwrap();
    sum
}

// Writers and readers that yield inside their sections, so that the others
// find the lock taken and wait (the contended paths, the waiter bits).
fn rwlock() -> u64 {
    let shared = Arc::new(RwLock::new(0u64));
    let threads: Vec<_> = (0..4u64)
        .map(|i| {
            let s = Arc::clone(&shared);
            thread::spawn(move || {
                let mut seen = 0;
                for _ in 0..20 {
                    if i % 2 == 0 {
                        let mut value = s.write().unwrap();
                        thread::yield_now();
                        *value += i + 1;
                    } else {
                        let value = s.read().unwrap();
                        thread::yield_now();
                        seen = seen.max(*value);
                    }
                }
                seen
            })
        })
        .collect();
    let mut seen = 0;
    for t in threads {
        seen = seen.max(t.join().unwrap());
    }
    let value = *shared.read().unwrap();
    assert!(seen <= value);
    value
}

fn channels() -> u64 {
    let (tx, rx) = mpsc::channel();
    let (btx, brx) = mpsc::sync_channel(1);
    let t = thread::spawn(move || {
        for i in 0..50u64 {
            tx.send(vec![i; 4]).unwrap();
            btx.send(Box::new(i)).unwrap();
        }
    });
    let mut sum = 0;
    for _ in 0..50 {
        sum += rx.recv().unwrap().iter().sum::<u64>();
        sum += *brx.recv().unwrap();
    }
    t.join().unwrap();
    sum
}

fn once() -> u64 {
    let threads: Vec<_> = (0..2)
        .map(|_| thread::spawn(|| INIT.call_once(|| unsafe { INIT_VALUE = 7 })))
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    INIT.call_once(|| {});
    unsafe { INIT_VALUE }
}

fn scoped() -> u64 {
    let mut parts = [0u64; 2];
    thread::scope(|s| {
        for (i, part) in parts.iter_mut().enumerate() {
            s.spawn(move || *part = (i as u64 + 1) * 10);
        }
    });
    parts.iter().sum()
}

fn main() {
    println!(
        "{} {} {} {} {} {}",
        atomic_flag(),
        mutex_and_condvar(),
        rwlock(),
        channels(),
        once(),
        scoped()
    );
}
