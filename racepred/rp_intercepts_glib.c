/* rp_intercepts_glib.c — the preload's wrappers of GLib's mutex and
 * condition variable (GMutex, GCond).
 *
 * On Linux GLib builds both on futexes and atomics, not on pthreads: its
 * g_mutex_lock is a compare-and-swap on the mutex's word, g_mutex_unlock
 * an exchange, g_cond_signal an atomic increment.  Seen as code, those
 * read-modify-writes make each word a synchronisation variable
 * (rp_atomics.h), which orders every critical section after the one
 * before it, as a happens-before edge: the predictive detectors could
 * never run a GMutex's sections in another order (a pthread version of
 * tests/programs/glib_hidden_race is reported with a witness, the GLib one
 * was silent), and reports said "Locks held: none" inside them.  So each
 * wrapper reports the operation as its pthread counterpart in
 * rp_intercepts.c does, at the same moment (see the table there), and runs
 * GLib's own code unseen (RP_UNSEEN_CALL: its loads, stores and atomics on
 * the lock's words) with the wrappers it reaches silent
 * (g_cond_wait unlocks and relocks through g_mutex_unlock and
 * g_mutex_lock).
 *
 * GRecMutex, GRWLock and GPrivate are built on pthread objects, which the
 * pthread wrappers see (the lock is then the pthread object GLib
 * allocates behind them); GOnce and GLib's atomic reference counts are
 * atomics, which rp_atomics.h takes as synchronisation.  GThread is
 * pthread_create and pthread_join.
 *
 * GLib's headers are not needed: the wrappers take the objects as
 * pointers, gboolean as int and gint64 as long long.
 */
#include "rp_preload.h"

#define RP_GLIB_FUNC(ret_ty, f, args...)                                     \
    ret_ty I_WRAP_SONAME_FNNAME_ZU(libglibZh2Zd0ZdsoZa, f)(args);            \
    ret_ty I_WRAP_SONAME_FNNAME_ZU(libglibZh2Zd0ZdsoZa, f)(args)

/* ---- GMutex ------------------------------------------------------------- */

RP_LOCKING_VOID_FUNC(RP_GLIB_FUNC, g_mutex_lock)
RP_TRYLOCKING_FUNC(RP_GLIB_FUNC, g_mutex_trylock)
RP_UNLOCKING_VOID_FUNC(RP_GLIB_FUNC, g_mutex_unlock)
RP_RENEWING_VOID_FUNC(RP_GLIB_FUNC, g_mutex_init)
RP_RENEWING_VOID_FUNC(RP_GLIB_FUNC, g_mutex_clear)
RP_RENEWING_VOID_FUNC(RP_GLIB_FUNC, g_cond_init)
RP_RENEWING_VOID_FUNC(RP_GLIB_FUNC, g_cond_clear)

/* ---- GCond -------------------------------------------------------------- */

/* As pthread_cond_wait: the mutex is released before the real call and
 * reacquired after it, whatever the outcome; a wakeup is ordered after
 * the signals and broadcasts on the condition variable. */
RP_GLIB_FUNC(void, g_cond_wait, void *cond, void *mutex)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(cond);
    RP_PTH_REQUEST(RP_USERREQ_LOCK_RELEASE_PRE, mutex, 0);
    RP_UNSEEN_CALL(CALL_FN_v_WW(fn, cond, mutex));
    RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, mutex, 0);
    RP_PTH_REQUEST(RP_USERREQ_SYNC_RECV, cond, 0);
}

/* FALSE: the end time passed first, nothing was received. */
RP_GLIB_FUNC(int, g_cond_wait_until, void *cond, void *mutex, long long end_time)
{
    OrigFn fn;
    int woken;

    VALGRIND_GET_ORIG_FN(fn);
    RP_USES(cond);
    RP_PTH_REQUEST(RP_USERREQ_LOCK_RELEASE_PRE, mutex, 0);
    RP_UNSEEN_CALL(CALL_FN_W_WWW(woken, fn, cond, mutex, end_time));
    RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, mutex, 0);
    if (woken)
        RP_PTH_REQUEST(RP_USERREQ_SYNC_RECV, cond, 0);
    return woken;
}

/* The send before the real call, the use after it (rp_intercepts.c). */
#define RP_GLIB_SIGNALLING_FUNC(f)                                           \
    RP_GLIB_FUNC(void, f, void *cond)                                        \
    {                                                                        \
        OrigFn fn;                                                           \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_PTH_REQUEST(RP_USERREQ_SYNC_SEND, cond, 0);                       \
        RP_UNSEEN_CALL(CALL_FN_v_W(fn, cond));                               \
        RP_USES(cond);                                                       \
    }

RP_GLIB_SIGNALLING_FUNC(g_cond_signal)
RP_GLIB_SIGNALLING_FUNC(g_cond_broadcast)
