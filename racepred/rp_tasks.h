/* rp_tasks.h — OpenMP tasks as threads of their own.
 *
 * Two tasks without a dependence are unordered, and so are a task and
 * the code of its creator up to the next taskwait or barrier.  But the
 * runtime runs many tasks on one thread, often the creator's, one after
 * the other: program order then hides every race between them, and when
 * two threads run them, the runtime's task queue (a synchronising object,
 * rp_filter.h) orders them.  So each task runs as a racepred thread of
 * its own (a logical thread, like Archer's on ThreadSanitizer), whatever
 * Valgrind thread runs it:
 *
 *   creation   the task's thread is forked from its creator's (the
 *              creator's events before the creation precede the task);
 *   begin      the Valgrind thread running it takes the task's identity
 *              (every access until the end is the task's), and the task
 *              receives the ends of the tasks it depends on;
 *   end        the task sends on its dependence objects, on its
 *              creator's children object and on the all-tasks object;
 *              the runner takes back the identity the task interrupted;
 *              a task that ran inside its creator's own GOMP_task call (an
 *              undeferred or included task) is joined into the creator.
 *
 * and the points where the OpenMP specification says tasks have ended
 * receive: a taskwait the creator's children object, a `taskwait depend`
 * the objects of its dependences, a barrier, a taskgroup's end, a
 * taskloop and the end of a parallel region the all-tasks object.
 *
 * Dependences (`depend` clauses) order sibling tasks, tasks of one
 * creator: per creator and address two objects, one that every `out`
 * task (out, inout, mutexinoutset, depobj) sends on at its end and one
 * every `in` task does; an `in` task receives the first at its begin, an
 * `out` task both.  Receiving at the begin is exact: a task created after
 * this one that this one could receive from depends on it, so it cannot
 * have ended yet.  A creator's table goes at its taskwait, barrier or
 * end (its children's dependences order nothing more then); keys are not
 * used again, since an object keeps what it received: a task of another
 * creator would be ordered after tasks it is not.
 *
 * Past --omp-task-threads tasks (the clocks of every thread grow with the
 * number of threads), and after a task racepred cannot follow (one with
 * a `detach` clause, whose end is the event's fulfilment), tasks run as
 * their runner's events, as before.  The runtime's own synchronisation
 * (a synchronising object) orders those before their creator's taskwait
 * and the barriers, in the runners' threads; their dependences still
 * receive and send where a task of its own thread made the objects, so
 * mixing both kinds orders what it must.  A task on its runner's thread
 * without dependences is not followed at all (TASK_CREATE answers 0),
 * and until a task has had a thread of its own the preload sends no
 * taskwait or barrier requests.
 *
 * libgomp's tasks through its wrappers (rp_intercepts_omp.c), LLVM's
 * libomp's through OMPT and its trampolines (rp_intercepts_kmp.c), whose
 * tasks have a key, libomp's task: the trampoline begins the task by it,
 * and the task's bytes are fresh memory at its end, since libomp hands
 * them to the next task without malloc.
 */
#ifndef RP_TASKS_H
#define RP_TASKS_H

#include "pub_tool_basics.h"

/* --omp-task-threads: how many tasks may run as threads of their own. */
extern UInt rp_tasks_max_threads;

/* The client requests of rp_clientreq.h, from the preload. */
UWord rp_tasks_create(ThreadId vg_tid, UWord flags, Addr key, SizeT key_len);
UWord rp_tasks_begin_key(ThreadId vg_tid, Addr key);
void rp_tasks_depend(UWord handle, Addr addr, Bool is_out);
void rp_tasks_begin(ThreadId vg_tid, UWord handle);
void rp_tasks_end(ThreadId vg_tid, UWord handle, Bool included);
void rp_tasks_wait(ThreadId vg_tid);
void rp_tasks_wait_depend(ThreadId vg_tid, Addr addr, Bool is_out);
void rp_tasks_all_done(ThreadId vg_tid);
void rp_tasks_unfollowed(void);

/* -v: how many tasks ran as threads of their own. */
void rp_tasks_print_stats(void);

#endif
