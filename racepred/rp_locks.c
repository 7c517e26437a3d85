/* rp_locks.c — per-lock owner, depths and readers; per-thread held
 * locks as lockset ids; see rp_locks.h. */
#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "rp_locks.h"
#include "rp_site.h"
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
    ExeContext *first_observed;
} rp_lock_node;

static VgHashTable *locks;

ULong rp_site_current_tag;

/* ---- Locksets: sorted sets of lock addresses, interned -------------- */

typedef struct {
    struct _VgHashNode *next;
    UWord key;              /* hash of the addresses */
    UInt n;
    UInt id;
    Addr *addrs;            /* sorted ascending */
} rp_lockset;

static VgHashTable *locksets;
static rp_lockset **lockset_by_id;  /* [id - 1] */
static UInt n_locksets;

/* The locks a thread holds now (either side) and their lockset id,
 * shifted into site position. */
typedef struct {
    Addr *held;
    UInt n_held;
    UInt held_capacity;
    ULong tag;
} rp_holder;

static rp_holder *holders;
static rp_tid_t n_holders;

void rp_locks_init(void)
{
    locks = VG_(HT_construct)("rp.locks.locks");
    locksets = VG_(HT_construct)("rp.locks.locksets");
}

static UWord hash_addrs(const Addr *addrs, UInt n)
{
    UWord h = n;
    UInt i;

    for (i = 0; i < n; i++)
        h = h * 1000003 + addrs[i];
    return h;
}

static Word lockset_cmp(const void *a, const void *b)
{
    const rp_lockset *x = a;
    const rp_lockset *y = b;

    if (x->n != y->n)
        return 1;
    return VG_(memcmp)(x->addrs, y->addrs, x->n * sizeof(Addr)) != 0;
}

/* The id of a sorted set of locks; 0 for the empty set. */
static UInt intern(const Addr *addrs, UInt n)
{
    rp_lockset probe, *found;

    if (n == 0)
        return 0;
    probe.key = hash_addrs(addrs, n);
    probe.n = n;
    probe.addrs = (Addr *)addrs;
    found = VG_(HT_gen_lookup)(locksets, &probe, lockset_cmp);
    if (found != NULL)
        return found->id;
    if (n_locksets + 1 >= RP_SITE_LOCKSET_MAX)
        return RP_SITE_LOCKSET_MAX;
    found = VG_(malloc)("rp.locks.lockset", sizeof *found);
    *found = probe;
    found->addrs = VG_(malloc)("rp.locks.lockset.addrs", n * sizeof(Addr));
    VG_(memcpy)(found->addrs, addrs, n * sizeof(Addr));
    found->id = ++n_locksets;
    lockset_by_id = VG_(realloc)("rp.locks.lockset_by_id", lockset_by_id,
                                 n_locksets * sizeof *lockset_by_id);
    lockset_by_id[n_locksets - 1] = found;
    VG_(HT_add_node)(locksets, found);
    return found->id;
}

const Addr *rp_locks_lockset(UInt id, UInt *n)
{
    if (id == 0 || id > n_locksets) {
        *n = 0;
        return NULL;
    }
    *n = lockset_by_id[id - 1]->n;
    return lockset_by_id[id - 1]->addrs;
}

static rp_holder *holder(rp_tid_t tid)
{
    if (tid >= n_holders)
        holders = rp_tool_grow_zeroed("rp.locks.holders", holders, &n_holders, tid,
                                      sizeof *holders);
    return &holders[tid];
}

ULong rp_locks_tag(rp_tid_t tid)
{
    return tid < n_holders ? holders[tid].tag : 0;
}

static void retag(rp_tid_t tid, rp_holder *h)
{
    h->tag = (ULong)intern(h->held, h->n_held) << RP_SITE_LOCKSET_SHIFT;
    if (tid == rp_threads_current)
        rp_site_current_tag = h->tag;
}

/* `tid` now holds `lock` (kept sorted; a thread holds few locks). */
static void hold(rp_tid_t tid, Addr lock)
{
    rp_holder *h = holder(tid);
    UInt i;

    if (h->n_held == h->held_capacity) {
        h->held_capacity = h->held_capacity ? 2 * h->held_capacity : 4;
        h->held = VG_(realloc)("rp.locks.held", h->held,
                               h->held_capacity * sizeof *h->held);
    }
    for (i = h->n_held; i > 0 && h->held[i - 1] > lock; i--)
        h->held[i] = h->held[i - 1];
    h->held[i] = lock;
    h->n_held++;
    retag(tid, h);
}

static void unhold(rp_tid_t tid, Addr lock)
{
    rp_holder *h = holder(tid);
    UInt i;

    for (i = 0; i < h->n_held && h->held[i] != lock; i++)
        ;
    if (i == h->n_held)
        return;
    for (; i + 1 < h->n_held; i++)
        h->held[i] = h->held[i + 1];
    h->n_held--;
    retag(tid, h);
}

static rp_lock_node *lock_node(Addr lock, ThreadId vg_tid)
{
    rp_lock_node *node = VG_(HT_lookup)(locks, lock);

    if (node == NULL) {
        node = VG_(calloc)("rp.locks.lock", 1, sizeof *node);
        node->key = lock;
        node->first_observed = VG_(record_ExeContext)(vg_tid, 0);
        VG_(HT_add_node)(locks, node);
    }
    return node;
}

ExeContext *rp_locks_first_observed(Addr lock)
{
    rp_lock_node *node = VG_(HT_lookup)(locks, lock);

    return node != NULL ? node->first_observed : NULL;
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
    hold(tid, node->key);
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
    if (node->depth > 0)
        unhold(node->owner, node->key);
    node->owner = tid;
    node->depth = 1;
    hold(tid, node->key);
    rp_tool_emit(RP_EV_ACQUIRE, tid, node->key, 0, 0);
}

void rp_locks_acquired(ThreadId vg_tid, Addr lock, Bool shared)
{
    rp_tid_t tid = rp_threads_of_vg(vg_tid);
    rp_lock_node *node = lock_node(lock, vg_tid);

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
        if (--node->depth == 0) {
            unhold(tid, lock);
            rp_tool_emit(RP_EV_RELEASE, tid, lock, 0, 0);
        }
        return;
    }
    r = find_reader(node, tid);
    if (r == NULL || --r->depth > 0)
        return;
    *r = node->readers[--node->n_readers];
    unhold(tid, lock);
    rp_tool_emit(RP_EV_RELEASE_SHARED, tid, lock, 0, 0);
}
