/* rp_stacks.h — each thread's private stack (core/rp_privstack.h) as the
 * instrumentation uses it: accesses of the running thread to the private
 * part of its own stack are not events, and what lets a stack address
 * escape (a store of one, a thread creation, a system call that sends
 * data) is reported here.
 */
#ifndef RP_STACKS_H
#define RP_STACKS_H

#include "pub_tool_basics.h"

/* --private-stacks: whether private stack accesses are skipped (default
 * yes). */
extern Bool rp_stacks_enabled;

/* --skip-alone: whether every access is private while the running thread
 * is alone (default yes). */
extern Bool rp_stacks_skip_alone;

/* The running thread's stack, [lo, lo + span], and its private part,
 * [lo, lo + private_span) (span 0: none): what the helpers and the
 * translated code compare with. */
extern Addr rp_stacks_lo;
extern UWord rp_stacks_span;
extern UWord rp_stacks_private_span;

/* Whether [addr, addr + size) is in the running thread's private part. */
static inline Bool rp_stacks_is_private(Addr addr, UWord size)
{
    return addr + size - 1 - rp_stacks_lo < rp_stacks_private_span;
}

/* The running thread is alone from now on: it has joined every thread
 * it or another created (rp_threads.c counts them).  No access it makes
 * until the next thread creation can race with one made before or after
 * (fork and join order them in every detector's relation), so while
 * --skip-alone holds, every address is its private part: the helpers
 * drop every plain access at their first test, and the translated code's
 * check of stack stores never calls (the next creation shares every live
 * frame anyway). */
void rp_stacks_alone_begins(void);

/* `parent` creates a thread (rp_threads_alone has just become false): the
 * private part is its stack's again. */
void rp_stacks_alone_ends(ThreadId parent);

/* Whether the running thread is alone and --skip-alone holds: the
 * accesses libc, the kernel and free make for it are not events either. */
Bool rp_stacks_skipping_alone(void);

/* The thread gets the CPU: its stack and what has returned since. */
void rp_stacks_switch(ThreadId tid);

/* The thread's stack addresses may leave it now (it creates a thread,
 * hands the kernel a pointer). */
void rp_stacks_escape(ThreadId tid);

/* `value` leaves tid (a thread's argument): if it is an address of tid's
 * private stack, the live frames are shared. */
void rp_stacks_value_leaves(ThreadId tid, Addr value);

/* tid sends [lo, hi) out (a write, a send): the frames of its stack an
 * aligned word of it points into are shared from the lowest such address
 * up. */
void rp_stacks_sent(ThreadId tid, Addr lo, Addr hi);

/* A private heap block [lo, hi) escapes (rp_privblocks.h): the frames of
 * every stack an aligned word of it points into are shared from the
 * lowest such address up. */
void rp_stacks_escape_pointed(Addr lo, Addr hi);

/* The thread ended: its stack may be another's next. */
void rp_stacks_forget(ThreadId tid);

/* The running thread stores `value`, which lies in its stack, at addr,
 * which is not in its private part. */
void rp_stacks_store(Addr addr, UWord value);

#endif
