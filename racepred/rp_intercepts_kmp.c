/* rp_intercepts_kmp.c — the preload's wrappers of LLVM's OpenMP runtime
 * (libomp, what clang's -fopenmp links): its locks and tasks.
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
 * Its tasks run as threads of their own, told through OMPT, or yield as
 * libgomp's do when they run as their runners' events (below).  Not
 * wrapped: how libomp hands out a dynamic schedule's chunks
 * (__kmpc_dispatch_*).  Sections need nothing: clang makes them a loop
 * over the sections with a static schedule, which gives each thread of
 * the team its own.
 */
#include <sched.h>
#include <stdlib.h>

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
 * Tasks of their own threads (rp_tasks.h), as libgomp's are, told to the
 * tool through OMPT, the OpenMP tools interface libomp offers (below),
 * and through the trampolines; tasks on their runners' threads yield as
 * they start, as libgomp's do, and their creators wait for another
 * thread to take them (rp_intercepts_omp.c, "tasks", says why and when).
 * Before, the creator went on and ran the task itself at the taskwait:
 * tests/programs/racy_omp_task_parent (a task's write, its parent's read
 * before the taskwait) was silent in its clang build in 6 runs of 6, and
 * in 8 of 8 beside three CPU hogs; now reported in all.
 *
 * clang allocates a task with __kmpc_omp_task_alloc, giving the function
 * that runs its body (the task entry), which libomp stores in the task
 * and calls when the task runs (an if(0) task's entry the program calls
 * itself).  The wrapper gives libomp a trampoline instead, which calls
 * the entry as the task's own thread, or between rp_omp_task_begins and
 * rp_omp_task_ends.  The task's own bytes are the compiler's (its private
 * copies follow libomp's header), so the entry cannot travel in the task:
 * there is a trampoline per entry, from a fixed set, and a table says
 * which entry each calls.  A program has one entry per task construct;
 * past RP_KMP_ENTRIES of them, tasks keep their own entry, run on their
 * runners' threads and do not yield as they start. */
typedef int (*rp_kmp_entry)(int gtid, void *task);

/* Switches to other threads a task's creator waits for at most. */
#define RP_KMP_TASK_CREATED_SWITCHES 4

#define RP_KMP_ENTRIES 64

/* entries[i] is what trampoline i calls; set once, under entries_lock. */
static rp_kmp_entry entries[RP_KMP_ENTRIES];
static unsigned n_entries;
static int entries_lock;

static int run_entry(rp_kmp_entry entry, int gtid, void *task);

#define RP_KMP_TRAMPOLINE(i, j)                                              \
    static int trampoline_##i##_##j(int gtid, void *task)                    \
    {                                                                        \
        return run_entry(__atomic_load_n(&entries[i * 8 + j], __ATOMIC_ACQUIRE), gtid, task); \
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

/* ---- tasks of their own threads -------------------------------------------
 *
 * libomp calls an OMPT tool back when a task is created (after the
 * compiler has written its private copies), with its dependences, when a
 * thread switches from one task to another, and at the end of each
 * taskwait, taskgroup and barrier, the implicit ones included.  The
 * preload is that tool (ompt_start_tool, below), unless the program names
 * its own (OMP_TOOL_LIBRARIES) or turns tools off (OMP_TOOL=disabled):
 * then libomp's tasks run on their runners' threads, as before.
 *
 * A task created by __kmpc_omp_task or __kmpc_omp_task_with_deps, tied,
 * deferred, without detach, whose entry has a trampoline, may have a
 * thread of its own: TASK_CREATE with libomp's task as its key, and the
 * trampoline takes the task's identity by that key (TASK_BEGIN_KEY) and
 * gives it back at the end.  libomp reuses a task's memory for the next
 * without malloc, so the tool makes the task's bytes fresh at its end
 * (rp_tasks_end).  Other tasks with dependences (untied ones, whose parts
 * may run on different threads, undeferred ones, the chunks of a
 * taskloop, which libomp copies from the construct's task) get a record
 * on their runners' threads, whose begin and end the task switches tell,
 * so that their dependences order them against tasks of their own
 * threads.  The OMPT task data holds the handle: odd for a task of its
 * own thread, even for a record on the runner's, 0 for a task not
 * followed. */
typedef union {
    unsigned long value;
    void *ptr;
} rp_ompt_data;

typedef struct {
    rp_ompt_data variable;
    int type;
} rp_ompt_dependence;

typedef void (*rp_ompt_callback)(void);
typedef rp_ompt_callback (*rp_ompt_lookup)(const char *name);
typedef int (*rp_ompt_set_callback)(int event, rp_ompt_callback callback);

typedef struct {
    int (*initialize)(rp_ompt_lookup lookup, int initial_device, rp_ompt_data *tool_data);
    void (*finalize)(rp_ompt_data *tool_data);
    rp_ompt_data tool_data;
} rp_ompt_start_result;

/* The OpenMP specification's numbers (omp-tools.h). */
enum {
    OMPT_CALLBACK_TASK_CREATE = 5,
    OMPT_CALLBACK_TASK_SCHEDULE = 6,
    OMPT_CALLBACK_DEPENDENCES = 18,
    OMPT_CALLBACK_SYNC_REGION = 23,
    OMPT_SET_ALWAYS = 5,
    OMPT_TASK_EXPLICIT = 0x4,
    OMPT_TASK_UNDEFERRED = 0x08000000,
    OMPT_TASK_UNTIED = 0x10000000,
    OMPT_TASK_COMPLETE = 1,
    OMPT_TASK_CANCEL = 3,
    OMPT_DEPENDENCE_IN = 1,
    OMPT_DEPENDENCE_SOURCE = 5,
    OMPT_DEPENDENCE_SINK = 6,
    OMPT_SCOPE_END = 2,
    OMPT_SYNC_REGION_TASKWAIT = 5,
    OMPT_SYNC_REGION_REDUCTION = 7
};

/* __kmpc_omp_task_alloc's flags (libomp's kmp_tasking_flags_t). */
#define RP_KMP_TASK_TIED 0x1u
#define RP_KMP_TASK_PROXY 0x10u
#define RP_KMP_TASK_DETACHABLE 0x40u
#define RP_KMP_TASK_HIDDEN_HELPER 0x80u

/* The task this thread allocated last, until it is handed to libomp: its
 * bytes (the compiler's part and the shared pointers after it), whether
 * it may have a thread of its own, whether it has a detach clause. */
static __thread struct {
    void *task;
    unsigned long len;
    int followable, detachable;
} last_alloc RP_TLS;

/* The task this thread's __kmpc_omp_task* wrapper hands to libomp, until
 * the creation callback takes it; its handle, to the wrapper's return
 * (the task ran inside the call when its trampoline ends with it). */
static __thread void *submitting RP_TLS;
static __thread unsigned long submitted_handle RP_TLS;

static int run_entry(rp_kmp_entry entry, int gtid, void *task)
{
    unsigned long handle = 0;
    int result;

    if (__atomic_load_n(&rp_omp_task_threads_used, __ATOMIC_RELAXED))
        handle = RP_REQUEST_EXPR(RP_USERREQ_TASK_BEGIN_KEY, task, 0);
    if (handle == 0) {
        rp_omp_task_begins();
        result = entry(gtid, task);
        rp_omp_task_ends();
        return result;
    }
    rp_omp_task_begins_own();
    result = entry(gtid, task);
    RP_REQUEST(RP_USERREQ_TASK_END, handle, handle == submitted_handle);
    rp_omp_task_ends();
    return result;
}

RP_KMP_FUNC(void *, __kmpc_omp_task_alloc, void *loc, int gtid, int flags,
            size_t sizeof_task, size_t sizeof_shareds, rp_kmp_entry entry)
{
    OrigFn fn;
    void *task;
    rp_kmp_entry trampoline = trampoline_of(entry);
    unsigned odd = RP_KMP_TASK_PROXY | RP_KMP_TASK_DETACHABLE | RP_KMP_TASK_HIDDEN_HELPER;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_6W(task, fn, loc, gtid, flags, sizeof_task, sizeof_shareds, trampoline);
    /* libomp puts the shared pointers after the compiler's part, at a
     * pointer's alignment. */
    last_alloc.task = task;
    last_alloc.len = rp_round_up(sizeof_task, sizeof(void *)) + sizeof_shareds;
    last_alloc.followable = trampoline != entry && (flags & RP_KMP_TASK_TIED) != 0
                            && (flags & odd) == 0;
    last_alloc.detachable = (flags & RP_KMP_TASK_DETACHABLE) != 0;
    return task;
}

/* The creation callback, on the creator's thread. */
static void on_task_create(rp_ompt_data *parent, const void *parent_frame, rp_ompt_data *new_task,
                           int flags, int has_dependences, const void *return_address)
{
    void *task = submitting;
    int may_own, alloc_known = task != NULL && task == last_alloc.task;
    unsigned long handle;

    (void)parent;
    (void)parent_frame;
    (void)return_address;
    new_task->value = 0;
    if ((flags & OMPT_TASK_EXPLICIT) == 0)
        return;
    submitting = NULL;
    if (alloc_known)
        last_alloc.task = NULL;
    if (alloc_known && last_alloc.detachable) {
        RP_REQUEST(RP_USERREQ_TASK_UNFOLLOWED, 0, 0);
        __atomic_store_n(&rp_omp_task_threads_over, 1, __ATOMIC_RELAXED);
        return;
    }
    may_own = alloc_known && last_alloc.followable
              && (flags & (OMPT_TASK_UNDEFERRED | OMPT_TASK_UNTIED)) == 0
              && !__atomic_load_n(&rp_omp_task_threads_over, __ATOMIC_RELAXED);
    if (!may_own && !has_dependences)
        return;
    handle = RP_REQUEST3_EXPR(RP_USERREQ_TASK_CREATE,
                              (has_dependences ? RP_TASK_HAS_DEPENDENCES : 0)
                              | (may_own ? 0 : RP_TASK_ON_RUNNER),
                              may_own ? task : NULL, may_own ? last_alloc.len : 0);
    if (may_own && (handle & 1) == 0)
        __atomic_store_n(&rp_omp_task_threads_over, 1, __ATOMIC_RELAXED);
    if (handle & 1)
        __atomic_store_n(&rp_omp_task_threads_used, 1, __ATOMIC_RELAXED);
    new_task->value = handle;
    submitted_handle = handle;
}

/* A task's dependences, after its creation (and a `taskwait depend`'s,
 * given to the running task, whose record has begun: ignored). */
static void on_dependences(rp_ompt_data *task, const rp_ompt_dependence *deps, int n)
{
    int i;

    if (task->value == 0)
        return;
    for (i = 0; i < n; i++) {
        if (deps[i].type == OMPT_DEPENDENCE_SOURCE || deps[i].type == OMPT_DEPENDENCE_SINK)
            continue;
        RP_REQUEST3(RP_USERREQ_TASK_DEPEND, task->value, deps[i].variable.ptr,
                    deps[i].type != OMPT_DEPENDENCE_IN);
    }
}

/* A thread leaves `prior` (ended, or suspended) for `next`.  Only the
 * records on their runners' threads begin and end here; a task of its
 * own thread does in its trampoline, around its body and nothing of
 * libomp's. */
static void on_task_schedule(rp_ompt_data *prior, int status, rp_ompt_data *next)
{
    if (prior != NULL && prior->value != 0 && (prior->value & 1) == 0
        && (status == OMPT_TASK_COMPLETE || status == OMPT_TASK_CANCEL)) {
        RP_REQUEST(RP_USERREQ_TASK_END, prior->value, 0);
        prior->value = 0;
    }
    if (next != NULL && next->value != 0 && (next->value & 1) == 0)
        RP_REQUEST(RP_USERREQ_TASK_BEGIN, next->value, 0);
}

/* The end of a taskwait (this task's children have ended), of a barrier
 * or a taskgroup (every task). */
static void on_sync_region(int kind, int endpoint, rp_ompt_data *parallel, rp_ompt_data *task,
                           const void *return_address)
{
    (void)parallel;
    (void)task;
    (void)return_address;
    if (endpoint != OMPT_SCOPE_END
        || !__atomic_load_n(&rp_omp_task_threads_used, __ATOMIC_RELAXED))
        return;
    if (kind == OMPT_SYNC_REGION_TASKWAIT)
        RP_REQUEST(RP_USERREQ_TASK_WAIT, 0, 0);
    else if (kind != OMPT_SYNC_REGION_REDUCTION)
        RP_REQUEST(RP_USERREQ_TASKS_DONE, 0, 0);
}

static int ompt_initialize(rp_ompt_lookup lookup, int initial_device, rp_ompt_data *tool_data)
{
    rp_ompt_set_callback set = (rp_ompt_set_callback)lookup("ompt_set_callback");

    (void)initial_device;
    (void)tool_data;
    if (set == NULL)
        return 0;
    /* Without the schedule callback a record on its runner's thread would
     * never begin: no task is followed unless every callback is set. */
    if (set(OMPT_CALLBACK_TASK_SCHEDULE, (rp_ompt_callback)on_task_schedule) != OMPT_SET_ALWAYS
        || set(OMPT_CALLBACK_DEPENDENCES, (rp_ompt_callback)on_dependences) != OMPT_SET_ALWAYS
        || set(OMPT_CALLBACK_SYNC_REGION, (rp_ompt_callback)on_sync_region) != OMPT_SET_ALWAYS)
        return 1;
    set(OMPT_CALLBACK_TASK_CREATE, (rp_ompt_callback)on_task_create);
    return 1;
}

static void ompt_finalize(rp_ompt_data *tool_data)
{
    (void)tool_data;
}

/* libomp's search for a tool, at its start: the first ompt_start_tool in
 * the process, then the libraries OMP_TOOL_LIBRARIES names. */
rp_ompt_start_result *ompt_start_tool(unsigned omp_version, const char *runtime_version);
rp_ompt_start_result *ompt_start_tool(unsigned omp_version, const char *runtime_version)
{
    static rp_ompt_start_result result = { ompt_initialize, ompt_finalize, { 0 } };

    (void)omp_version;
    (void)runtime_version;
    if (getenv("OMP_TOOL_LIBRARIES") != NULL)
        return NULL;
    return &result;
}

/* Hands a task to libomp: the creation callback inside takes it. */
#define RP_KMP_SUBMIT(task, call)                                            \
    do {                                                                     \
        void *outer_task_ = submitting;                                      \
        unsigned long outer_handle_ = submitted_handle;                      \
        unsigned long started_ = rp_omp_tasks_started();                     \
        int own_;                                                            \
                                                                             \
        submitting = (task);                                                 \
        submitted_handle = 0;                                                \
        call;                                                                \
        own_ = (submitted_handle & 1) != 0;                                  \
        submitting = outer_task_;                                            \
        submitted_handle = outer_handle_;                                    \
        if (!own_)                                                           \
            rp_omp_task_created(started_, RP_KMP_TASK_CREATED_SWITCHES);     \
    } while (0)

RP_KMP_FUNC(int, __kmpc_omp_task, void *loc, int gtid, void *task)
{
    OrigFn fn;
    int result;

    VALGRIND_GET_ORIG_FN(fn);
    RP_KMP_SUBMIT(task, CALL_FN_W_WWW(result, fn, loc, gtid, task));
    return result;
}

/* A task with dependences (depend clauses). */
RP_KMP_FUNC(int, __kmpc_omp_task_with_deps, void *loc, int gtid, void *task, int ndeps,
            void *deps, int ndeps_noalias, void *noalias_deps)
{
    OrigFn fn;
    int result;

    VALGRIND_GET_ORIG_FN(fn);
    RP_KMP_SUBMIT(task, CALL_FN_W_7W(result, fn, loc, gtid, task, ndeps, deps, ndeps_noalias,
                                     noalias_deps));
    return result;
}

/* libomp's dependence (kmp_depend_info_t): an address, a length, then a
 * byte of flags, bit 0 for in. */
typedef struct {
    unsigned long base_addr;
    unsigned long len;
    unsigned char flags;
} rp_kmp_dependence;

static void wait_dependences(const rp_kmp_dependence *deps, int n)
{
    int i;

    for (i = 0; deps != NULL && i < n; i++)
        RP_REQUEST(RP_USERREQ_TASK_WAIT_DEPEND, deps[i].base_addr, (deps[i].flags & ~1u) != 0);
}

/* A `taskwait depend`, or an undeferred task's wait for its dependences:
 * they have ended. */
RP_KMP_FUNC(void, __kmpc_omp_wait_deps, void *loc, int gtid, int ndeps, void *deps,
            int ndeps_noalias, void *noalias_deps)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_v_6W(fn, loc, gtid, ndeps, deps, ndeps_noalias, noalias_deps);
    if (!__atomic_load_n(&rp_omp_task_threads_used, __ATOMIC_RELAXED))
        return;
    wait_dependences(deps, ndeps);
    wait_dependences(noalias_deps, ndeps_noalias);
}
