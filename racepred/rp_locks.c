/* rp_locks.c — per-lock owner, depths and readers; see rp_locks.h. */
#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_mallocfree.h"

#include "rp_locks.h"
#include "rp_threads.h"
#include "rp_tool.h"

typedef struct {
    rp_tid_t tid;
    UWord depth;
} rp_reader;

typedef struct {
    struct _VgHashNode *next;
    UWord key;              /* the lock's address */
    rp_tid_t owner;         /* exclusive holder, when depth > 0 */
    UWord depth;            /* 0: not held exclusively */
    rp_reader *readers;     /* threads holding the read side */
    UInt n_readers;
    UInt readers_capacity;
} rp_lock_node;

static VgHashTable *locks;

void rp_locks_init(void)
{
    locks = VG_(HT_construct)("rp.locks.locks");
}

static rp_lock_node *lock_node(Addr lock)
{
    rp_lock_node *node = VG_(HT_lookup)(locks, lock);

    if (node == NULL) {
        node = VG_(calloc)("rp.locks.lock", 1, sizeof *node);
        node->key = lock;
        VG_(HT_add_node)(locks, node);
    }
    return node;
}

static rp_reader *find_reader(rp_lock_node *node, rp_tid_t tid)
{
    UInt i;

    for (i = 0; i < node->n_readers; i++)
        if (node->readers[i].tid == tid)
            return &node->readers[i];
    return NULL;
}

static void acquired_shared(rp_lock_node *node, rp_tid_t tid)
{
    rp_reader *r = find_reader(node, tid);

    if (r != NULL) {
        r->depth++;
        return;
    }
    if (node->n_readers == node->readers_capacity) {
        node->readers_capacity = node->readers_capacity ? 2 * node->readers_capacity : 4;
        node->readers = VG_(realloc)("rp.locks.readers", node->readers,
                                     node->readers_capacity * sizeof *node->readers);
    }
    node->readers[node->n_readers].tid = tid;
    node->readers[node->n_readers].depth = 1;
    node->n_readers++;
    rp_tool_emit(RP_EV_ACQUIRE_SHARED, tid, node->key, 0, 0);
}

static void acquired_exclusive(rp_lock_node *node, rp_tid_t tid)
{
    if (node->depth > 0 && node->owner == tid) {
        node->depth++;
        return;
    }
    /* A lock that succeeded while we believed another thread held it
     * means we missed that thread's unlock (an unlock path we do not
     * wrap); the new owner starts afresh. */
    node->owner = tid;
    node->depth = 1;
    rp_tool_emit(RP_EV_ACQUIRE, tid, node->key, 0, 0);
}

void rp_locks_acquired(ThreadId vg_tid, Addr lock, Bool shared)
{
    rp_tid_t tid = rp_threads_of_vg(vg_tid);
    rp_lock_node *node = lock_node(lock);

    if (shared)
        acquired_shared(node, tid);
    else
        acquired_exclusive(node, tid);
}

/* Unlocking a lock this thread does not hold releases nothing: the real
 * call fails (error-checking and recursive mutexes) or the program is
 * undefined anyway. */
void rp_locks_release_pre(ThreadId vg_tid, Addr lock)
{
    rp_tid_t tid = rp_threads_of_vg(vg_tid);
    rp_lock_node *node = VG_(HT_lookup)(locks, lock);
    rp_reader *r;

    if (node == NULL)
        return;
    if (node->depth > 0 && node->owner == tid) {
        if (--node->depth == 0)
            rp_tool_emit(RP_EV_RELEASE, tid, lock, 0, 0);
        return;
    }
    r = find_reader(node, tid);
    if (r == NULL || --r->depth > 0)
        return;
    *r = node->readers[--node->n_readers];
    rp_tool_emit(RP_EV_RELEASE_SHARED, tid, lock, 0, 0);
}
