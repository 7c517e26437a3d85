/* rp_locks.c — per-mutex owner and depth; see rp_locks.h. */
#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_mallocfree.h"

#include "rp_locks.h"
#include "rp_threads.h"
#include "rp_tool.h"

typedef struct {
    struct _VgHashNode *next;
    UWord key;              /* the mutex address */
    rp_tid_t owner;
    UWord depth;            /* 0: free */
} rp_mutex_node;

static VgHashTable *mutexes;

void rp_locks_init(void)
{
    mutexes = VG_(HT_construct)("rp.locks.mutexes");
}

void rp_locks_acquired(ThreadId vg_tid, Addr mutex)
{
    rp_tid_t tid = rp_threads_of_vg(vg_tid);
    rp_mutex_node *node = VG_(HT_lookup)(mutexes, mutex);

    if (node == NULL) {
        node = VG_(malloc)("rp.locks.mutex", sizeof *node);
        node->key = mutex;
        node->depth = 0;
        VG_(HT_add_node)(mutexes, node);
    }
    if (node->depth > 0 && node->owner == tid) {
        node->depth++;
        return;
    }
    /* A lock that succeeded while we believed another thread held it
     * means we missed that thread's unlock (an unlock path we do not
     * wrap); the new owner starts afresh. */
    node->owner = tid;
    node->depth = 1;
    rp_tool_emit(RP_EV_ACQUIRE, tid, mutex, 0, 0);
}

void rp_locks_release_pre(ThreadId vg_tid, Addr mutex)
{
    rp_tid_t tid = rp_threads_of_vg(vg_tid);
    rp_mutex_node *node = VG_(HT_lookup)(mutexes, mutex);

    /* Unlocking a mutex this thread does not hold releases nothing: the
     * real call fails (error-checking and recursive mutexes) or the
     * program is undefined anyway. */
    if (node == NULL || node->depth == 0 || node->owner != tid)
        return;
    if (--node->depth == 0)
        rp_tool_emit(RP_EV_RELEASE, tid, mutex, 0, 0);
}
