/* rp_intercepts_kmp.c — the preload's wrappers of LLVM's OpenMP runtime
 * (libomp, what clang's -fopenmp links): its locks.
 *
 * Like libgomp, libomp is a synchronising object (--sync-objects, whose
 * default names both): its loads and stores are acquires and releases.
 * Its locks are reported as locks, as libgomp's are (rp_intercepts_omp.c
 * says why), with libomp's own code inside them unseen: `omp critical`
 * (__kmpc_critical, whose lock is the variable clang makes for the
 * section's name, `.gomp_critical_user_NAME.var`), and the omp_*_lock
 * functions.  The atomics libomp performs under a lock of its own
 * (__kmpc_atomic_float10_add and the like) update the program's variable
 * inside libomp, where it is synchronisation already.
 *
 * Not wrapped: how libomp hands out sections and tasks (__kmpc_dispatch_*,
 * __kmpc_omp_task), so under libomp one thread may run both sections or
 * both tasks that race and program order hides the race (libgomp's
 * wrappers yield there: rp_intercepts_omp.c).
 */
#include "rp_preload.h"

#define RP_KMP_FUNC(ret_ty, f, args...)                                      \
    ret_ty I_WRAP_SONAME_FNNAME_ZU(libompZdsoZa, f)(args);                   \
    ret_ty I_WRAP_SONAME_FNNAME_ZU(libompZdsoZa, f)(args)

/* A critical section's functions take the source location, the thread's
 * number, then the lock. */
RP_KMP_FUNC(void, __kmpc_critical, void *loc, int gtid, void *crit)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ACQUIRING_CALL(crit, CALL_FN_v_WWW(fn, loc, gtid, crit));
}

RP_KMP_FUNC(void, __kmpc_critical_with_hint, void *loc, int gtid, void *crit, unsigned hint)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ACQUIRING_CALL(crit, CALL_FN_v_WWWW(fn, loc, gtid, crit, hint));
}

RP_KMP_FUNC(void, __kmpc_end_critical, void *loc, int gtid, void *crit)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_RELEASING_CALL(crit, CALL_FN_v_WWW(fn, loc, gtid, crit));
}

RP_LOCKING_VOID_FUNC(RP_KMP_FUNC, omp_set_lock)
RP_LOCKING_VOID_FUNC(RP_KMP_FUNC, omp_set_nest_lock)
RP_TRYLOCKING_FUNC(RP_KMP_FUNC, omp_test_lock)
RP_TRYLOCKING_FUNC(RP_KMP_FUNC, omp_test_nest_lock)
RP_UNLOCKING_VOID_FUNC(RP_KMP_FUNC, omp_unset_lock)
RP_UNLOCKING_VOID_FUNC(RP_KMP_FUNC, omp_unset_nest_lock)
RP_RENEWING_VOID_FUNC(RP_KMP_FUNC, omp_init_lock)
RP_RENEWING_VOID_FUNC(RP_KMP_FUNC, omp_init_nest_lock)
RP_RENEWING_VOID_FUNC(RP_KMP_FUNC, omp_destroy_lock)
RP_RENEWING_VOID_FUNC(RP_KMP_FUNC, omp_destroy_nest_lock)
