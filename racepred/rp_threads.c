/* rp_threads.c — racepred thread numbers, fork and join edges.
 *
 * Two tables:
 *   rp_by_vg[ThreadId]   the racepred number of the live thread in each
 *                        Valgrind slot (RP_NO_THREAD when the slot is free);
 *   threads[rp_tid]      one record per racepred thread ever created.
 * and a hash table from pthread_t to the racepred number of the thread that
 * value currently names (glibc reuses pthread_t values once a thread's
 * stack is recycled, so a later pthread_create simply overwrites).
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"

#include "rp_threads.h"
#include "rp_heap.h"
#include "rp_history.h"
#include "rp_instrument.h"
#include "rp_locks.h"
#include "rp_site.h"
#include "rp_privblocks.h"
#include "rp_stacks.h"
#include "rp_tool.h"

#define RP_NO_THREAD ((rp_tid_t)-1)

typedef struct {
    ThreadId vg_tid;          /* 0 once the thread has exited */
    Bool exited;
    Bool joined;              /* the JOIN edge is in the stream */
    Bool detached;            /* never joined: gone once exited */
    Bool is_task;             /* an OpenMP task's own thread (rp_tasks.h) */
    rp_tid_t last_child;      /* the thread it created last */
    rp_tid_t waiting_joiner;  /* a thread blocked in pthread_join on it */
    ExeContext *created_at;   /* NULL for the root thread */
    UInt ignore_depth[RP_IGNORE_KINDS];  /* of ignore requests, by kind */
} rp_thread;

typedef struct {
    struct _VgHashNode *next;
    UWord key;                /* pthread_t */
    rp_tid_t rp_tid;
} rp_pthread_node;

rp_tid_t rp_threads_current;
ThreadId rp_threads_current_vg;
UInt rp_threads_current_ignores;

static rp_tid_t *rp_by_vg;
static rp_thread *threads;
static rp_tid_t n_threads;
static rp_tid_t threads_capacity;
static VgHashTable *by_pthread;

/* A record for a new racepred thread, run by vg_tid (VG_INVALID_THREADID:
 * by none yet). */
static rp_tid_t thread_new(ThreadId vg_tid)
{
    rp_thread *t;

    if (n_threads == threads_capacity) {
        threads_capacity = threads_capacity ? 2 * threads_capacity : 64;
        threads = VG_(realloc)("rp.threads.table", threads,
                               threads_capacity * sizeof *threads);
    }
    t = &threads[n_threads];
    t->vg_tid = vg_tid;
    t->exited = False;
    t->joined = False;
    t->detached = False;
    t->last_child = RP_NO_THREAD;
    t->waiting_joiner = RP_NO_THREAD;
    t->created_at = NULL;
    t->is_task = False;
    VG_(memset)(t->ignore_depth, 0, sizeof t->ignore_depth);
    if (vg_tid != VG_INVALID_THREADID)
        rp_by_vg[vg_tid] = n_threads;
    return n_threads++;
}

rp_tid_t rp_threads_detached_gone;

/* The thread has exited and nothing will join it. */
static void thread_gone(rp_tid_t rp)
{
    rp_threads_detached_gone++;
    if (rp_tool_engine != NULL)
        rp_engine_thread_gone(rp_tool_engine, rp);
}

/* Threads created and not joined yet: none when the root thread is alone
 * (rp_stacks_alone_begins).  A detached thread is never joined, and a
 * thread that exited unjoined is not ordered before what runs next: the
 * program is then never alone again. */
static rp_tid_t unjoined;

static void emit_join(rp_tid_t joiner, rp_tid_t joined)
{
    threads[joined].joined = True;
    rp_tool_emit(RP_EV_JOIN, joiner, joined, 0, 0);
    if (--unjoined == 0)
        rp_stacks_alone_begins();
}

static Bool threads_cloned;

/* By Valgrind thread: what its pthread_create hands the new thread. */
typedef struct {
    Bool known;
    UWord arg, stack;
} hand_over;

static hand_over *handed;

void rp_threads_hands(ThreadId parent, Bool hands, UWord arg, UWord stack)
{
    if (handed == NULL)
        handed = VG_(calloc)("rp.threads.handed", VG_N_THREADS, sizeof *handed);
    handed[parent].known = hands;
    handed[parent].arg = arg;
    handed[parent].stack = stack;
}

/* The new thread may be handed addresses of the parent's stack and of its
 * private blocks: those its pthread_create passes, or any. */
static void parent_hands(ThreadId parent)
{
    rp_tid_t rp = rp_by_vg[parent];

    if (handed == NULL || !handed[parent].known) {
        rp_stacks_escape(parent);
        rp_privblocks_escape_thread(rp);
        return;
    }
    handed[parent].known = False;
    rp_stacks_value_leaves(parent, handed[parent].arg);
    rp_stacks_value_leaves(parent, handed[parent].stack);
    rp_privblocks_value_leaves(rp, handed[parent].arg);
    rp_privblocks_value_leaves(rp, handed[parent].stack);
}

/* Called at clone() time, with the parent running.  The root thread
 * arrives with parent 0 (no parent) and becomes racepred thread 0. */
static void on_ll_create(ThreadId parent, ThreadId child)
{
    rp_tid_t child_rp = thread_new(child);

    if (parent == VG_INVALID_THREADID)
        return;
    tl_assert(rp_by_vg[parent] != RP_NO_THREAD);
    if (unjoined++ == 0)
        rp_stacks_alone_ends(parent);
    /* The first thread after the root (tasks may have taken numbers
     * before it: rp_threads_task_new). */
    if (!threads_cloned) {
        threads_cloned = True;
        rp_instrument_alone_ends();
    }
    parent_hands(parent);
    threads[rp_by_vg[parent]].last_child = child_rp;
    /* Reports announce each thread they mention with this stack. */
    threads[child_rp].created_at = VG_(record_ExeContext)(parent, 0);
    rp_tool_emit(RP_EV_FORK, rp_by_vg[parent], child_rp, 0, 0);
}

/* The thread is about to run its first instruction on a stack that may
 * have been another thread's: glibc caches the stacks of exited threads
 * and hands them to new ones, with the handover synchronised inside libc,
 * which racepred does not see.  Without this, the new thread's first use
 * of each stack slot would race with the old owner's last one (a detached
 * thread's stack reused by the next thread, for instance).  Valgrind knows
 * the stack as the mapping the thread's SP was in at clone time, up to
 * that SP; glibc keeps the thread's static TLS (its __thread variables)
 * and its struct pthread above it, at the top of the same mapping, and
 * they are reused with the stack, so the whole mapping is fresh. */
static void on_first_insn(ThreadId tid)
{
    Addr top = VG_(thread_get_stack_max)(tid);
    SizeT size = VG_(thread_get_stack_size)(tid);
    NSegment const *seg = VG_(am_find_nsegment)(top);
    Addr first = top - size + 1;

    if (size == 0)
        return;
    if (seg != NULL && seg->kind == SkAnonC && seg->end > top)
        top = seg->end;
    rp_heap_fresh(rp_by_vg[tid], first, top - first + 1);
}

/* The scheduler is about to run `tid`; every access until the next call is
 * that thread's. */
static UInt ignores_of(const rp_thread *t)
{
    UInt kinds = 0;

    for (UInt k = 0; k < RP_IGNORE_KINDS; k++)
        if (t->ignore_depth[k] > 0)
            kinds |= 1u << k;
    return kinds;
}

UWord rp_threads_switches;

static void switch_to(ThreadId tid)
{
    if (tid != rp_threads_current_vg)
        rp_threads_switches++;
    rp_threads_current_vg = tid;
    rp_threads_current = rp_by_vg[tid];
    rp_privblocks_switch(rp_threads_current);
    rp_threads_current_ignores = ignores_of(&threads[rp_threads_current]);
    rp_site_current_tag = rp_locks_tag(rp_threads_current);
    rp_history_stale = 1;
    rp_stacks_switch(tid);
    rp_instrument_switched();
}

static void on_start_client_code(ThreadId tid, ULong blocks_done)
{
    (void)blocks_done;
    switch_to(tid);
}

void rp_threads_make_current(ThreadId tid)
{
    if (tid != rp_threads_current_vg)
        switch_to(tid);
}

Bool rp_threads_ignore(ThreadId vg_tid, UInt kinds, Bool begin)
{
    rp_thread *t = &threads[rp_threads_of_vg(vg_tid)];

    UInt k;

    for (k = 0; k < RP_IGNORE_KINDS; k++)
        if (!begin && (kinds & (1u << k)) && t->ignore_depth[k] == 0)
            return False;
    for (k = 0; k < RP_IGNORE_KINDS; k++)
        if (kinds & (1u << k))
            t->ignore_depth[k] += begin ? 1 : -1;
    /* The request comes from the running thread. */
    if (vg_tid == rp_threads_current_vg)
        rp_threads_current_ignores = ignores_of(t);
    return True;
}

/* The thread has made its last access.  If a joiner is already blocked on
 * it, this is the moment the join edge must enter the stream (see
 * rp_threads_join_pre).  Either way the detectors learn that it has ended,
 * so that a thread nobody joins (detached) stops holding their histories
 * back (rp_engine_thread_end). */
static void on_ll_exit(ThreadId tid)
{
    rp_tid_t rp = rp_by_vg[tid];

    tl_assert(rp != RP_NO_THREAD);
    threads[rp].exited = True;
    threads[rp].vg_tid = VG_INVALID_THREADID;
    rp_stacks_forget(tid);
    /* Its joiner, or whoever it left addresses to, may use its blocks. */
    rp_privblocks_escape_thread(rp);
    rp_by_vg[tid] = RP_NO_THREAD;
    if (threads[rp].waiting_joiner != RP_NO_THREAD)
        emit_join(threads[rp].waiting_joiner, rp);
    if (rp_tool_engine != NULL)
        rp_engine_thread_end(rp_tool_engine, rp);
    if (threads[rp].detached && !threads[rp].joined)
        thread_gone(rp);
}

void rp_threads_init(void)
{
    UInt i;

    rp_by_vg = VG_(malloc)("rp.threads.by_vg", VG_N_THREADS * sizeof *rp_by_vg);
    for (i = 0; i < VG_N_THREADS; i++)
        rp_by_vg[i] = RP_NO_THREAD;
    by_pthread = VG_(HT_construct)("rp.threads.by_pthread");
    VG_(track_pre_thread_ll_create)(on_ll_create);
    VG_(track_pre_thread_first_insn)(on_first_insn);
    VG_(track_start_client_code)(on_start_client_code);
    VG_(track_pre_thread_ll_exit)(on_ll_exit);
}

rp_tid_t rp_threads_task_new(ThreadId creator)
{
    rp_tid_t task = thread_new(VG_INVALID_THREADID);

    threads[task].is_task = True;
    threads[task].created_at = VG_(record_ExeContext)(creator, 0);
    /* The task may be handed addresses of its creator's stack and of its
     * private blocks. */
    rp_stacks_escape(creator);
    rp_privblocks_escape_thread(rp_threads_of_vg(creator));
    rp_tool_emit(RP_EV_FORK, rp_threads_of_vg(creator), task, 0, 0);
    return task;
}

rp_tid_t rp_threads_task_enter(ThreadId vg_tid, rp_tid_t task)
{
    rp_tid_t outer = rp_threads_of_vg(vg_tid);

    threads[task].vg_tid = vg_tid;
    rp_by_vg[vg_tid] = task;
    if (vg_tid == rp_threads_current_vg)
        switch_to(vg_tid);
    return outer;
}

void rp_threads_task_leave(ThreadId vg_tid, rp_tid_t task, rp_tid_t outer, Bool join)
{
    threads[task].exited = True;
    threads[task].vg_tid = VG_INVALID_THREADID;
    rp_privblocks_escape_thread(task);
    rp_by_vg[vg_tid] = outer;
    if (vg_tid == rp_threads_current_vg)
        switch_to(vg_tid);
    if (rp_tool_engine != NULL)
        rp_engine_thread_end(rp_tool_engine, task);
    if (join) {
        threads[task].joined = True;
        rp_tool_emit(RP_EV_JOIN, outer, task, 0, 0);
    } else if (rp_tool_engine != NULL) {
        rp_engine_thread_gone(rp_tool_engine, task);
    }
}

Bool rp_threads_is_task(rp_tid_t tid)
{
    return tid < n_threads && threads[tid].is_task;
}

Bool rp_threads_is_live(ThreadId vg_tid)
{
    return vg_tid != VG_INVALID_THREADID && vg_tid < VG_N_THREADS
        && rp_by_vg[vg_tid] != RP_NO_THREAD;
}

rp_tid_t rp_threads_of_vg(ThreadId vg_tid)
{
    tl_assert(vg_tid < VG_N_THREADS && rp_by_vg[vg_tid] != RP_NO_THREAD);
    return rp_by_vg[vg_tid];
}

ExeContext *rp_threads_created_at(rp_tid_t tid)
{
    tl_assert(tid < n_threads);
    return threads[tid].created_at;
}

rp_tid_t rp_threads_count(void)
{
    return n_threads;
}

Bool rp_threads_alone(void)
{
    return unjoined == 0;
}

/* A detached thread that has exited already is gone now, else at its
 * exit.  A thread joined or detached already stays as it is. */
static void detach(rp_tid_t rp)
{
    rp_thread *t = &threads[rp];

    if (t->joined || t->detached || t->waiting_joiner != RP_NO_THREAD)
        return;
    t->detached = True;
    if (t->exited)
        thread_gone(rp);
}

/* A thread detaching itself is known by its Valgrind number: its
 * pthread_t may not be in the table yet (its creator's pthread_create has
 * not returned), or still name the exited thread it was before. */
void rp_threads_detach(ThreadId caller, UWord child_pthread, Bool self)
{
    rp_pthread_node *node;

    if (self) {
        detach(rp_threads_of_vg(caller));
        return;
    }
    node = VG_(HT_lookup)(by_pthread, child_pthread);
    if (node != NULL)
        detach(node->rp_tid);
}

/* pthread_t value `pthread` names racepred thread `tid` from now on. */
static void map_pthread(UWord pthread, rp_tid_t tid)
{
    rp_pthread_node *node = VG_(HT_remove)(by_pthread, pthread);

    if (node == NULL)
        node = VG_(malloc)("rp.threads.pthread", sizeof *node);
    node->key = pthread;
    node->rp_tid = tid;
    VG_(HT_add_node)(by_pthread, node);
}

/* The real pthread_create has returned in `parent`: the thread it cloned is
 * the last child Valgrind saw that parent create (a thread cannot create
 * two threads within one pthread_create). */
void rp_threads_created(ThreadId parent, UWord child_pthread, Bool detached)
{
    rp_tid_t child = threads[rp_threads_of_vg(parent)].last_child;

    tl_assert(child != RP_NO_THREAD);
    map_pthread(child_pthread, child);
    if (detached)
        detach(child);
}

void rp_threads_self(ThreadId vg_tid, UWord pthread)
{
    map_pthread(pthread, rp_threads_of_vg(vg_tid));
}

/* `joiner` is about to call the real pthread_join.
 *
 * Where the JOIN edge goes: glibc's pthread_join reads the child's struct
 * pthread (its result, its state) as soon as it wakes up, before the
 * wrapper gets control back.  An edge emitted after the real call would
 * come after those reads, and every read of what the child wrote would
 * look unordered.  So the edge goes in before the joiner runs anything of
 * the real call: right now if the child has already exited, otherwise at
 * the child's ll_exit (on_ll_exit), which Valgrind runs after the child's
 * last access and before the joiner can be woken. */
void rp_threads_join_pre(ThreadId joiner, UWord child_pthread)
{
    rp_pthread_node *node = VG_(HT_lookup)(by_pthread, child_pthread);
    rp_tid_t joiner_rp = rp_threads_of_vg(joiner);
    rp_thread *child;

    /* Not a thread we saw created: the real call will fail (ESRCH). */
    if (node == NULL)
        return;
    child = &threads[node->rp_tid];
    if (child->joined || child->detached)
        return;
    if (child->exited)
        emit_join(joiner_rp, node->rp_tid);
    else
        child->waiting_joiner = joiner_rp;
}

/* The child has exited (the join succeeded), so all its events are in the
 * stream; the joiner's libc reads of its struct pthread are not
 * instrumented, so the edge may come after the real call. */
void rp_threads_join_done(ThreadId joiner, UWord child_pthread)
{
    rp_pthread_node *node = VG_(HT_lookup)(by_pthread, child_pthread);

    if (node != NULL && !threads[node->rp_tid].joined && !threads[node->rp_tid].detached)
        emit_join(rp_threads_of_vg(joiner), node->rp_tid);
}
