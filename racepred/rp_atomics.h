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
 * count of sends, the set's version).  Only a load at the instruction of
 * the last poll shows a loop, though: a second load of the flag further
 * on (an assert after the wait) is a repeat, but no spin.  Such a load
 * becomes the poll's instruction, so that a loop whose first test the
 * compiler put before it (`if (!f) do {} while (!f);`) shows at its second.
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

/* How a plain load relates to the last poll (see Polling). */
typedef enum {
    RP_POLL_NEW,    /* not a repeat: a receive */
    RP_POLL_REREAD, /* a repeat at another instruction */
    RP_POLL_LOOPED  /* a repeat at the last poll's instruction: a spin */
} rp_atomics_repeat;

/* How a plain load by thread tid at `addr`, instruction `site`, relates
 * to the last poll, `sends` being the engine's count of sends now; a
 * repeat at another instruction moves the poll there (see Polling). */
rp_atomics_repeat rp_atomics_poll_repeat(UInt tid, Addr addr, Addr site, ULong sends);

/* A plain load by tid at `addr`, instruction `site`, was given to the
 * engine as a receive; it then had counted `sends` sends. */
void rp_atomics_note_poll(UInt tid, Addr addr, Addr site, ULong sends);

/* An atomic RMW of `size` bytes at `addr` happened; True when it marked
 * a byte that was not marked (the caller then makes the words' plain
 * accesses no repeats: rp_instrument.c checks for repeats first). */
Bool rp_atomics_mark(Addr addr, UWord size);

/* [addr, addr + size) is fresh memory: its bytes are ordinary again. */
void rp_atomics_forget(Addr addr, SizeT size);

#endif
