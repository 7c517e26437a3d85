/* rp_privstack.h — the part of a thread's stack no other thread can reach.
 *
 * Code built with -O0 keeps every local in its stack frame and reloads it
 * at every statement: most of its accesses are its own thread's stack
 * (zstd -O0 -T2: skipping them took racepred's hb run from 2.6 to 1.5
 * CPU seconds, the instrumentation floor).  DRD does not check stack
 * variables by default at all, and misses the races of a local whose
 * address another thread was given.  racepred skips them only while no
 * other thread can know their address.
 *
 * A thread's stack is [lo, hi].  Another thread can reach a stack object
 * only through its address, which must leave the thread first: stored
 * into memory that is not the private part of its own stack (a global, the
 * heap, another stack, or a part of its own stack that is shared already),
 * handed to a thread it creates, or written out through a system call.
 * Each such escape makes everything live on the stack shared: every
 * address from the stack pointer up, and from the escaping address itself
 * if it is lower (an object in a leaf function's red zone), since what is
 * reachable from one stack object is not known.  The private part is
 * [lo, shared_from); frames made after the escape, below it, are private,
 * and so is the memory of frames that have returned: when the thread's
 * stack pointer is seen above shared_from, what is below it, less the
 * 128-byte red zone a leaf may be using, is private again.  (The red zone
 * is not shared at every escape: the prologue of each function called
 * next stores the frame pointer there, and each such store into the
 * shared part would share the next 128 bytes down, frame after frame.)
 *
 * What skipping private accesses can miss: an access made before the
 * address escaped, racing with another thread's access made after.  That
 * thread must first get the address, from the store that published it (or
 * the thread creation, or the system call, which order); a store
 * published by a plain write races itself and is reported, one published
 * through synchronisation orders the earlier access before the other
 * thread's.  Also missed: a thread that keeps a stack address after its
 * frame returned (use after return), and addresses computed without
 * being passed.
 *
 * Pure arithmetic on addresses: the front end keeps one per thread
 * (rp_stacks.c) and feeds it stack pointers and stored values.
 */
#ifndef RP_PRIVSTACK_H
#define RP_PRIVSTACK_H

#include <stdbool.h>
#include <stdint.h>

#define RP_PRIVSTACK_REDZONE 128u

typedef struct rp_privstack {
    uint64_t lo, hi;          /* the stack, [lo, hi]; lo > hi: none known */
    uint64_t shared_from;     /* [lo, shared_from) is private */
} rp_privstack;

/* A stack [lo, hi] of which nothing has escaped. */
void privstack_init(rp_privstack *s, uint64_t lo, uint64_t hi);

/* No stack known: nothing is private, nothing escapes. */
void privstack_none(rp_privstack *s);

/* The stack's low end moved (a main stack grows down); what escaped stays. */
void privstack_set_lo(rp_privstack *s, uint64_t lo);

static inline bool privstack_holds(const rp_privstack *s, uint64_t addr)
{
    return addr - s->lo <= s->hi - s->lo && s->lo <= s->hi;
}

static inline bool privstack_is_private(const rp_privstack *s, uint64_t addr)
{
    return addr - s->lo < s->shared_from - s->lo;
}

/* An address of the stack leaves the thread while its stack pointer is
 * sp (`pointer` 0: none in particular, a thread creation or a system
 * call): everything live becomes shared.  A stack pointer off the stack
 * (a signal or coroutine stack) shares the whole stack. */
void privstack_escape(rp_privstack *s, uint64_t sp, uint64_t pointer);

/* Whether storing `value` at `addr`, with the stack pointer at sp, lets
 * a stack address escape: value is in the stack no lower than the red
 * zone below sp (below it lies no object: a pointer there is stale, or
 * no pointer at all but a number that happens to be in the range, which
 * compressors store by the thousand when thread stacks sit at low
 * addresses), and addr is not private. */
bool privstack_store_escapes(const rp_privstack *s, uint64_t addr, uint64_t value,
                             uint64_t sp);

/* The stack pointer is sp: frames below it have returned, and their
 * memory is private again; the live frames stay as they are.  Returns the
 * start of what became private, up to shared_from (shared_from itself
 * when nothing did): what other threads did there, to objects that no
 * longer exist, must be forgotten, or it would race with the accesses to
 * the new objects the next escape shares. */
uint64_t privstack_popped(rp_privstack *s, uint64_t sp);

#endif
