/* rp_intercepts_omp.c — the preload's wrappers of libgomp, the GNU OpenMP
 * runtime: how the work of a `sections` construct and tasks are handed
 * out, and its locks (below).
 *
 * libgomp's other synchronisation needs no wrapper: it is a synchronising
 * object (rp_filter.h), whose loads and stores are acquires and releases.
 * What racepred cannot see without help is a race between two sections
 * of one construct when one thread runs both: program order then orders
 * them, and no detector reports a race inside one thread.  Under
 * Valgrind, which runs one thread at a time, that is the rule, not the
 * exception: the thread that opens the construct takes every section
 * before the team's other threads get the CPU (DataRaceBench's
 * nestlock, atomic3 and critical-section3 programs were silent for this
 * reason alone).  So a thread that has just been handed a section yields
 * the CPU (sched_yield) before it runs it, and the next section goes to
 * another thread of the team when one is ready.  The system call is what
 * makes Valgrind switch threads at once (racepred's fair scheduling hands
 * the CPU to the next thread in line); an Ijk_Yield exit of the
 * translated code only shortens the timeslice to 300 blocks, in which a
 * thread runs a short section and takes the next.  A yield is a schedule
 * the program could have had natively; the program's behaviour does not
 * change, only which of its schedules Valgrind picks.
 *
 * Loops with a dynamic schedule are left alone: they hand out one chunk
 * per call, often one iteration, and a yield per chunk would cost a
 * thread switch per iteration.  Tasks: see below.
 */
#include <sched.h>
#include <stdlib.h>

#include "rp_preload.h"

#define RP_GOMP_FUNC(ret_ty, f, args...)                                     \
    ret_ty I_WRAP_SONAME_FNNAME_ZU(libgompZdsoZa, f)(args);                  \
    ret_ty I_WRAP_SONAME_FNNAME_ZU(libgompZdsoZa, f)(args)

/* Yields at most this many times for one section. */
#define RP_GOMP_YIELDS 20

/* Yields at most `yields` times, until another thread has had the CPU
 * since Valgrind's thread switches numbered `switches`; returns their
 * number after the last yield. */
static unsigned long yield_until_switch(unsigned long switches, int yields)
{
    unsigned long now = switches;
    int i;

    for (i = 0; i < yields && now == switches; i++) {
        sched_yield();
        now = RP_REQUEST_EXPR(RP_USERREQ_SWITCHES, 0, 0);
    }
    return now;
}

/* Yields until another thread has had the CPU.  One yield is not always
 * enough on a loaded machine: the thread the system has not run yet
 * cannot queue for Valgrind's lock, and the CPU comes straight back. */
static void let_others_in(void)
{
    yield_until_switch(RP_REQUEST_EXPR(RP_USERREQ_SWITCHES, 0, 0), RP_GOMP_YIELDS);
}

/* A thread that got section `section` (0: none left) lets the others in. */
static unsigned after_handout(unsigned section)
{
    if (section != 0)
        let_others_in();
    return section;
}

/* Handouts of a construct's first section (GOMP_sections_start), by any
 * thread.  A switch to another thread is not enough to let it take a
 * section: it may have had the CPU only to return from the barrier's
 * futex, and the first thread then takes every section (a clean-clone
 * check on a loaded machine saw racy_omp_sections silent once).  So the
 * thread handed the first section yields until some other thread has
 * been handed its own (or none left), at most RP_GOMP_START_YIELDS
 * times: a team of one waits that long once per construct. */
static unsigned long sections_started;

#define RP_GOMP_START_YIELDS 200

/* After a start handout: `before` is the count read before the call. */
static unsigned after_start(unsigned section, unsigned long before)
{
    int i;

    __atomic_add_fetch(&sections_started, 1, __ATOMIC_SEQ_CST);
    if (section == 0)
        return section;
    for (i = 0; i < RP_GOMP_START_YIELDS
                && __atomic_load_n(&sections_started, __ATOMIC_SEQ_CST) - before < 2; i++)
        sched_yield();
    return after_handout(section);
}

RP_GOMP_FUNC(unsigned, GOMP_sections_start, unsigned count)
{
    OrigFn fn;
    unsigned section;
    unsigned long before = __atomic_load_n(&sections_started, __ATOMIC_SEQ_CST);

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_W(section, fn, count);
    return after_start(section, before);
}

/* GCC 9 and later, for sections with reductions or task reductions. */
RP_GOMP_FUNC(unsigned, GOMP_sections2_start, unsigned count, void *reductions, void **mem)
{
    OrigFn fn;
    unsigned section;
    unsigned long before = __atomic_load_n(&sections_started, __ATOMIC_SEQ_CST);

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WWW(section, fn, count, reductions, mem);
    return after_start(section, before);
}

RP_GOMP_FUNC(unsigned, GOMP_sections_next, void)
{
    OrigFn fn;
    unsigned section;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_v(section, fn);
    return after_handout(section);
}

/* ---- tasks ----------------------------------------------------------------
 *
 * Two tasks without a dependence are unordered, but one thread runs both
 * under Valgrind as a rule (it creates them and reaches the barrier or
 * taskwait before another thread gets the CPU), and when two threads run
 * them one after the other, libgomp's task queue orders the second after
 * the first.  So a deferred task starts by letting the others in: another
 * thread of the team then takes the next task while this one is still
 * running, and the two overlap as they may natively.
 *
 * A task and the code of its creator that follows it, up to a taskwait,
 * are unordered too, but the creator may go on and run the task itself at
 * the taskwait, after that code, unless another thread took the task
 * first.  So, when no task runs on another thread, the creator of a
 * deferred task yields until some thread has started a task since it
 * created this one (rp_omp_task_created), at most RP_TASK_CREATED_YIELDS
 * times, and only until other threads have had the CPU a number of times
 * the runtime's wrapper gives (a thread that had it and took no task is
 * busy elsewhere, and a yield then costs its timeslice): once under
 * libgomp, which wakes an idle thread when it queues a task (a longer
 * wait made two sibling tasks run on one thread more often:
 * racy_omp_tasks silent in 3 runs of 12 beside three CPU hogs; without a
 * wait, racy_omp_task_parent silent in 1 of 12 and in 2 of 10), four times
 * under libomp, whose creator otherwise ran the task itself every time
 * (rp_intercepts_kmp.c).  When a task runs elsewhere, the creator goes on:
 * the thread that runs it would take the new task after it, and program
 * order would hide a race between the two (racy_omp_tasks); the creator
 * itself runs it beside the other.  A thread's first RP_TASK_YIELD_FIRST
 * tasks do this, then one in RP_TASK_YIELD_EVERY, as for the yield at the
 * start.
 *
 * The wrapper hands libgomp a trampoline, run_task, whose argument block
 * starts with the task's function; libgomp copies the block as it would
 * have copied the task's own arguments.  Tasks with a copy constructor
 * (cpyfn), undeferred ones (if clause false), detachable ones and ones
 * with more than RP_TASK_ARGS_MAX bytes of arguments (the block is built
 * on the stack) are passed on unchanged.  LLVM's libomp gets the same
 * policy through its own trampolines (rp_intercepts_kmp.c). */

#define RP_TASK_ARGS_MAX 4096

typedef struct rp_task_head {
    void (*fn)(void *);
    unsigned long args_offset;
} rp_task_head;

/* A thread's first RP_TASK_YIELD_FIRST tasks let the others in, then one
 * in RP_TASK_YIELD_EVERY: a yield switches threads when another is
 * ready, and a recursive program makes millions of small tasks (Fib(30)
 * with a task per call, 1.6 M: 52 s under racepred, 285 s with a yield
 * at every task). */
#define RP_TASK_YIELD_FIRST 64
#define RP_TASK_YIELD_EVERY 1024
#define RP_TASK_CREATED_YIELDS 200
/* Switches to other threads a libgomp task's creator waits for at most. */
#define RP_GOMP_TASK_CREATED_SWITCHES 1

/* Tasks started so far, and running now, through a trampoline, by any
 * thread; tasks this thread has started, is running, and created. */
static unsigned long tasks_started, tasks_running;
static __thread unsigned long tasks_run RP_TLS, tasks_nested RP_TLS, tasks_created RP_TLS;

static int task_may_yield(unsigned long n)
{
    return n < RP_TASK_YIELD_FIRST || n % RP_TASK_YIELD_EVERY == 0;
}

void rp_omp_task_begins_own(void)
{
    __atomic_add_fetch(&tasks_started, 1, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&tasks_running, 1, __ATOMIC_SEQ_CST);
    tasks_nested++;
}

void rp_omp_task_begins(void)
{
    rp_omp_task_begins_own();
    if (task_may_yield(tasks_run++))
        let_others_in();
}

void rp_omp_task_ends(void)
{
    tasks_nested--;
    __atomic_sub_fetch(&tasks_running, 1, __ATOMIC_SEQ_CST);
}

unsigned long rp_omp_tasks_started(void)
{
    return __atomic_load_n(&tasks_started, __ATOMIC_SEQ_CST);
}

void rp_omp_task_created(unsigned long started_before, int switches)
{
    unsigned long seen;
    int yields = 0, switched = 0;

    if (!task_may_yield(tasks_created++)
        || __atomic_load_n(&tasks_running, __ATOMIC_SEQ_CST) > tasks_nested)
        return;
    seen = RP_REQUEST_EXPR(RP_USERREQ_SWITCHES, 0, 0);
    while (yields++ < RP_TASK_CREATED_YIELDS && switched < switches
           && rp_omp_tasks_started() == started_before) {
        unsigned long now = yield_until_switch(seen, 1);

        switched += now != seen;
        seen = now;
    }
}

/* The block a task's trampoline runs, on the heap: its head, then the
 * task's arguments at args_offset.  Only a pointer to it goes through
 * the runtime, whose copy of it the trampoline reads (the preload's own
 * loads and stores are not the program's, rp_filter.h), so that the
 * arguments are written before the task's thread is forked from its
 * creator's (RP_USERREQ_TASK_CREATE), and the task's own thread reads
 * them and frees the block. */
typedef struct rp_task_block {
    void (*fn)(void *);
    void *raw;                  /* what malloc returned */
    unsigned long args_offset;
    unsigned long handle;       /* RP_USERREQ_TASK_CREATE's answer */
} rp_task_block;

/* The handle of the task this thread's GOMP_task is handing over: its
 * body runs inside the call (undeferred, included, or a full queue). */
static __thread unsigned long task_being_created RP_TLS;

/* rp_preload.h; under libgomp, once threads are over a task without
 * dependences goes to runner_task at once, as every task did before (the
 * tool would do nothing with it). */
int rp_omp_task_threads_over;
int rp_omp_task_threads_used;

static void run_task(void *data)
{
    rp_task_block *block = *(rp_task_block **)data;
    unsigned long handle = block->handle;
    int own_thread = (int)(handle & 1);

    /* A task of its own thread is unordered with the others wherever it
     * runs: no yield. */
    if (own_thread)
        rp_omp_task_begins_own();
    else
        rp_omp_task_begins();
    RP_REQUEST(RP_USERREQ_TASK_BEGIN, handle, 0);
    block->fn((char *)block + block->args_offset);
    free(block->raw);
    RP_REQUEST(RP_USERREQ_TASK_END, handle, handle == task_being_created);
    rp_omp_task_ends();
}

/* A trampoline's block is aligned as the task's arguments, at least as a
 * pointer. */
static unsigned long block_align(long arg_align)
{
    return arg_align > (long)sizeof(void *) ? (unsigned long)arg_align : sizeof(void *);
}

/* Fills a trampoline's block: its head (within its first `offset` bytes)
 * names the task's function and where its arguments start, and a copy of
 * the arguments follows. */
static void fill_block(char *block, rp_task_head *head, void (*fn)(void *),
                       unsigned long offset, const void *data, long arg_size)
{
    head->fn = fn;
    head->args_offset = offset;
    __builtin_memcpy(block + offset, data, (unsigned long)arg_size);
}

/* GCC's dependence arrays (libgomp's task.c): either {n, n_out, addresses:
 * out and inout first, then in}, or {0, n, n_out, n_mutexinoutset, n_in,
 * addresses in that order, then depobjs: pointers to {address, kind}}.
 * Sends each as `request` (handle first when there is one); a
 * mutexinoutset or depobj counts as out, as libgomp treats mutexinoutset
 * (an out orders more than the others, never less). */
static void send_dependences(void **depend, int request, unsigned long handle)
{
    unsigned long n, n_out, n_plain, first, i;

    if (depend[0] != 0) {
        n = (unsigned long)depend[0];
        n_out = (unsigned long)depend[1];
        n_plain = n;
        first = 2;
    } else {
        n = (unsigned long)depend[1];
        n_out = (unsigned long)depend[2] + (unsigned long)depend[3];
        n_plain = n_out + (unsigned long)depend[4];
        first = 5;
    }
    for (i = 0; i < n; i++) {
        void *addr = depend[first + i];
        int is_out = i < n_out || i >= n_plain;

        if (i >= n_plain)
            addr = ((void **)addr)[0];
        if (request == RP_USERREQ_TASK_DEPEND)
            RP_REQUEST3(request, handle, addr, is_out);
        else
            RP_REQUEST(request, addr, is_out);
    }
}

#define RP_GOMP_TASK_FLAG_DEPEND (1u << 3)

/* The task's block, filled: its arguments copied, or built by cpyfn as
 * libgomp would; NULL if malloc fails. */
static rp_task_block *task_block_new(void (*fn)(void *), void *data,
                                     void (*cpyfn)(void *, void *), long arg_size,
                                     long arg_align)
{
    unsigned long align = block_align(arg_align);
    unsigned long offset = rp_round_up(sizeof(rp_task_block), align);
    char *raw = malloc(offset + (unsigned long)arg_size + align);
    rp_task_block *block;

    if (raw == NULL)
        return NULL;
    block = (rp_task_block *)rp_round_up((unsigned long)raw, align);
    block->fn = fn;
    block->raw = raw;
    block->args_offset = offset;
    if (cpyfn != NULL)
        cpyfn((char *)block + offset, data);
    else
        __builtin_memcpy((char *)block + offset, data, (unsigned long)arg_size);
    return block;
}

/* A task on its runner's thread, as before tasks had threads of their own
 * (rp_tasks.h): through a trampoline that yields (run_copied_task) on a
 * block libgomp copies, or unchanged when it has a copy constructor, an
 * if clause that is false, a detach clause or more than RP_TASK_ARGS_MAX
 * bytes of arguments. */
static void run_copied_task(void *block)
{
    const rp_task_head *head = block;

    rp_omp_task_begins();
    head->fn((char *)block + head->args_offset);
    rp_omp_task_ends();
}

static void runner_task(OrigFn orig, void (*fn)(void *), void *data,
                        void (*cpyfn)(void *, void *), long arg_size, long arg_align,
                        _Bool if_clause, unsigned flags, void **depend, int priority,
                        void *detach)
{
    unsigned long align, offset, size;
    long ignored;

    if (cpyfn != NULL || !if_clause || detach != NULL || arg_size < 0
        || arg_size > RP_TASK_ARGS_MAX) {
        CALL_FN_W_10W(ignored, orig, fn, data, cpyfn, arg_size, arg_align, if_clause, flags,
                      depend, priority, detach);
        (void)ignored;
        return;
    }
    align = block_align(arg_align);
    offset = rp_round_up(sizeof(rp_task_head), align);
    size = offset + (unsigned long)arg_size;
    {
        char raw[size + align];
        char *block = (char *)rp_round_up((unsigned long)raw, align);
        unsigned long started = rp_omp_tasks_started();

        fill_block(block, (rp_task_head *)block, fn, offset, data, arg_size);
        CALL_FN_W_10W(ignored, orig, run_copied_task, block, NULL, size, align, if_clause,
                      flags, depend, priority, detach);
        (void)ignored;
        rp_omp_task_created(started, RP_GOMP_TASK_CREATED_SWITCHES);
    }
}

RP_GOMP_FUNC(void, GOMP_task, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
             long arg_size, long arg_align, _Bool if_clause, unsigned flags, void **depend,
             int priority, void *detach)
{
    OrigFn orig;
    rp_task_block *block = NULL;
    unsigned long handle, outer_task, started;
    int has_deps = (flags & RP_GOMP_TASK_FLAG_DEPEND) != 0 && depend != NULL;
    long ignored;

    VALGRIND_GET_ORIG_FN(orig);
    if (detach != NULL) {
        RP_REQUEST(RP_USERREQ_TASK_UNFOLLOWED, 0, 0);
        __atomic_store_n(&rp_omp_task_threads_over, 1, __ATOMIC_RELAXED);
    } else if (arg_size >= 0
               && (has_deps || !__atomic_load_n(&rp_omp_task_threads_over, __ATOMIC_RELAXED))) {
        block = task_block_new(fn, data, cpyfn, arg_size, arg_align);
    }
    /* The block may be gone when the call returns: its handle is kept. */
    handle = block != NULL ? RP_REQUEST_EXPR(RP_USERREQ_TASK_CREATE, has_deps, 0) : 0;
    if (handle == 0) {
        if (block != NULL) {
            free(block->raw);
            __atomic_store_n(&rp_omp_task_threads_over, 1, __ATOMIC_RELAXED);
        }
        runner_task(orig, fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
                    priority, detach);
        return;
    }
    block->handle = handle;
    if (has_deps)
        send_dependences(depend, RP_USERREQ_TASK_DEPEND, handle);
    if (handle & 1)
        __atomic_store_n(&rp_omp_task_threads_used, 1, __ATOMIC_RELAXED);
    started = rp_omp_tasks_started();
    outer_task = task_being_created;
    task_being_created = handle;
    CALL_FN_W_10W(ignored, orig, run_task, &block, NULL, sizeof block, sizeof block,
                  if_clause, flags, depend, priority, detach);
    (void)ignored;
    task_being_created = outer_task;
    if (if_clause && (handle & 1) == 0)
        rp_omp_task_created(started, RP_GOMP_TASK_CREATED_SWITCHES);
}

/* ---- where tasks have ended -----------------------------------------------
 *
 * Tasks of their own threads (rp_tasks.h) are ordered before what follows
 * the points where OpenMP says they have ended, told to the tool after
 * the real call: a taskwait (the caller's children), a `taskwait depend`
 * (its dependences), and every call that ends in a barrier of the team
 * (all tasks): explicit and worksharing barriers, the end of a taskgroup
 * and of a parallel region, a host `teams` or `target` region.  The
 * wrappers pass every argument on as a word. */
typedef unsigned long rp_word;

static rp_word tasks_done(rp_word result)
{
    if (__atomic_load_n(&rp_omp_task_threads_used, __ATOMIC_RELAXED))
        RP_REQUEST(RP_USERREQ_TASKS_DONE, 0, 0);
    return result;
}

#define RP_GOMP_DONE_0(f)                                                    \
    RP_GOMP_FUNC(rp_word, f, void)                                           \
    {                                                                        \
        OrigFn fn;                                                           \
        rp_word r;                                                           \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        CALL_FN_W_v(r, fn);                                                  \
        return tasks_done(r);                                                \
    }
#define RP_GOMP_DONE_1(f)                                                    \
    RP_GOMP_FUNC(rp_word, f, rp_word a1)                                     \
    {                                                                        \
        OrigFn fn;                                                           \
        rp_word r;                                                           \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        CALL_FN_W_W(r, fn, a1);                                              \
        return tasks_done(r);                                                \
    }
#define RP_GOMP_DONE_4(f)                                                    \
    RP_GOMP_FUNC(rp_word, f, rp_word a1, rp_word a2, rp_word a3, rp_word a4) \
    {                                                                        \
        OrigFn fn;                                                           \
        rp_word r;                                                           \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        CALL_FN_W_WWWW(r, fn, a1, a2, a3, a4);                               \
        return tasks_done(r);                                                \
    }
#define RP_GOMP_DONE_5(f)                                                    \
    RP_GOMP_FUNC(rp_word, f, rp_word a1, rp_word a2, rp_word a3, rp_word a4, \
                 rp_word a5)                                                 \
    {                                                                        \
        OrigFn fn;                                                           \
        rp_word r;                                                           \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        CALL_FN_W_5W(r, fn, a1, a2, a3, a4, a5);                             \
        return tasks_done(r);                                                \
    }
#define RP_GOMP_DONE_7(f)                                                    \
    RP_GOMP_FUNC(rp_word, f, rp_word a1, rp_word a2, rp_word a3, rp_word a4, \
                 rp_word a5, rp_word a6, rp_word a7)                         \
    {                                                                        \
        OrigFn fn;                                                           \
        rp_word r;                                                           \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        CALL_FN_W_7W(r, fn, a1, a2, a3, a4, a5, a6, a7);                     \
        return tasks_done(r);                                                \
    }
#define RP_GOMP_DONE_8(f)                                                    \
    RP_GOMP_FUNC(rp_word, f, rp_word a1, rp_word a2, rp_word a3, rp_word a4, \
                 rp_word a5, rp_word a6, rp_word a7, rp_word a8)             \
    {                                                                        \
        OrigFn fn;                                                           \
        rp_word r;                                                           \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        CALL_FN_W_8W(r, fn, a1, a2, a3, a4, a5, a6, a7, a8);                 \
        return tasks_done(r);                                                \
    }
#define RP_GOMP_DONE_9(f)                                                    \
    RP_GOMP_FUNC(rp_word, f, rp_word a1, rp_word a2, rp_word a3, rp_word a4, \
                 rp_word a5, rp_word a6, rp_word a7, rp_word a8, rp_word a9) \
    {                                                                        \
        OrigFn fn;                                                           \
        rp_word r;                                                           \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        CALL_FN_W_9W(r, fn, a1, a2, a3, a4, a5, a6, a7, a8, a9);             \
        return tasks_done(r);                                                \
    }

/* Barriers, worksharing ends, a taskgroup's end, the old-style parallel
 * region's end: no arguments, or a cancellation flag. */
RP_GOMP_DONE_0(GOMP_barrier)
RP_GOMP_DONE_0(GOMP_barrier_cancel)
RP_GOMP_DONE_0(GOMP_loop_end)
RP_GOMP_DONE_0(GOMP_loop_end_cancel)
RP_GOMP_DONE_0(GOMP_sections_end)
RP_GOMP_DONE_0(GOMP_sections_end_cancel)
RP_GOMP_DONE_0(GOMP_taskgroup_end)
RP_GOMP_DONE_0(GOMP_parallel_end)
RP_GOMP_DONE_1(GOMP_workshare_task_reduction_unregister)
/* Parallel regions: (fn, data, num_threads, [count or loop bounds,]
 * flags); teams on the host: (fn, data, num_teams, thread_limit, flags);
 * target regions run on the host: GOMP_target (7 words), GOMP_target_ext
 * (9). */
RP_GOMP_DONE_4(GOMP_parallel)
RP_GOMP_DONE_4(GOMP_parallel_reductions)
RP_GOMP_DONE_5(GOMP_parallel_sections)
RP_GOMP_DONE_5(GOMP_teams_reg)
RP_GOMP_DONE_8(GOMP_parallel_loop_static)
RP_GOMP_DONE_8(GOMP_parallel_loop_dynamic)
RP_GOMP_DONE_8(GOMP_parallel_loop_guided)
RP_GOMP_DONE_8(GOMP_parallel_loop_nonmonotonic_dynamic)
RP_GOMP_DONE_8(GOMP_parallel_loop_nonmonotonic_guided)
RP_GOMP_DONE_7(GOMP_parallel_loop_runtime)
RP_GOMP_DONE_7(GOMP_parallel_loop_nonmonotonic_runtime)
RP_GOMP_DONE_7(GOMP_parallel_loop_maybe_nonmonotonic_runtime)
RP_GOMP_DONE_7(GOMP_target)
RP_GOMP_DONE_9(GOMP_target_ext)

RP_GOMP_FUNC(void, GOMP_taskwait, void)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_v_v(fn);
    if (__atomic_load_n(&rp_omp_task_threads_used, __ATOMIC_RELAXED))
        RP_REQUEST(RP_USERREQ_TASK_WAIT, 0, 0);
}

RP_GOMP_FUNC(void, GOMP_taskwait_depend, void **depend)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_v_W(fn, depend);
    send_dependences(depend, RP_USERREQ_TASK_WAIT_DEPEND, 0);
}

/* ---- taskloops -------------------------------------------------------------
 *
 * GOMP_taskloop (GOMP_taskloop_ull for unsigned long long iterations) cuts
 * a loop into tasks, each running fn on a copy of data whose first two
 * words libgomp sets to the task's first iteration and the one past its
 * last; a taskloop that may not defer (if(0), final, too many tasks
 * queued) runs them one after the other on data itself, with the same two
 * words set.  Unwrapped, its tasks did not yield, and one thread ran them
 * all (DataRaceBench's doall2-taskloop, a shared inner loop counter, was
 * silent).  So the wrapper hands libgomp run_taskloop and a block of two
 * words for those bounds, the task's head, then the program's block;
 * run_taskloop moves the bounds into the program's block and runs the
 * task as run_task does.  Taskloops with a copy constructor, with
 * reductions (libgomp reads the block's third word as a pointer) or with
 * more than RP_TASK_ARGS_MAX bytes of arguments are passed on unchanged.
 * LLVM's libomp copies a task allocated by __kmpc_omp_task_alloc for each
 * chunk, trampoline included (rp_intercepts_kmp.c). */

#define RP_GOMP_TASK_FLAG_REDUCTION (1u << 12)

typedef struct rp_taskloop_head {
    unsigned long long bounds[2];
    rp_task_head task;
} rp_taskloop_head;

static void run_taskloop(void *block)
{
    const rp_taskloop_head *head = block;
    unsigned long long *args = (unsigned long long *)((char *)block + head->task.args_offset);

    args[0] = head->bounds[0];
    args[1] = head->bounds[1];
    rp_omp_task_begins();
    head->task.fn(args);
    rp_omp_task_ends();
}

#define RP_GOMP_TASK_FLAG_NOGROUP (1u << 11)

/* A taskloop without nogroup is a taskgroup: its tasks have ended. */
static void taskloop_done(unsigned flags)
{
    if ((flags & RP_GOMP_TASK_FLAG_NOGROUP) == 0)
        tasks_done(0);
}

/* Both variants: their bounds are 8-byte words either way. */
#define RP_GOMP_TASKLOOP(name, bound_ty)                                               \
    RP_GOMP_FUNC(void, name, void (*fn)(void *), void *data,                           \
                 void (*cpyfn)(void *, void *), long arg_size, long arg_align,         \
                 unsigned flags, unsigned long num_tasks, int priority, bound_ty start, \
                 bound_ty end, bound_ty step)                                          \
    {                                                                                  \
        OrigFn orig;                                                                   \
        unsigned long align, offset, size;                                             \
        long ignored;                                                                  \
                                                                                       \
        VALGRIND_GET_ORIG_FN(orig);                                                    \
        if (cpyfn != NULL || (flags & RP_GOMP_TASK_FLAG_REDUCTION) != 0                \
            || arg_size < (long)(2 * sizeof(bound_ty)) || arg_size > RP_TASK_ARGS_MAX) { \
            CALL_FN_W_11W(ignored, orig, fn, data, cpyfn, arg_size, arg_align, flags,  \
                          num_tasks, priority, start, end, step);                      \
            (void)ignored;                                                             \
            taskloop_done(flags);                                                      \
            return;                                                                    \
        }                                                                              \
        align = block_align(arg_align);                                                \
        offset = rp_round_up(sizeof(rp_taskloop_head), align);                         \
        size = offset + (unsigned long)arg_size;                                       \
        {                                                                              \
            char raw[size + align];                                                    \
            char *block = (char *)rp_round_up((unsigned long)raw, align);              \
                                                                                       \
            fill_block(block, &((rp_taskloop_head *)block)->task, fn, offset, data,    \
                       arg_size);                                                      \
            CALL_FN_W_11W(ignored, orig, run_taskloop, block, NULL, size, align, flags, \
                          num_tasks, priority, start, end, step);                      \
            (void)ignored;                                                             \
            taskloop_done(flags);                                                      \
        }                                                                              \
    }

RP_GOMP_TASKLOOP(GOMP_taskloop, long)
RP_GOMP_TASKLOOP(GOMP_taskloop_ull, unsigned long long)

/* ---- critical sections that poll ------------------------------------------
 *
 * A thread that waits for a flag by testing it in `omp critical` over and
 * over (DataRaceBench's barrier1: `while (!done) { #pragma omp critical
 * if (*f) ... }`) enters the section thousands of times per timeslice.
 * The thread it waits for sleeps on the section's lock; the poller's
 * unlock wakes it, but under Valgrind it gets the CPU when the poller's
 * timeslice ends, nearly always inside the section, finds the lock taken
 * and sleeps again.  The program that ends in 0.01 s natively did not end
 * in 300 s (nor under --tool=none, Helgrind or DRD).  So every
 * RP_CRITICAL_POLLS entries a thread asks whether another thread has run
 * since it last asked, and if not, lets the others in first, outside the
 * section.  A yield that finds nobody ready doubles the interval (a loop
 * of criticals while the other threads wait on something else), up to
 * RP_CRITICAL_POLLS_MAX.  Asking costs a client request (a trip through
 * Valgrind's scheduler), hence not at every entry. */
#define RP_CRITICAL_POLLS 256
#define RP_CRITICAL_POLLS_MAX 65536

static __thread unsigned long critical_switches RP_TLS;
static __thread unsigned critical_entries RP_TLS, critical_interval RP_TLS;

static void before_critical(void)
{
    unsigned long switches;

    if (critical_interval == 0)
        critical_interval = RP_CRITICAL_POLLS;
    if (++critical_entries < critical_interval)
        return;
    critical_entries = 0;
    switches = RP_REQUEST_EXPR(RP_USERREQ_SWITCHES, 0, 0);
    if (switches != critical_switches) {
        critical_switches = switches;
        return;
    }
    critical_switches = yield_until_switch(switches, 1);
    if (critical_switches != switches)
        critical_interval = RP_CRITICAL_POLLS;
    else if (critical_interval < RP_CRITICAL_POLLS_MAX)
        critical_interval *= 2;
}

/* ---- locks -----------------------------------------------------------------
 *
 * `omp critical`, `omp atomic` done with a lock, and the omp_*_lock
 * functions are locks, reported as pthread mutexes are (rp_intercepts.c)
 * with libgomp's own code inside them unseen (RP_UNSEEN_CALL).  As a
 * synchronising object, libgomp's loads and stores in them would be
 * acquires and releases of its lock words, which order every critical
 * section after the one before it: no predictive detector could run two
 * in the other order, two differently named criticals would order each
 * other whenever one ended before the other began (DataRaceBench's
 * critical1-gpu was reported in 1 run of 5), and reports said "Locks
 * held: none".  A named critical's lock is the variable the compiler
 * made for its name (`.gomp_critical_user_NAME`); the unnamed critical
 * and the atomic lock, libgomp's own, are stood for by the two bytes
 * below.  Nestable locks nest as recursive mutexes do. */
static char rp_omp_critical_lock, rp_omp_atomic_lock;

RP_GOMP_FUNC(void, GOMP_critical_start, void)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    before_critical();
    RP_ACQUIRING_CALL(&rp_omp_critical_lock, CALL_FN_v_v(fn));
}

RP_GOMP_FUNC(void, GOMP_critical_end, void)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_RELEASING_CALL(&rp_omp_critical_lock, CALL_FN_v_v(fn));
}

RP_GOMP_FUNC(void, GOMP_critical_name_start, void **pptr)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    before_critical();
    RP_ACQUIRING_CALL(pptr, CALL_FN_v_W(fn, pptr));
}

RP_GOMP_FUNC(void, GOMP_critical_name_end, void **pptr)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_RELEASING_CALL(pptr, CALL_FN_v_W(fn, pptr));
}

RP_GOMP_FUNC(void, GOMP_atomic_start, void)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ACQUIRING_CALL(&rp_omp_atomic_lock, CALL_FN_v_v(fn));
}

RP_GOMP_FUNC(void, GOMP_atomic_end, void)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_RELEASING_CALL(&rp_omp_atomic_lock, CALL_FN_v_v(fn));
}

/* omp_test_lock returns 1 when it took the lock, omp_test_nest_lock the
 * new nesting count (0 when it did not). */
RP_LOCKING_VOID_FUNC(RP_GOMP_FUNC, omp_set_lock)
RP_LOCKING_VOID_FUNC(RP_GOMP_FUNC, omp_set_nest_lock)
RP_TRYLOCKING_FUNC(RP_GOMP_FUNC, omp_test_lock)
RP_TRYLOCKING_FUNC(RP_GOMP_FUNC, omp_test_nest_lock)
RP_UNLOCKING_VOID_FUNC(RP_GOMP_FUNC, omp_unset_lock)
RP_UNLOCKING_VOID_FUNC(RP_GOMP_FUNC, omp_unset_nest_lock)
RP_RENEWING_VOID_FUNC(RP_GOMP_FUNC, omp_init_lock)
RP_RENEWING_VOID_FUNC(RP_GOMP_FUNC, omp_init_nest_lock)
RP_RENEWING_VOID_FUNC(RP_GOMP_FUNC, omp_destroy_lock)
RP_RENEWING_VOID_FUNC(RP_GOMP_FUNC, omp_destroy_nest_lock)
