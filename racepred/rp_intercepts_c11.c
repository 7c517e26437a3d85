/* rp_intercepts_c11.c — the preload's wrappers of C11 <threads.h>.
 *
 * glibc (2.28 and later) implements thrd_*, mtx_*, cnd_* and call_once on
 * top of its pthread code, but calls that code directly, not through the
 * pthread_* symbols the other wrappers are bound to, and libc itself is
 * not instrumented (--ignore-objects): without these wrappers a C11
 * program's locks, joins and waits would be invisible.  Each wrapper
 * reports what its pthread counterpart in rp_intercepts.c reports, at the
 * same moment (see the table there), with C11's success code thrd_success,
 * and silences the pthread wrappers its real function may reach
 * (rp_preload_depth).
 *
 * thrd_create is wrapped itself, not through pthread_create: glibc passes
 * the pthread layer an attribute pointer of (void *)-1 to mark a C11
 * thread, which no pthread_create wrapper may dereference.  The fork edge
 * comes from Valgrind's clone hook, as for pthreads.
 *
 * thrd_detach orders nothing, but says the thread will not be joined (its
 * state in the tool goes when it exits), as pthread_detach does.
 *
 * Not wrapped, because they order nothing: thrd_exit (a thread's end is
 * Valgrind's exit hook), mtx_init, mtx_destroy, cnd_init, cnd_destroy, and
 * the tss_* functions (thread-local data).
 */
#include <stddef.h>
#include <threads.h>

#include "rp_preload.h"

/* ---- threads ------------------------------------------------------------ */

RP_LIBC_FUNC(int, thrdZucreate, thrd_t *thr, thrd_start_t start, void *arg)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_OWN_CALL(CALL_FN_W_WWW(ret, fn, thr, start, arg));
    if (ret == thrd_success)
        RP_REQUEST(RP_USERREQ_THREAD_CREATED, *thr, 0);
    return ret;
}

RP_LIBC_FUNC(int, thrdZujoin, thrd_t thr, int *result)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_REQUEST(RP_USERREQ_JOIN_PRE, thr, 0);
    RP_OWN_CALL(CALL_FN_W_WW(ret, fn, thr, result));
    return ret;
}

/* Before the real call, as pthread_detach's wrapper. */
RP_LIBC_FUNC(int, thrdZudetach, thrd_t thr)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_REQUEST(RP_USERREQ_THREAD_DETACH, thr, thrd_equal(thr, thrd_current()));
    RP_OWN_CALL(CALL_FN_W_W(ret, fn, thr));
    return ret;
}

/* ---- mutexes ------------------------------------------------------------ */

RP_WORKER int mtx_lock_wrk(OrigFn fn, mtx_t *mutex)
{
    int ret;

    RP_OWN_CALL(CALL_FN_W_W(ret, fn, mutex));
    if (ret == thrd_success)
        RP_REQUEST(RP_USERREQ_LOCK_ACQUIRED, mutex, 0);
    return ret;
}

RP_LIBC_FUNC(int, mtxZulock, mtx_t *mutex)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    return mtx_lock_wrk(fn, mutex);
}

/* thrd_busy when the mutex is taken: nothing acquired. */
RP_LIBC_FUNC(int, mtxZutrylock, mtx_t *mutex)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    return mtx_lock_wrk(fn, mutex);
}

RP_LIBC_FUNC(int, mtxZutimedlock, mtx_t *mutex, const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_OWN_CALL(CALL_FN_W_WW(ret, fn, mutex, abstime));
    if (ret == thrd_success)
        RP_REQUEST(RP_USERREQ_LOCK_ACQUIRED, mutex, 0);
    return ret;
}

RP_LIBC_FUNC(int, mtxZuunlock, mtx_t *mutex)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_REQUEST(RP_USERREQ_LOCK_RELEASE_PRE, mutex, 0);
    RP_OWN_CALL(CALL_FN_W_W(ret, fn, mutex));
    return ret;
}

/* ---- condition variables ---------------------------------------------- */

/* As pthread_cond_wait: the mutex is released and reacquired inside, and a
 * wakeup is ordered after the signal or broadcast that caused it. */
RP_LIBC_FUNC(int, cndZuwait, cnd_t *cond, mtx_t *mutex)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_REQUEST(RP_USERREQ_LOCK_RELEASE_PRE, mutex, 0);
    RP_OWN_CALL(CALL_FN_W_WW(ret, fn, cond, mutex));
    RP_REQUEST(RP_USERREQ_LOCK_ACQUIRED, mutex, 0);
    if (ret == thrd_success)
        RP_REQUEST(RP_USERREQ_SYNC_RECV, cond, 0);
    return ret;
}

RP_LIBC_FUNC(int, cndZutimedwait, cnd_t *cond, mtx_t *mutex,
             const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_REQUEST(RP_USERREQ_LOCK_RELEASE_PRE, mutex, 0);
    RP_OWN_CALL(CALL_FN_W_WWW(ret, fn, cond, mutex, abstime));
    RP_REQUEST(RP_USERREQ_LOCK_ACQUIRED, mutex, 0);
    if (ret == thrd_success)
        RP_REQUEST(RP_USERREQ_SYNC_RECV, cond, 0);
    return ret;
}

RP_LIBC_FUNC(int, cndZusignal, cnd_t *cond)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_REQUEST(RP_USERREQ_SYNC_SEND, cond, 0);
    RP_OWN_CALL(CALL_FN_W_W(ret, fn, cond));
    return ret;
}

RP_LIBC_FUNC(int, cndZubroadcast, cnd_t *cond)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_REQUEST(RP_USERREQ_SYNC_SEND, cond, 0);
    RP_OWN_CALL(CALL_FN_W_W(ret, fn, cond));
    return ret;
}

/* ---- call_once ------------------------------------------------------------ */

/* As pthread_once (rp_intercepts.c): the routine runs through a trampoline
 * that sends on the flag when it returns, before glibc releases the other
 * callers; every caller receives when call_once returns. */
static __thread void (*once_routine)(void) RP_TLS;
static __thread once_flag *once_flag_of RP_TLS;

static void once_trampoline(void)
{
    void (*routine)(void) = once_routine;
    once_flag *flag = once_flag_of;
    int depth = rp_preload_depth;

    /* The routine is the program's own code: its pthread calls count. */
    rp_preload_depth = 0;
    routine();
    rp_preload_depth = depth;
    RP_REQUEST(RP_USERREQ_SYNC_SEND, flag, 0);
}

RP_LIBC_FUNC(void, callZuonce, once_flag *flag, void (*routine)(void))
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    once_routine = routine;
    once_flag_of = flag;
    RP_OWN_CALL(CALL_FN_v_WW(fn, flag, once_trampoline));
    RP_REQUEST(RP_USERREQ_SYNC_RECV, flag, 0);
}
