/* rp_tasks.c — OpenMP tasks as threads of their own (rp_tasks.h). */
#include "pub_tool_basics.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

#include "rp_clientreq.h"
#include "rp_heap.h"
#include "rp_tasks.h"
#include "rp_threads.h"
#include "rp_tool.h"
#include "rp_u64map.h"

UInt rp_tasks_max_threads = 16;

/* Synchronisation objects, above every user address and apart from
 * rp_syscalls.c's (bit 62, and small numbers under bit 61). */
#define KEY_TASKS ((1ULL << 63) | (1ULL << 61))
#define KEY_ALL_TASKS KEY_TASKS
#define KEY_CHILDREN(tid) (KEY_TASKS | (1ULL << 60) | (ULong)(tid))
#define KEY_DEPENDENCE(n) (KEY_TASKS | (1ULL << 59) | ((ULong)(n) << 1))
#define NO_TASK_THREAD ((rp_tid_t)-1)

/* A dependence of a task: the objects of its address under its creator,
 * `key` for out tasks, `key | 1` for in tasks. */
typedef struct {
    ULong key;
    Bool is_out;
} task_dependence;

typedef struct {
    Bool in_use, begun;
    rp_tid_t thread;       /* its own, or NO_TASK_THREAD: its runner's */
    rp_tid_t creator;
    rp_tid_t outer;        /* the identity it interrupted, while it runs */
    task_dependence *deps;
    UInt n_deps, cap_deps;
    UInt next_free;        /* free list, index + 1 (0: end) */
    Addr key;              /* the runtime's task (libomp), or 0 */
    SizeT key_len;         /* its bytes the program writes and reads */
} task_record;

static task_record *records;
static UInt cap_records, n_used, first_free;

/* creator thread -> (address -> dependence key). */
static rp_u64map dependence_tables;
/* libomp's task -> its record's index + 1, for tasks of their own
 * threads until they end. */
static rp_u64map records_by_key;
static ULong next_key;

static UInt task_threads;
static Bool unfollowed;

static UWord handle_of(UInt index, Bool own_thread)
{
    return (UWord)(index + 1) << 1 | (own_thread ? 1 : 0);
}

/* The record a handle names, or NULL for anything the tool did not hand
 * out (a client request with a garbage argument changes nothing). */
static task_record *record_of(UWord handle)
{
    UWord index = (handle >> 1) - 1;

    if (handle < 2 || index >= n_used || !records[index].in_use)
        return NULL;
    return &records[index];
}

static UInt record_new(void)
{
    UInt index;

    if (first_free != 0) {
        index = first_free - 1;
        first_free = records[index].next_free;
    } else {
        if (n_used == cap_records)
            records = rp_tool_grow_zeroed("rp.tasks.records", records, &cap_records, n_used,
                                          sizeof *records);
        index = n_used++;
    }
    VG_(memset)(&records[index], 0, sizeof records[index]);
    records[index].in_use = True;
    return index;
}

static void record_free(task_record *r)
{
    if (r->deps != NULL)
        VG_(free)(r->deps);
    VG_(memset)(r, 0, sizeof *r);
    r->next_free = first_free;
    first_free = (UInt)(r - records) + 1;
}

static void emit_sync(rp_event_kind kind, rp_tid_t tid, ULong object)
{
    rp_tool_emit(kind, tid, object, 0, 0);
}

/* ---- dependence objects ----------------------------------------------- */

/* Whether the next task may have a thread of its own. */
static Bool threads_left(void)
{
    return !unfollowed && task_threads < rp_tasks_max_threads;
}

/* The key of `addr` among creator's children; 0 when there is none.
 * `make`: for a task that needs the objects (one of its own thread, or
 * any task while a later one may have a thread of its own): one is made
 * if there was none.  Keys are never used again (an object keeps every
 * clock it received), so there are at most as many as dependences of
 * tasks created before the last task of its own thread: the tasks after
 * it run on their runners' threads, and where no task of its own thread
 * uses an entry, the runtime's own synchronisation orders them. */
static ULong dependence_key(rp_tid_t creator, Addr addr, Bool make)
{
    rp_u64map *table = u64map_get(&dependence_tables, creator);
    ULong key = table != NULL ? (ULong)(UWord)u64map_get(table, addr) : 0;

    if (key != 0 || !make)
        return key;
    if (table == NULL) {
        table = VG_(malloc)("rp.tasks.table", sizeof *table);
        u64map_init(table);
        u64map_put(&dependence_tables, creator, table);
    }
    key = KEY_DEPENDENCE(next_key++);
    u64map_put(table, addr, (void *)(UWord)key);
    return key;
}

/* creator's children have all ended: their dependences order nothing
 * that creator's clock does not. */
static void dependences_drop(rp_tid_t creator)
{
    rp_u64map *table = u64map_remove(&dependence_tables, creator);

    if (table == NULL)
        return;
    u64map_free(table);
    VG_(free)(table);
}

/* Receives what a task (or a `taskwait depend`) with this dependence
 * waits for. */
static void dependence_receive(rp_tid_t tid, ULong key, Bool is_out)
{
    emit_sync(RP_EV_SYNC_RECV, tid, key);
    if (is_out)
        emit_sync(RP_EV_SYNC_RECV, tid, key | 1);
}

/* ---- the requests ----------------------------------------------------- */

/* The most bytes of a runtime's task forgotten at its end: its private
 * copies and shared pointers, not a range a garbage request names. */
#define KEY_LEN_MAX (64UL << 20)

UWord rp_tasks_create(ThreadId vg_tid, UWord flags, Addr key, SizeT key_len)
{
    UInt index;
    task_record *r;
    Bool has_dependences = (flags & RP_TASK_HAS_DEPENDENCES) != 0;
    Bool own = (flags & RP_TASK_ON_RUNNER) == 0 && threads_left();

    /* A task on its runner's thread without dependences: the runtime
     * orders it, nothing to follow. */
    if (!own && !has_dependences)
        return 0;
    index = record_new();
    r = &records[index];
    r->creator = rp_threads_of_vg(vg_tid);
    r->thread = own ? rp_threads_task_new(vg_tid) : NO_TASK_THREAD;
    if (own)
        task_threads++;
    if (own && key != 0) {
        r->key = key;
        r->key_len = key_len <= KEY_LEN_MAX && key + key_len > key ? key_len : 0;
        u64map_put(&records_by_key, key, (void *)(UWord)(index + 1));
    }
    return handle_of(index, own);
}

void rp_tasks_depend(UWord handle, Addr addr, Bool is_out)
{
    task_record *r = record_of(handle);
    ULong key;

    if (r == NULL || r->begun)
        return;
    /* A task on its runner's thread needs the objects too while a later
     * task may have a thread of its own (under libomp, an untied task or a
     * taskloop's chunk among tasks of their own): the runtime orders its
     * end before the runner's next events, not before that task. */
    key = dependence_key(r->creator, addr, r->thread != NO_TASK_THREAD || threads_left());
    if (key == 0)
        return;
    if (r->n_deps == r->cap_deps) {
        r->cap_deps = r->cap_deps ? 2 * r->cap_deps : 4;
        r->deps = VG_(realloc)("rp.tasks.deps", r->deps, r->cap_deps * sizeof *r->deps);
    }
    r->deps[r->n_deps].key = key;
    r->deps[r->n_deps].is_out = is_out;
    r->n_deps++;
}

void rp_tasks_begin(ThreadId vg_tid, UWord handle)
{
    task_record *r = record_of(handle);
    rp_tid_t self;

    if (r == NULL || r->begun)
        return;
    r->begun = True;
    if (r->thread != NO_TASK_THREAD)
        r->outer = rp_threads_task_enter(vg_tid, r->thread);
    self = rp_threads_of_vg(vg_tid);
    for (UInt i = 0; i < r->n_deps; i++)
        dependence_receive(self, r->deps[i].key, r->deps[i].is_out);
}

UWord rp_tasks_begin_key(ThreadId vg_tid, Addr key)
{
    UWord index = (UWord)u64map_get(&records_by_key, key);
    UWord handle;

    if (index == 0)
        return 0;
    handle = handle_of((UInt)index - 1, True);
    rp_tasks_begin(vg_tid, handle);
    return handle;
}

/* A runtime's task is memory it hands out again without malloc: the next
 * task's creator writes where this one read, and nothing orders the two
 * (this task's end reaches only the points that wait for it).  So its
 * bytes are fresh memory once it has ended, as a freed block's. */
static void key_forget(task_record *r, rp_tid_t self)
{
    if (r->key == 0)
        return;
    if (r->key_len > 0)
        rp_heap_fresh(self, r->key, r->key_len);
    if ((UWord)u64map_get(&records_by_key, r->key) == (UWord)(r - records) + 1)
        u64map_remove(&records_by_key, r->key);
}

void rp_tasks_end(ThreadId vg_tid, UWord handle, Bool included)
{
    task_record *r = record_of(handle);
    rp_tid_t self = rp_threads_of_vg(vg_tid);

    /* Only the task running now on this thread can end here. */
    if (r == NULL || !r->begun || (r->thread != NO_TASK_THREAD && r->thread != self))
        return;
    for (UInt i = 0; i < r->n_deps; i++)
        emit_sync(RP_EV_SYNC_SEND, self, r->deps[i].key | (r->deps[i].is_out ? 0 : 1));
    /* Only a task of its own thread tells its creator's taskwait and the
     * barriers: a task on its runner's thread is ordered before them by
     * the runtime's stores when it ends. */
    if (r->thread != NO_TASK_THREAD) {
        emit_sync(RP_EV_SYNC_SEND, self, KEY_CHILDREN(r->creator));
        emit_sync(RP_EV_SYNC_SEND, self, KEY_ALL_TASKS);
        key_forget(r, self);
        dependences_drop(r->thread);
        rp_threads_task_leave(vg_tid, r->thread, r->outer, included);
    }
    record_free(r);
}

void rp_tasks_wait(ThreadId vg_tid)
{
    rp_tid_t self = rp_threads_of_vg(vg_tid);

    emit_sync(RP_EV_SYNC_RECV, self, KEY_CHILDREN(self));
    dependences_drop(self);
}

void rp_tasks_wait_depend(ThreadId vg_tid, Addr addr, Bool is_out)
{
    rp_tid_t self = rp_threads_of_vg(vg_tid);
    ULong key = dependence_key(self, addr, False);

    if (key != 0)
        dependence_receive(self, key, is_out);
}

void rp_tasks_all_done(ThreadId vg_tid)
{
    rp_tid_t self = rp_threads_of_vg(vg_tid);

    emit_sync(RP_EV_SYNC_RECV, self, KEY_ALL_TASKS);
    dependences_drop(self);
}

void rp_tasks_unfollowed(void)
{
    unfollowed = True;
}

void rp_tasks_print_stats(void)
{
    if (task_threads > 0)
        VG_(umsg)("racepred: %u OpenMP tasks ran as threads of their own "
                  "(--omp-task-threads=%u)%s\n", task_threads, rp_tasks_max_threads,
                  unfollowed ? "; then a task with detach: the others on their runners" : "");
}
