/* rp_clientreq.h — the client requests the preload sends to the tool.
 *
 * The preload (rp_intercepts.c) runs inside the client and can tell the
 * tool something only through Valgrind's client-request mechanism: a magic
 * instruction sequence that the tool receives in rp_clientreq_handle()
 * (rp_clientreq.c) with the requesting thread's ThreadId and up to five word
 * arguments.  Every request racepred understands is numbered here, in the
 * tool-private range VG_USERREQ_TOOL_BASE('R','P').  Outside Valgrind the
 * requests cost a few instructions and do nothing.
 *
 * This header is shared by both sides, so it includes nothing but valgrind.h.
 */
#ifndef RP_CLIENTREQ_H
#define RP_CLIENTREQ_H

#include "valgrind.h"

typedef enum {
    /* The preload is loaded (sent once, from its constructor); arg1, arg2 =
     * the bounds of its list of announcing nops (rp_preload.h), arg3 = the
     * pthread_t of the thread sending it (the root thread). */
    RP_USERREQ_PRELOAD_HELLO = VG_USERREQ_TOOL_BASE('R', 'P'),
    /* arg1 = pthread_t of the thread the caller just created, arg2 = 1 if
     * it was created detached. */
    RP_USERREQ_THREAD_CREATED,
    /* arg1 = the argument the caller's pthread_create is about to hand
     * its new thread, arg2 = the stack address its attribute names (0:
     * none): the thread the next clone makes gets these two values and no
     * other address of the caller's. */
    RP_USERREQ_THREAD_HANDS,
    /* The caller's pthread_create returned: RP_USERREQ_THREAD_HANDS no
     * longer holds. */
    RP_USERREQ_THREAD_HANDED,
    /* arg1 = pthread_t the caller is about to join. */
    RP_USERREQ_JOIN_PRE,
    /* arg1 = pthread_t a non-blocking or timed join just joined. */
    RP_USERREQ_JOIN_DONE,
    /* arg1 = mutex or rwlock, arg2 = 1 for an rwlock's read side: the
     * caller now holds it (the real lock call succeeded). */
    RP_USERREQ_LOCK_ACQUIRED,
    /* arg1 = mutex or rwlock: the caller is about to unlock it. */
    RP_USERREQ_LOCK_RELEASE_PRE,
    /* arg1 = first byte, arg2 = size asked for, arg3 = usable size: a heap
     * block just handed out. */
    RP_USERREQ_HEAP_BLOCK_NEW,
    /* arg1 = first byte, arg2 = new size, arg3 = new usable size: realloc
     * kept the block in place. */
    RP_USERREQ_HEAP_BLOCK_RESIZED,
    /* arg1 = first byte, arg2 = the caller of free (or realloc): the block
     * is about to be freed. */
    RP_USERREQ_HEAP_BLOCK_FREE,
    /* arg1 = old first byte, arg2 = new first byte, arg3 = size asked for,
     * arg4 = usable size, arg5 = the caller of realloc: realloc moved the
     * block (the old one is freed). */
    RP_USERREQ_HEAP_BLOCK_MOVED,
    /* arg1 = sync object: a hard happens-before source (cond signal). */
    RP_USERREQ_SYNC_SEND,
    /* arg1 = sync object: ordered after every earlier SYNC_SEND on it. */
    RP_USERREQ_SYNC_RECV,
    /* arg1 = barrier, arg2 = count: pthread_barrier_init succeeded. */
    RP_USERREQ_BARRIER_INIT,
    /* arg1 = barrier: the caller is about to wait on it.  Returns the
     * round's sync object, which the caller passes to BARRIER_DEPART. */
    RP_USERREQ_BARRIER_ARRIVE,
    /* arg1 = barrier, arg2 = what BARRIER_ARRIVE returned: the wait is
     * over. */
    RP_USERREQ_BARRIER_DEPART,
    /* arg1 = barrier: pthread_barrier_destroy succeeded. */
    RP_USERREQ_BARRIER_DESTROY,
    /* Returns rp_threads_switches (rp_intercepts_omp.c). */
    RP_USERREQ_SWITCHES,
    /* arg1 = pthread_t the caller is about to detach, arg2 = 1 when it is
     * the caller's own. */
    RP_USERREQ_THREAD_DETACH,
    /* An OpenMP task is about to be handed to the runtime (rp_tasks.h);
     * arg1: 1 if it has dependences, | 2 if it must run as its runner's
     * events; arg2, arg3: the runtime's task and its size, whose bytes are
     * fresh at its end, or 0 (libgomp: the preload's own block).  Returns
     * its handle, handle & 1 set when it runs as a thread of its own; 0
     * (and outside Valgrind): nothing to tell about it. */
    RP_USERREQ_TASK_CREATE,
    /* arg1 = task handle, arg2 = address of a dependence, arg3 = 1 for
     * out, inout, mutexinoutset or depobj, 0 for in. */
    RP_USERREQ_TASK_DEPEND,
    /* arg1 = task handle: the task's body starts, then has ended; arg2 of
     * TASK_END = 1 when it ran inside its creator's call (included). */
    RP_USERREQ_TASK_BEGIN,
    RP_USERREQ_TASK_END,
    /* A taskwait is over: the caller's child tasks have ended. */
    RP_USERREQ_TASK_WAIT,
    /* arg1 = address, arg2 = 1 for out: a `taskwait depend` is over. */
    RP_USERREQ_TASK_WAIT_DEPEND,
    /* A barrier, taskgroup or parallel region is over: every task has
     * ended. */
    RP_USERREQ_TASKS_DONE,
    /* A task racepred cannot follow was handed to the runtime (detach). */
    RP_USERREQ_TASK_UNFOLLOWED,
    /* arg1 = the runtime's task, as at TASK_CREATE: its body starts on
     * this thread.  Returns the handle of that task of its own thread
     * (TASK_BEGIN done), or 0 when it has none. */
    RP_USERREQ_TASK_BEGIN_KEY
} rp_userreq;

/* RP_USERREQ_TASK_CREATE's flags. */
#define RP_TASK_HAS_DEPENDENCES 1UL
#define RP_TASK_ON_RUNNER 2UL

/* Not requests but announcements (rp_preload.h's announcing nops, a
 * client request's cost divided by a hundred): a read size no real range
 * has says the thread enters a lock library's own code, whose loads,
 * stores and atomics are not the program's (RP_UNSEEN_CALL:
 * rp_intercepts_glib.c, rp_intercepts_omp.c), or leaves it.  They nest. */
#define RP_ANNOUNCE_UNSEEN_ENTER (~0UL)
#define RP_ANNOUNCE_UNSEEN_LEAVE (~0UL - 1)

#endif
