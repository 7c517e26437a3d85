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
 * Its tasks yield as libgomp's do, and their creators wait (below).  Not
 * wrapped: how libomp hands out a dynamic schedule's chunks
 * (__kmpc_dispatch_*).  Sections need nothing: clang makes them a loop
 * over the sections with a static schedule, which gives each thread of
 * the team its own.
 */
#include <sched.h>

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

/* ---- tasks ----------------------------------------------------------------
 *
 * Tasks yield as they start, as libgomp's do, and their creators wait for
 * another thread to take them (rp_intercepts_omp.c, "tasks", says why and
 * when).  Before, the creator went on and ran the task itself at the
 * taskwait: tests/programs/racy_omp_task_parent (a task's write, its
 * parent's read before the taskwait) was silent in its clang build in 6
 * runs of 6, and in 8 of 8 beside three CPU hogs; now reported in all.
 *
 * clang allocates a task with __kmpc_omp_task_alloc, giving the function
 * that runs its body (the task entry), which libomp stores in the task
 * and calls when the task runs (an if(0) task's entry the program calls
 * itself).  The wrapper gives libomp a trampoline instead, which calls
 * the entry between rp_omp_task_begins and rp_omp_task_ends.  The task's
 * own bytes are the compiler's (its private copies follow libomp's
 * header), so the entry cannot travel in the task: there is a trampoline
 * per entry, from a fixed set, and a table says which entry each calls.
 * A program has one entry per task construct; past RP_KMP_ENTRIES of
 * them, tasks keep their own entry and do not yield as they start. */
typedef int (*rp_kmp_entry)(int gtid, void *task);

/* Switches to other threads a task's creator waits for at most. */
#define RP_KMP_TASK_CREATED_SWITCHES 4

#define RP_KMP_ENTRIES 64

/* entries[i] is what trampoline i calls; set once, under entries_lock. */
static rp_kmp_entry entries[RP_KMP_ENTRIES];
static unsigned n_entries;
static int entries_lock;

#define RP_KMP_TRAMPOLINE(i, j)                                              \
    static int trampoline_##i##_##j(int gtid, void *task)                    \
    {                                                                        \
        int result;                                                          \
                                                                             \
        rp_omp_task_begins();                                                \
        result = __atomic_load_n(&entries[i * 8 + j], __ATOMIC_ACQUIRE)(gtid, task); \
        rp_omp_task_ends();                                                  \
        return result;                                                       \
    }
#define RP_KMP_TRAMPOLINES8(i)                                               \
    RP_KMP_TRAMPOLINE(i, 0) RP_KMP_TRAMPOLINE(i, 1) RP_KMP_TRAMPOLINE(i, 2)  \
    RP_KMP_TRAMPOLINE(i, 3) RP_KMP_TRAMPOLINE(i, 4) RP_KMP_TRAMPOLINE(i, 5)  \
    RP_KMP_TRAMPOLINE(i, 6) RP_KMP_TRAMPOLINE(i, 7)
RP_KMP_TRAMPOLINES8(0)
RP_KMP_TRAMPOLINES8(1)
RP_KMP_TRAMPOLINES8(2)
RP_KMP_TRAMPOLINES8(3)
RP_KMP_TRAMPOLINES8(4)
RP_KMP_TRAMPOLINES8(5)
RP_KMP_TRAMPOLINES8(6)
RP_KMP_TRAMPOLINES8(7)

#define RP_KMP_NAMES8(i)                                                     \
    trampoline_##i##_0, trampoline_##i##_1, trampoline_##i##_2, trampoline_##i##_3, \
    trampoline_##i##_4, trampoline_##i##_5, trampoline_##i##_6, trampoline_##i##_7
static const rp_kmp_entry trampolines[RP_KMP_ENTRIES] = {
    RP_KMP_NAMES8(0), RP_KMP_NAMES8(1), RP_KMP_NAMES8(2), RP_KMP_NAMES8(3),
    RP_KMP_NAMES8(4), RP_KMP_NAMES8(5), RP_KMP_NAMES8(6), RP_KMP_NAMES8(7),
};

/* The index of entry among the table's first n, or n. */
static unsigned entry_index(rp_kmp_entry entry, unsigned n)
{
    unsigned i = 0;

    while (i < n && __atomic_load_n(&entries[i], __ATOMIC_ACQUIRE) != entry)
        i++;
    return i;
}

/* The trampoline that runs entry, added to the table if new (the entry
 * itself when the table is full). */
static rp_kmp_entry trampoline_of(rp_kmp_entry entry)
{
    unsigned n = __atomic_load_n(&n_entries, __ATOMIC_ACQUIRE);
    unsigned i = entry_index(entry, n);

    if (i == n) {
        while (__atomic_exchange_n(&entries_lock, 1, __ATOMIC_ACQUIRE) != 0)
            sched_yield();
        n = n_entries;
        i = entry_index(entry, n);
        if (i == n && n < RP_KMP_ENTRIES) {
            __atomic_store_n(&entries[n], entry, __ATOMIC_RELEASE);
            __atomic_store_n(&n_entries, n + 1, __ATOMIC_RELEASE);
        }
        __atomic_store_n(&entries_lock, 0, __ATOMIC_RELEASE);
    }
    return i < RP_KMP_ENTRIES ? trampolines[i] : entry;
}

RP_KMP_FUNC(void *, __kmpc_omp_task_alloc, void *loc, int gtid, int flags,
            size_t sizeof_task, size_t sizeof_shareds, rp_kmp_entry entry)
{
    OrigFn fn;
    void *task;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_6W(task, fn, loc, gtid, flags, sizeof_task, sizeof_shareds,
                 trampoline_of(entry));
    return task;
}

RP_KMP_FUNC(int, __kmpc_omp_task, void *loc, int gtid, void *task)
{
    OrigFn fn;
    int result;
    unsigned long started = rp_omp_tasks_started();

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WWW(result, fn, loc, gtid, task);
    rp_omp_task_created(started, RP_KMP_TASK_CREATED_SWITCHES);
    return result;
}

/* A task with dependences (depend clauses). */
RP_KMP_FUNC(int, __kmpc_omp_task_with_deps, void *loc, int gtid, void *task, int ndeps,
            void *deps, int ndeps_noalias, void *noalias_deps)
{
    OrigFn fn;
    int result;
    unsigned long started = rp_omp_tasks_started();

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_7W(result, fn, loc, gtid, task, ndeps, deps, ndeps_noalias, noalias_deps);
    rp_omp_task_created(started, RP_KMP_TASK_CREATED_SWITCHES);
    return result;
}
