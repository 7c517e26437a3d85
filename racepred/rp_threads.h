/* rp_threads.h — racepred's thread identities and the fork/join edges.
 *
 * Valgrind numbers threads by ThreadId, a slot number that is recycled as
 * soon as a thread exits.  The event stream needs identities that are
 * never reused, so racepred gives every thread a number of its own: dense
 * from 0 (the root thread), in creation order, never reused.  Reports show
 * them 1-based ("thread #1" is the root thread), like Helgrind.
 *
 * Edges this module puts into the event stream:
 *   RP_EV_FORK  when the parent clones the child (Valgrind's ll_create hook);
 *   RP_EV_JOIN  when a pthread_join is known to have consumed a finished
 *               thread (see rp_threads_join_pre for where exactly).
 * pthread_t values, which only the preload sees, are mapped to racepred
 * numbers through the THREAD_CREATED and JOIN_PRE client requests.
 */
#ifndef RP_THREADS_H
#define RP_THREADS_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "rp_event.h"

/* The thread running client code now; read by the instrumentation's
 * helpers on every access, so kept in plain globals. */
extern rp_tid_t rp_threads_current;
extern ThreadId rp_threads_current_vg;

/* How many times the CPU went to another thread than the one that had it
 * (RP_USERREQ_SWITCHES: a yielding thread can tell whether anyone ran). */
extern UWord rp_threads_switches;

/* What the running thread asked not to be seen (ANNOTATE_IGNORE_*,
 * RACEPRED_IGNORE_*): RP_IGNORE_READS and/or RP_IGNORE_WRITES, 0 almost
 * always.  Read by the instrumentation's helpers on every access.
 * RP_IGNORE_ATOMICS, asked by the preload alone around a lock library's
 * own code (RP_ANNOUNCE_UNSEEN_ENTER), also hides the thread's atomic
 * read-modify-writes and its accesses in synchronising objects, which
 * would otherwise make the lock's word a synchronisation variable
 * (rp_atomics.h) and order every critical section after the previous
 * one. */
#define RP_IGNORE_READS   1u
#define RP_IGNORE_WRITES  2u
#define RP_IGNORE_ATOMICS 4u
#define RP_IGNORE_KINDS   3     /* bits above */
extern UInt rp_threads_current_ignores;

/* Begins (`begin`) or ends ignoring the accesses of `kinds`
 * (RP_IGNORE_READS | RP_IGNORE_WRITES | RP_IGNORE_ATOMICS) in `vg_tid`;
 * the pairs nest.  False for an end without a begin (nothing changes). */
Bool rp_threads_ignore(ThreadId vg_tid, UInt kinds, Bool begin);

/* Makes a thread the running one if it is not already: a system call's
 * hooks run after a blocking call, when another thread may have been
 * running since (the scheduler's start of the thread's client code comes
 * only after them). */
void rp_threads_make_current(ThreadId vg_tid);

/* Registers the thread hooks; call from pre_clo_init. */
void rp_threads_init(void);

/* Whether a Valgrind thread slot holds a live thread. */
Bool rp_threads_is_live(ThreadId vg_tid);

/* The racepred number of a live Valgrind thread. */
rp_tid_t rp_threads_of_vg(ThreadId vg_tid);

/* Number of racepred threads created so far. */
rp_tid_t rp_threads_count(void);

/* Whether the root thread has joined every thread ever created (none
 * created, none detached or exited unjoined): rp_stacks_alone_begins. */
Bool rp_threads_alone(void);

/* Where a thread was created (the parent's stack at clone time); NULL for
 * the root thread. */
ExeContext *rp_threads_created_at(rp_tid_t tid);

/* OpenMP tasks as threads of their own (rp_tasks.h).  A new task's
 * thread, forked from `creator`'s current one; `vg_tid` runs `task` until
 * it leaves it (enter returns the identity it interrupts, which leave
 * gives back); `join`: the task ran inside its creator's call, which is
 * ordered after it (else it is gone as a detached thread is). */
rp_tid_t rp_threads_task_new(ThreadId creator);
rp_tid_t rp_threads_task_enter(ThreadId vg_tid, rp_tid_t task);
void rp_threads_task_leave(ThreadId vg_tid, rp_tid_t task, rp_tid_t outer, Bool join);
Bool rp_threads_is_task(rp_tid_t tid);

/* Detached threads whose state went when they exited (-v). */
extern rp_tid_t rp_threads_detached_gone;

/* Client requests from the pthread_create, pthread_detach and
 * pthread_join wrappers.  A detached thread's state in the detectors goes
 * when it has exited (rp_engine_thread_gone); a join of it is ignored. */
void rp_threads_created(ThreadId parent, UWord child_pthread, Bool detached);

/* `parent`'s pthread_create is about to hand its new thread `arg` and
 * `stack` (hands), or has returned (not hands): a clone in between lets
 * only the stack frames and private heap blocks these point to leave the
 * parent.  A clone without it (a raw clone, glibc's own thread creations)
 * lets every one leave. */
void rp_threads_hands(ThreadId parent, Bool hands, UWord arg, UWord stack);

/* `vg_tid`'s own pthread_t is `pthread` (the preload tells the root
 * thread's, which no pthread_create returned: another thread may join it
 * after it called pthread_exit). */
void rp_threads_self(ThreadId vg_tid, UWord pthread);
void rp_threads_detach(ThreadId caller, UWord child_pthread, Bool self);
void rp_threads_join_pre(ThreadId joiner, UWord child_pthread);

/* `joiner` joined `child_pthread` with pthread_tryjoin_np, _timedjoin_np
 * or _clockjoin_np (the call succeeded): the join edge, unless a blocking
 * join already put it in. */
void rp_threads_join_done(ThreadId joiner, UWord child_pthread);

#endif
