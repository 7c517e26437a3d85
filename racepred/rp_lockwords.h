/* rp_lockwords.h — locks that are one word and the atomics on it, known by
 * the functions that take them.
 *
 * Rust's std::sync::Mutex on Linux is a futex word, taken and given back by
 * code inlined into the program: lock is a compare-and-swap of 0 to 1
 * (contended: a swap to 2 that finds 0), unlock a swap to 0, with a futex
 * wait and wake around them; there is no call for the preload to wrap.  As
 * atomics (rp_atomics.h) the word is a synchronisation variable: every
 * critical section is ordered after the one before it, which is right for
 * happens-before but leaves the predictive detectors nothing to reorder,
 * and a race inside the lock says "Locks held: none".
 *
 * So an atomic read-modify-write in a lock function is a lock operation on
 * its word instead, when it succeeds: one that changes the word from 0 to
 * anything else acquires the lock, one that changes it to 0 releases it,
 * any other changes nothing (a contended lock marking the word 2).  Lock
 * functions (--lock-functions) are globs on "FUNCTION@FILE" keys of the
 * instruction's function and of every function inlined at it (which
 * racepred has Valgrind read for the program: rp_inline.h): the
 * function's name without its path and generic arguments, the source
 * file's name without its directories ("lock@futex.rs").  The default
 * names the lock, try_lock, unlock and lock_contended of Rust's futex
 * mutex (library/std/src/sys/sync/mutex/futex.rs in rustc 1.95,
 * sys/unix/locks/futex.rs in 1.63); Condvar::wait goes through them.
 *
 * Rust's RwLock counts its readers in its word (rwlock/futex.rs in 1.95,
 * futex_rwlock.rs in 1.63): the low 30 bits are the number of readers,
 * all of them set is write-locked, the two above mark waiters.  In a
 * reader-writer lock function (--rwlock-functions) a successful
 * read-modify-write that sets the write state takes the write side, one
 * that clears it gives it back, one that counts a reader more or less
 * takes or gives back a read side (a downgrade does both of the last
 * two); waiter bits change nothing.  Every read-modify-write of those
 * functions is on the lock's word: the writers' notification counter
 * beside it is counted up by wake_writer_or_readers, which is not one of
 * them (and is #[cold], not inlined into them); a counter in a listed
 * function would look like a reader taking the lock and never giving it
 * back.
 *
 * The debug information does not always keep the inlined frames of such
 * an instruction: rustc 1.95's MutexGuard drop in std's own
 * set_current_info shows drop_in_place, not unlock.  So a word that a lock
 * function has acquired once is a lock word from then on (until its
 * memory is fresh again, rp_lockwords_forget): any later read-modify-write
 * of it, in whatever function, takes or gives back the lock by the same
 * rule.  A lock word is not a synchronisation variable of rp_atomics.h
 * (a failed compare-and-swap on it, a lock attempt that found it taken, is
 * nothing); if read-modify-writes in functions the debug information did
 * not name made it one before its first acquire in a lock function, that
 * acquire receives what they sent, and the word stops being one.
 */
#ifndef RP_LOCKWORDS_H
#define RP_LOCKWORDS_H

#include "pub_tool_basics.h"

#define RP_LOCKWORDS_DEFAULT \
    "lock@futex.rs,try_lock@futex.rs,unlock@futex.rs,lock_contended@futex.rs"

/* Rust's futex RwLock: sys/sync/rwlock/futex.rs in rustc 1.95,
 * sys/unix/locks/futex_rwlock.rs in 1.63. */
#define RP_RWLOCKWORDS_DEFAULT \
    "read@futex*.rs,try_read@futex*.rs,read_unlock@futex*.rs,read_contended@futex*.rs," \
    "write@futex*.rs,try_write@futex*.rs,write_unlock@futex*.rs,write_contended@futex*.rs," \
    "downgrade@futex*.rs"

/* Which kind of lock function an instruction is in. */
typedef enum {
    RP_LOCKFN_NONE,
    RP_LOCKFN_MUTEX,   /* --lock-functions */
    RP_LOCKFN_RWLOCK   /* --rwlock-functions */
} rp_lock_function;

/* Check and store a pattern list (--lock-functions, --rwlock-functions);
 * False when it is malformed. */
Bool rp_lockwords_set(const HChar *patterns);
Bool rp_lockwords_set_rw(const HChar *patterns);

/* Which lock function, if any, the atomic read-modify-write at `site`
 * is in (asked at translation time). */
rp_lock_function rp_lockwords_function_of(Addr site);

/* After an atomic read-modify-write of the word at `addr`, which found
 * `old` where it expected `expected` (it succeeded when they are equal)
 * and wrote `new` then: if it was a lock function's (`in_function`) or
 * the word is a lock word, the lock's acquires and releases (none, one,
 * or a release and a shared acquire for a downgrade), and True; otherwise
 * False (an ordinary atomic, for the caller).  `site` is the instruction,
 * where a lock's first stack starts; `size` the word's. */
Bool rp_lockwords_after_rmw(Addr addr, ULong old, ULong expected, ULong new, Addr site,
                            UWord size, rp_lock_function in_function);

/* [addr, addr + size) is fresh memory: none of its words is a lock word. */
void rp_lockwords_forget(Addr addr, SizeT size);

#endif
