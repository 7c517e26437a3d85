/* rp_atomics.h — addresses that atomic read-modify-writes made
 * synchronisation variables.
 *
 * On amd64 every lock-prefixed read-modify-write (lock xadd, lock cmpxchg,
 * xchg with memory: __atomic_fetch_add, __sync_lock_test_and_set, a CAS
 * loop) reaches the tool as one Ist_CAS statement, and the instrumentation
 * turns it into an acquire and a release of its address.  But an atomic
 * load or store is a plain mov on x86, whatever its memory order: the
 * tool cannot tell atomic_store(&flag, 1) from flag = 1.  The rule that
 * closes most of the gap: once an address has been the target of an
 * atomic read-modify-write it is a synchronisation variable for good, and
 * every later plain load of it acts as an acquire (RP_EV_SYNC_RECV) and
 * every plain store as a release (RP_EV_SYNC_SEND), never as an access
 * that could race.  That makes reference counts, flags published with a
 * store after an RMW elsewhere, and spin locks released with a plain store
 * race-free.  Its limit: until the first RMW, loads and stores of the
 * address are ordinary accesses (and may be reported), unless their code
 * comes from an atomic type's source (C++'s std::atomic, Rust's atomics:
 * --atomic-sources, rp_filter.h), which makes them acquires and releases
 * whatever the address.
 *
 * Granularity: the set holds bytes, grouped by aligned 8-byte word; a plain
 * access is synchronisation when its first byte is a marked byte, and its
 * sync object is the variable's first byte (rp_atomics_object: an RMW and
 * the loads and stores of the same variable meet on one object, and two
 * variables that share a word stay apart).  The set forgets a range that
 * becomes fresh memory (rp_atomics_forget), so a freed reference count
 * does not make the next owner's plain data synchronisation.
 *
 * The test runs on every plain load and store, so it has a fast path: a
 * bitmap of 2^16 bits (8 KiB) indexed by the word number modulo 2^16, set
 * for every marked word and never cleared.  A clear bit (the common case)
 * proves the address unmarked; a set bit sends the access to the exact
 * set, a hash map.
 *
 * Polling.  A thread that waits for a flag loads it again and again, and
 * each load is a receive.  While no thread sends anything and the set
 * does not change, a load by the same thread of the address it last polled is a receive the engine's filter would
 * drop (rp_repeats.h: no send on its object since the thread's last
 * receive on it), so the front end drops it first, without the set's
 * lookup: one compare of the last poll (thread, address, the engine's
 * count of sends, the set's version).
 *
 * Spinning.  A thread that loads a marked variable again at the same
 * instruction while no thread sends anything runs a loop that waits for
 * what only another thread can do: the front end then ends its timeslice
 * soon.  A repeat alone is not that: a second load of the flag after the
 * wait (an assert of what the loop saw) repeats the poll at a new
 * instruction, and a yield there would end the timeslice inside whatever
 * the thread has just acquired.  A loop may load a few variables, each at
 * a few instructions, so the last few loads since the last send are kept.
 */
#ifndef RP_ATOMICS_H
#define RP_ATOMICS_H

#include "pub_tool_basics.h"

#define RP_ATOMICS_FILTER_BITS 16

extern UChar rp_atomics_filter[(1u << RP_ATOMICS_FILTER_BITS) / 8];

/* False when no byte of the word holding `addr` can be marked. */
static inline Bool rp_atomics_may_hold(Addr addr)
{
    UWord bit = (addr >> 3) & ((1u << RP_ATOMICS_FILTER_BITS) - 1);

    return (rp_atomics_filter[bit >> 3] >> (bit & 7)) & 1;
}

/* The sync object of the marked variable holding the byte at `addr`:
 * the address where the RMW that marked it began (the last start at or
 * before the byte in its aligned word; the word when an RMW from the word
 * before marked it).  Two variables in one word (two 4-byte counters) are
 * two objects: a load of one is not ordered after an RMW of the other. */
Addr rp_atomics_object(Addr addr);

/* Whether the byte at `addr` was the target of an atomic RMW (exact; call
 * only when rp_atomics_may_hold said yes). */
Bool rp_atomics_holds(Addr addr);

/* Whether a plain load by thread tid at `addr` repeats the last poll,
 * `sends` being the engine's count of sends now (see Polling). */
Bool rp_atomics_polled(UInt tid, Addr addr, ULong sends);

/* A plain load by tid at `addr` was given to the engine as a receive; it
 * then had counted `sends` sends. */
void rp_atomics_note_poll(UInt tid, Addr addr, ULong sends);

/* Whether thread tid's load of the marked variable at `addr`, at
 * instruction `site`, repeats one of its last loads since the last send,
 * `sends` being the engine's count of sends now (see Spinning). */
Bool rp_atomics_spins(UInt tid, Addr addr, Addr site, ULong sends);

/* An atomic RMW of `size` bytes at `addr` happened; True when it marked
 * a byte that was not marked (the caller then makes the words' plain
 * accesses no repeats: rp_instrument.c checks for repeats first). */
Bool rp_atomics_mark(Addr addr, UWord size);

/* [addr, addr + size) is fresh memory: its bytes are ordinary again. */
void rp_atomics_forget(Addr addr, SizeT size);

#endif
