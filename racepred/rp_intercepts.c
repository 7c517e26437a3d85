/* rp_intercepts.c — the preload: wrappers around the pthread functions
 * whose effect on ordering racepred must know.  The allocator's wrappers
 * are in rp_intercepts_heap.c, C11 <threads.h> in rp_intercepts_c11.c.
 *
 * Valgrind's core LD_PRELOADs vgpreload_racepred-<platform>.so into the
 * client and redirects every call of a wrapped function to the wrapper
 * defined here (the symbol names encode "soname:function", see
 * rp_preload.h).  A wrapper calls the real function through CALL_FN_* and
 * tells the tool what happened through a client request (rp_clientreq.h).
 * This code runs on the simulated CPU, as client code.  Functions with
 * several symbol versions in glibc (pthread_create, pthread_cond_*, sem_*)
 * are wrapped as name@* so that every version is caught.
 *
 * When each request is sent matters:
 *   lock                  after the real call, and only if it succeeded
 *   (mutex, rwlock,       (a failed trylock/timedlock acquired nothing);
 *   every variant)
 *   unlock                before the real call: once the lock is free
 *                         another thread may take it, and its acquire must
 *                         come after this release in the event stream;
 *   cond wait             the mutex is released before the real call and
 *                         reacquired after it, as glibc does inside;
 *   sem_post, barrier     the send before the real call, which may let
 *                         another thread through at once;
 *   sem_*wait, barrier    the receive after the real call, when it
 *                         succeeded;
 *   pthread_create        after the real call: only then is the new
 *                         pthread_t known;
 *   pthread_join          before the real call (see rp_threads.c);
 *   pthread_once          see its wrapper.
 *
 * A synchronising object's own bytes are memory like any other (as under
 * ThreadSanitizer): using it (lock, unlock, wait, post) reads its first
 * byte, creating or destroying it (init, destroy) writes it, so a thread
 * still using an object that another creates, destroys or frees without
 * being ordered with it races with that, and the report names both calls.
 * The read comes before the real call, ordered by the call's own release
 * (POSIX lets a thread destroy a mutex another just unlocked, or a
 * semaphore another just posted: those stay silent), except for a
 * condition variable's signal and broadcast, whose read comes after: the
 * signaller may still be inside the call when the woken waiter destroys
 * the variable, which glibc's contract forbids.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stddef.h>
#include <stdint.h>

#include "rp_preload.h"

__thread int rp_preload_depth RP_TLS;

/* Tells the tool the preload is in place (without it every lock and join
 * would go unseen, and the tool warns at exit if this never arrived),
 * where its announcing nops are (rp_preload.h), and the pthread_t of the
 * thread that runs constructors, the root thread, which another thread
 * may join once it has called pthread_exit. */
__attribute__((constructor)) static void rp_preload_hello(void)
{
    RP_REQUEST3(RP_USERREQ_PRELOAD_HELLO, __start_rp_announce_sites, __stop_rp_announce_sites,
                pthread_self());
}

/* ---- threads ------------------------------------------------------------ */

/* The fork edge itself comes from Valgrind's clone hook; the wrapper only
 * ties the new pthread_t to the thread the tool saw created. */
RP_WORKER int create_wrk(pthread_t *thread, const pthread_attr_t *attr,
                         void *(*start)(void *), void *arg)
{
    OrigFn fn;
    int ret, state = PTHREAD_CREATE_JOINABLE;
    void *stack = NULL;
    size_t stack_size;

    VALGRIND_GET_ORIG_FN(fn);
    /* glibc's thrd_create passes (void *)-1 (ATTR_C11_THREAD), no attribute. */
    if (attr != NULL && attr != (const pthread_attr_t *)~(uintptr_t)0) {
        pthread_attr_getdetachstate(attr, &state);
        if (pthread_attr_getstack(attr, &stack, &stack_size) != 0)
            stack = NULL;
    }
    /* What the new thread gets from its creator: the argument, and the
     * stack if the attribute names one (an attribute without one names a
     * garbage address, which is no one's). */
    RP_PTH_REQUEST(RP_USERREQ_THREAD_HANDS, arg, stack);
    CALL_FN_W_WWWW(ret, fn, thread, attr, start, arg);
    RP_PTH_REQUEST(RP_USERREQ_THREAD_HANDED, 0, 0);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_THREAD_CREATED, *thread, state == PTHREAD_CREATE_DETACHED);
    return ret;
}

/* pthread_create@*: both symbol versions in glibc 2.34+ are the same code. */
RP_PTH_FUNC(int, pthreadZucreateZAZa, pthread_t *thread,
            const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    return create_wrk(thread, attr, start, arg);
}

/* Before the real call: once it returns, an exited thread's pthread_t may
 * name a new one.  A thread detaching itself says so: it may run before
 * its creator's wrapper has told the tool its pthread_t. */
RP_PTH_FUNC(int, pthreadZudetach, pthread_t thread)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_PTH_REQUEST(RP_USERREQ_THREAD_DETACH, thread, pthread_equal(thread, pthread_self()));
    CALL_FN_W_W(ret, fn, thread);
    return ret;
}

RP_PTH_FUNC(int, pthreadZujoin, pthread_t thread, void **result)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_PTH_REQUEST(RP_USERREQ_JOIN_PRE, thread, 0);
    CALL_FN_W_WW(ret, fn, thread, result);
    return ret;
}

/* The non-blocking and timed joins may fail (the child still runs); the
 * edge goes in only when they succeed, after the real call. */
static int join_done(int ret, pthread_t thread)
{
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_JOIN_DONE, thread, 0);
    return ret;
}

RP_PTH_FUNC(int, pthreadZutryjoinZunp, pthread_t thread, void **result)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WW(ret, fn, thread, result);
    return join_done(ret, thread);
}

RP_PTH_FUNC(int, pthreadZutimedjoinZunp, pthread_t thread, void **result,
            const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WWW(ret, fn, thread, result, abstime);
    return join_done(ret, thread);
}

RP_PTH_FUNC(int, pthreadZuclockjoinZunp, pthread_t thread, void **result,
            clockid_t clock, const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WWWW(ret, fn, thread, result, clock, abstime);
    return join_done(ret, thread);
}

/* ---- mutexes ------------------------------------------------------------ */

RP_WORKER int lock_wrk(OrigFn fn, pthread_mutex_t *mutex)
{
    int ret;

    CALL_FN_W_W(ret, fn, mutex);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, mutex, 0);
    return ret;
}

RP_PTH_FUNC(int, pthreadZumutexZulock, pthread_mutex_t *mutex)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(mutex);
    return lock_wrk(fn, mutex);
}

RP_PTH_FUNC(int, pthreadZumutexZutrylock, pthread_mutex_t *mutex)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(mutex);
    return lock_wrk(fn, mutex);
}

RP_PTH_FUNC(int, pthreadZumutexZutimedlock, pthread_mutex_t *mutex,
            const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(mutex);
    CALL_FN_W_WW(ret, fn, mutex, abstime);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, mutex, 0);
    return ret;
}

RP_PTH_FUNC(int, pthreadZumutexZuclocklock, pthread_mutex_t *mutex,
            clockid_t clock, const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(mutex);
    CALL_FN_W_WWW(ret, fn, mutex, clock, abstime);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, mutex, 0);
    return ret;
}

RP_PTH_FUNC(int, pthreadZumutexZuunlock, pthread_mutex_t *mutex)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(mutex);
    RP_PTH_REQUEST(RP_USERREQ_LOCK_RELEASE_PRE, mutex, 0);
    CALL_FN_W_W(ret, fn, mutex);
    return ret;
}

/* ---- creating and destroying objects ----------------------------------- */

#define RENEWING_FUNC(name, type, attr_type)                                 \
    RP_PTH_FUNC(int, name, type *obj, attr_type attr)                        \
    {                                                                        \
        OrigFn fn;                                                           \
        int ret;                                                             \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_RENEWS(obj);                                                      \
        CALL_FN_W_WW(ret, fn, obj, attr);                                    \
        return ret;                                                          \
    }

#define DESTROYING_FUNC(name, type)                                          \
    RP_PTH_FUNC(int, name, type *obj)                                        \
    {                                                                        \
        OrigFn fn;                                                           \
        int ret;                                                             \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_RENEWS(obj);                                                      \
        CALL_FN_W_W(ret, fn, obj);                                           \
        return ret;                                                          \
    }

RENEWING_FUNC(pthreadZumutexZuinit, pthread_mutex_t, const pthread_mutexattr_t *)
RENEWING_FUNC(pthreadZurwlockZuinit, pthread_rwlock_t, const pthread_rwlockattr_t *)
RENEWING_FUNC(pthreadZucondZuinitZAZa, pthread_cond_t, const pthread_condattr_t *)
RENEWING_FUNC(pthreadZuspinZuinit, pthread_spinlock_t, int)
DESTROYING_FUNC(pthreadZumutexZudestroy, pthread_mutex_t)
DESTROYING_FUNC(pthreadZurwlockZudestroy, pthread_rwlock_t)
DESTROYING_FUNC(pthreadZucondZudestroyZAZa, pthread_cond_t)
DESTROYING_FUNC(pthreadZuspinZudestroy, pthread_spinlock_t)
DESTROYING_FUNC(semZudestroyZAZa, sem_t)

RP_PTH_FUNC(int, semZuinitZAZa, sem_t *sem, int shared, unsigned value)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_RENEWS(sem);
    CALL_FN_W_WWW(ret, fn, sem, shared, value);
    return ret;
}

/* ---- reader-writer locks ----------------------------------------------- */

RP_WORKER int rwlock_wrk(OrigFn fn, pthread_rwlock_t *rwlock, int shared)
{
    int ret;

    CALL_FN_W_W(ret, fn, rwlock);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, rwlock, shared);
    return ret;
}

RP_PTH_FUNC(int, pthreadZurwlockZurdlock, pthread_rwlock_t *rwlock)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(rwlock);
    return rwlock_wrk(fn, rwlock, 1);
}

RP_PTH_FUNC(int, pthreadZurwlockZutryrdlock, pthread_rwlock_t *rwlock)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(rwlock);
    return rwlock_wrk(fn, rwlock, 1);
}

RP_PTH_FUNC(int, pthreadZurwlockZuwrlock, pthread_rwlock_t *rwlock)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(rwlock);
    return rwlock_wrk(fn, rwlock, 0);
}

RP_PTH_FUNC(int, pthreadZurwlockZutrywrlock, pthread_rwlock_t *rwlock)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(rwlock);
    return rwlock_wrk(fn, rwlock, 0);
}

/* The timed variants: the same, once the real call succeeded. */
static int rwlock_timed_done(int ret, pthread_rwlock_t *rwlock, int shared)
{
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, rwlock, shared);
    return ret;
}

RP_PTH_FUNC(int, pthreadZurwlockZutimedrdlock, pthread_rwlock_t *rwlock,
            const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(rwlock);
    CALL_FN_W_WW(ret, fn, rwlock, abstime);
    return rwlock_timed_done(ret, rwlock, 1);
}

RP_PTH_FUNC(int, pthreadZurwlockZutimedwrlock, pthread_rwlock_t *rwlock,
            const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(rwlock);
    CALL_FN_W_WW(ret, fn, rwlock, abstime);
    return rwlock_timed_done(ret, rwlock, 0);
}

RP_PTH_FUNC(int, pthreadZurwlockZuclockrdlock, pthread_rwlock_t *rwlock,
            clockid_t clock, const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(rwlock);
    CALL_FN_W_WWW(ret, fn, rwlock, clock, abstime);
    return rwlock_timed_done(ret, rwlock, 1);
}

RP_PTH_FUNC(int, pthreadZurwlockZuclockwrlock, pthread_rwlock_t *rwlock,
            clockid_t clock, const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(rwlock);
    CALL_FN_W_WWW(ret, fn, rwlock, clock, abstime);
    return rwlock_timed_done(ret, rwlock, 0);
}

RP_PTH_FUNC(int, pthreadZurwlockZuunlock, pthread_rwlock_t *rwlock)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(rwlock);
    RP_PTH_REQUEST(RP_USERREQ_LOCK_RELEASE_PRE, rwlock, 0);
    CALL_FN_W_W(ret, fn, rwlock);
    return ret;
}

/* ---- spin locks ---------------------------------------------------------- */

RP_PTH_FUNC(int, pthreadZuspinZulock, pthread_spinlock_t *lock)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(lock);
    CALL_FN_W_W(ret, fn, lock);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, lock, 0);
    return ret;
}

RP_PTH_FUNC(int, pthreadZuspinZutrylock, pthread_spinlock_t *lock)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(lock);
    CALL_FN_W_W(ret, fn, lock);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, lock, 0);
    return ret;
}

RP_PTH_FUNC(int, pthreadZuspinZuunlock, pthread_spinlock_t *lock)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(lock);
    RP_PTH_REQUEST(RP_USERREQ_LOCK_RELEASE_PRE, lock, 0);
    CALL_FN_W_W(ret, fn, lock);
    return ret;
}

/* ---- pthread_once ---------------------------------------------------------- */

/* Every caller of pthread_once returns after the init routine has run, in
 * whichever thread ran it.  The edge must leave the initialising thread
 * right after the routine, before glibc wakes the others, so the routine
 * is run through a trampoline that sends on the once control when it
 * finishes; every caller receives after the real call.  glibc calls the
 * routine without an argument, so the trampoline finds it in thread-local
 * variables set by the same thread just before. */
static __thread void (*once_routine)(void) RP_TLS;
static __thread pthread_once_t *once_control RP_TLS;

static void once_trampoline(void)
{
    void (*routine)(void) = once_routine;
    pthread_once_t *control = once_control;

    routine();
    RP_PTH_REQUEST(RP_USERREQ_SYNC_SEND, control, 0);
}

RP_PTH_FUNC(int, pthreadZuonce, pthread_once_t *control, void (*routine)(void))
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    once_routine = routine;
    once_control = control;
    CALL_FN_W_WW(ret, fn, control, once_trampoline);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_SYNC_RECV, control, 0);
    return ret;
}

/* ---- condition variables ---------------------------------------------- */

/* glibc unlocks and relocks the mutex inside pthread_cond_wait without
 * going through pthread_mutex_unlock/lock, so the wrapper reports both.
 * A wakeup is ordered after the signal or broadcast that caused it; the
 * condition variable is that edge's sync object.  The mutex is reacquired
 * whatever the outcome (a timeout too). */
RP_PTH_FUNC(int, pthreadZucondZuwaitZAZa, pthread_cond_t *cond,
            pthread_mutex_t *mutex)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(cond);
    RP_PTH_REQUEST(RP_USERREQ_LOCK_RELEASE_PRE, mutex, 0);
    CALL_FN_W_WW(ret, fn, cond, mutex);
    RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, mutex, 0);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_SYNC_RECV, cond, 0);
    return ret;
}

RP_PTH_FUNC(int, pthreadZucondZutimedwaitZAZa, pthread_cond_t *cond,
            pthread_mutex_t *mutex, const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(cond);
    RP_PTH_REQUEST(RP_USERREQ_LOCK_RELEASE_PRE, mutex, 0);
    CALL_FN_W_WWW(ret, fn, cond, mutex, abstime);
    RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, mutex, 0);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_SYNC_RECV, cond, 0);
    return ret;
}

RP_PTH_FUNC(int, pthreadZucondZuclockwait, pthread_cond_t *cond,
            pthread_mutex_t *mutex, clockid_t clock, const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(cond);
    RP_PTH_REQUEST(RP_USERREQ_LOCK_RELEASE_PRE, mutex, 0);
    CALL_FN_W_WWWW(ret, fn, cond, mutex, clock, abstime);
    RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, mutex, 0);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_SYNC_RECV, cond, 0);
    return ret;
}

RP_PTH_FUNC(int, pthreadZucondZusignalZAZa, pthread_cond_t *cond)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_PTH_REQUEST(RP_USERREQ_SYNC_SEND, cond, 0);
    CALL_FN_W_W(ret, fn, cond);
    RP_USES(cond);
    return ret;
}

RP_PTH_FUNC(int, pthreadZucondZubroadcastZAZa, pthread_cond_t *cond)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_PTH_REQUEST(RP_USERREQ_SYNC_SEND, cond, 0);
    CALL_FN_W_W(ret, fn, cond);
    RP_USES(cond);
    return ret;
}

/* ---- semaphores and barriers ------------------------------------------- */

/* A successful wait is ordered after every earlier post of the semaphore
 * (more than the one it consumed: racepred cannot tell which one that was,
 * so it may miss a race, never invent one). */
RP_PTH_FUNC(int, semZupostZAZa, sem_t *sem)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(sem);
    RP_PTH_REQUEST(RP_USERREQ_SYNC_SEND, sem, 0);
    CALL_FN_W_W(ret, fn, sem);
    return ret;
}

RP_WORKER int sem_wait_wrk(OrigFn fn, sem_t *sem)
{
    int ret;

    CALL_FN_W_W(ret, fn, sem);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_SYNC_RECV, sem, 0);
    return ret;
}

RP_PTH_FUNC(int, semZuwaitZAZa, sem_t *sem)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(sem);
    return sem_wait_wrk(fn, sem);
}

RP_PTH_FUNC(int, semZutrywaitZAZa, sem_t *sem)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(sem);
    return sem_wait_wrk(fn, sem);
}

RP_PTH_FUNC(int, semZutimedwaitZAZa, sem_t *sem, const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(sem);
    CALL_FN_W_WW(ret, fn, sem, abstime);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_SYNC_RECV, sem, 0);
    return ret;
}

RP_PTH_FUNC(int, semZuclockwait, sem_t *sem, clockid_t clock,
            const struct timespec *abstime)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(sem);
    CALL_FN_W_WWW(ret, fn, sem, clock, abstime);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_SYNC_RECV, sem, 0);
    return ret;
}

/* A barrier's rounds are told apart by the tool (rp_barriers.h), which
 * must know its count: a thread sends on its round's object on arrival
 * and receives on it on departure. */
RP_PTH_FUNC(int, pthreadZubarrierZuinit, pthread_barrier_t *barrier,
            const pthread_barrierattr_t *attr, unsigned count)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_RENEWS(barrier);
    CALL_FN_W_WWW(ret, fn, barrier, attr, count);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_BARRIER_INIT, barrier, count);
    return ret;
}

RP_PTH_FUNC(int, pthreadZubarrierZuwait, pthread_barrier_t *barrier)
{
    OrigFn fn;
    int ret;
    unsigned long round;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(barrier);
    round = RP_REQUEST_EXPR(RP_USERREQ_BARRIER_ARRIVE, barrier, 0);
    CALL_FN_W_W(ret, fn, barrier);
    RP_PTH_REQUEST(RP_USERREQ_BARRIER_DEPART, barrier, round);
    return ret;
}

RP_PTH_FUNC(int, pthreadZubarrierZudestroy, pthread_barrier_t *barrier)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    RP_RENEWS(barrier);
    CALL_FN_W_W(ret, fn, barrier);
    if (ret == 0)
        RP_PTH_REQUEST(RP_USERREQ_BARRIER_DESTROY, barrier, 0);
    return ret;
}
