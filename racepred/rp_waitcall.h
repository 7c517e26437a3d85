/* rp_waitcall.h — calls with which a thread waits: the machine-code side
 * of the spin-loop rule for loops that yield or sleep (rp_spin.h).
 *
 *     while (!atomic_load_explicit(&ready, memory_order_acquire))
 *         sched_yield();            (or usleep(100), nanosleep(&ts, 0),
 *                                    std::this_thread::sleep_for(1ms))
 *
 * compiles to a check in one superblock and, in another, a short stub:
 * argument set-up, the call, and after it a jump back to the check (or
 * the call returns right to it).  The stub is not in the check's block,
 * so it is decoded from the client's code (rp_x86.h): it may move
 * registers and constants, read constants and read and write its own
 * stack frame (a struct timespec), and nothing else; the callee, named
 * through the PLT (rp_callee.h), must be one of the functions that only
 * wait: sched_yield, pthread_yield, thrd_yield, usleep, nanosleep,
 * clock_nanosleep, thrd_sleep, sleep and libstdc++'s
 * std::this_thread::__sleep_for.
 */
#ifndef RP_WAITCALL_H
#define RP_WAITCALL_H

#include "pub_tool_basics.h"

#include "rp_x86.h"

/* Whether a direct call of `target` calls a function that only waits. */
Bool rp_waitcall_is_wait(Addr target);

/* A wait stub: up to a few instructions that touch no memory but the
 * stack frame and constants, then a direct call of a waiting function. */
typedef struct rp_wait_stub {
    Addr start, call;         /* its first instruction, its call */
    Addr resume;              /* where the call returns */
    UInt clobbered;           /* registers the stub or the call may change (bit n: n) */
} rp_wait_stub;

/* Whether the code at `addr` is a wait stub (filled in). */
Bool rp_waitcall_stub(Addr addr, rp_wait_stub *stub);

/* Where the code at `resume` jumps, after at most a few compares and
 * tests: the target of a jump or of a conditional jump; False if it
 * does anything else first. */
Bool rp_waitcall_jump_after(Addr resume, Addr *to);

/* Whether `load`, an instruction with a memory operand before the stub
 * (the loop's first check, which compilers put before a loop they
 * rotate), polls what the loop polls: the code the call returns to
 * reads the same memory operand, its registers unchanged by the stub and
 * the call, compares and jumps back into the stub. */
Bool rp_waitcall_polls_again(const rp_wait_stub *stub, const rp_x86_insn *load);

#endif
