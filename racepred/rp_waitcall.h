/* rp_waitcall.h — the way back of a polling loop that waits: the
 * machine-code side of the spin-loop rule for loops whose back edge
 * leaves the check's superblock (rp_spin.h).
 *
 *     while (!atomic_load_explicit(&ready, memory_order_acquire))
 *         sched_yield();            (or usleep(100), nanosleep(&ts, 0),
 *                                    std::this_thread::sleep_for(1ms))
 *
 *     for (i = 0; i < 16; i++) {   (libstdc++'s std::atomic<T>::wait)
 *         if (value != old) return;
 *         if (i < 12) pause; else sched_yield();
 *     }
 *
 * compile to a check in one superblock and, elsewhere, the rest of the
 * loop: argument set-up and a call, a pause, a counter, compares and
 * jumps back.  That code is not in the check's block, so it is decoded
 * from the client's code (rp_x86.h), following every path from the
 * check's branch, conditional jumps both ways, until the path comes back
 * to the block (or to another copy of the block's check: compilers poll
 * once before a loop they rotate) or leaves the loop.  A path comes back
 * only through instructions that move registers and constants, read
 * constants, compare, read and write the stack frame (a struct timespec),
 * pause, or call a function that only waits (sched_yield, pthread_yield,
 * thrd_yield, usleep, nanosleep, clock_nanosleep, thrd_sleep, sleep,
 * libstdc++'s std::this_thread::__sleep_for, and LLVM OpenMP's
 * __kmpc_flush, a fence clang calls in an `omp atomic read acquire`
 * poll, named through the PLT:
 * rp_callee.h).  At least one path that comes back must wait on the way:
 * pause or call one of those; or poll, reading a fixed address (another
 * flag: VEX ends a block at every conditional branch, so the checks of
 * `while (!a && !b)` are two blocks, each the other's way back) and
 * branching after it.  Only a path that waited may come back at another
 * copy of the check; a path that polls must come back to the block
 * itself.  Other paths may come back without waiting (the counter of a
 * loop that spins a hundred times, then yields).  A loop no path of which
 * waits (a counted loop that tests a flag) is left to the block-local
 * rule.  Anything else (a store, another call, a return, an indirect
 * jump) ends the path as a way out of the loop.
 */
#ifndef RP_WAITCALL_H
#define RP_WAITCALL_H

#include "pub_tool_basics.h"

#include "rp_code.h"

/* No reload (rp_way_back.reload). */
#define RP_WAY_BACK_NO_RELOAD ((Long)0x7FFFFFFFFFFFFFFFLL)
#define RP_WAY_BACK_STORES 8

/* A slot of the stack frame as the machine code names it: register RSP
 * or RBP and a displacement. */
typedef struct rp_way_slot {
    Int base;
    Long disp;
} rp_way_slot;

/* Where the ways back go and what they do on the way. */
typedef struct rp_way_back {
    Int head;                 /* what the head_of callback said, the smallest */
    UInt clobbered;           /* registers a way back may change (bit n: register n) */
    /* The frame slot (displacement from RSP) every way back loads a
     * register from last, RP_WAY_BACK_NO_RELOAD if not: the register is
     * the same every time round if the slot is. */
    Long reload[16];
    /* Frame slots the ways back store. */
    Int n_stores;
    rp_way_slot stores[RP_WAY_BACK_STORES];
    /* Registers, as the block left them, that a way back compares before a
     * branch one side of which comes back and the other leaves the loop:
     * `do { v = flag; sched_yield(); } while (!v)` loads in the block that
     * ends at the call and tests v after it. */
    UInt tested;
    /* Frame slots compared so (unoptimised code keeps v in the frame; a
     * slot the way back copied from another before the compare, through a
     * register, counts as that other: clang -O0's `omp atomic read
     * acquire` poll loads into a temporary, calls __kmpc_flush, then
     * copies the temporary into the variable its check tests). */
    Int n_tested_slots;
    rp_way_slot tested_slots[RP_WAY_BACK_STORES];
    /* Frame slots a way back that comes back has copied, through a
     * register, from another: the block finds in slot copy_to[i] the
     * value slot copy_from[i] had when it left (clang -O0's poll again,
     * when the check is the block's first instruction). */
    Int n_copies;
    rp_way_slot copy_from[RP_WAY_BACK_STORES], copy_to[RP_WAY_BACK_STORES];
} rp_way_back;

/* Whether a path that reached client address `a` has come back: a
 * non-negative number naming where (the smaller, the earlier), else -1.
 * With `exact`, only an instruction of the check's block itself counts,
 * not another copy of the check. */
typedef Int (*rp_head_fn)(void *ctx, Addr a, Bool exact);

/* Follows the loop's way back from `from` (the check's branch target, or
 * where a call of a waiting function at the end of the block returns, then
 * `waited` and `after_call` are True; after a pause, only `waited`).  True
 * when some path that comes back waits (above) and no path could be
 * followed through its whole length without coming back or leaving. */
Bool rp_waitcall_way_back(Addr from, Bool waited, Bool after_call, rp_head_fn head_of,
                          void *ctx, rp_way_back *way);

/* Whether a direct call of `target` calls a function that only waits. */
Bool rp_waitcall_is_wait(Addr target);

#endif
