// hidden_race.c in Rust: a race that this run hides from happens-before.
// The first thread writes SHARED, then takes and releases a std Mutex; the
// second, which the pipe makes run only afterwards, takes and releases the
// Mutex and then writes SHARED.  The Mutex orders the two writes in this
// schedule, so --detector=hb reports nothing; the two critical sections
// write different fields, and in the schedule where the second thread's
// runs first the writes are adjacent, which the predictive detectors find
// once std's futex mutex is a lock (--lock-functions), not atomics.  The pipe only fixes the order; racepred
// runs this with --fd-sync=no.
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::io::FromRawFd;
use std::sync::{Arc, Mutex};
use std::thread;

static mut SHARED: u32 = 0;

fn pipe() -> (File, File) {
    let mut fds = [0i32; 2];
    extern "C" {
        fn pipe(fds: *mut i32) -> i32;
    }
    assert_eq!(unsafe { pipe(fds.as_mut_ptr()) }, 0);
    unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) }
}

#[inline(never)]
fn first_thread(m: &Mutex<(u32, u32)>, mut order: File) {
    unsafe { SHARED = 1 };
    m.lock().unwrap().0 = 1;
    order.write_all(b"x").unwrap();
}

#[inline(never)]
fn second_thread(m: &Mutex<(u32, u32)>, mut order: File) {
    let mut byte = [0u8; 1];
    order.read_exact(&mut byte).unwrap();
    m.lock().unwrap().1 = 2;
    unsafe { SHARED = 2 };
}

fn main() {
    let (rx, tx) = pipe();
    let m = Arc::new(Mutex::new((0u32, 0u32)));
    let (m1, m2) = (Arc::clone(&m), Arc::clone(&m));
    let t1 = thread::spawn(move || first_thread(&m1, tx));
    let t2 = thread::spawn(move || second_thread(&m2, rx));
    t1.join().unwrap();
    t2.join().unwrap();
    let owners = *m.lock().unwrap();
    println!("{} {} {}", unsafe { SHARED }, owners.0, owners.1);
}
