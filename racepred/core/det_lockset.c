/* det_lockset.c — the lockset detector ("lockset"), seed 002 (tutorial).
 *
 * What it reports: "possible" races — conflicting accesses (same bytes,
 * different threads, at least one write) whose locksets are disjoint and
 * that are not ordered by thread order: program order, fork/join and the
 * hard synchronisation of sync send/receive (the tutorial's Go "LS"
 * predictor, TSan-v1-like; the `lockset` relation of the trace vectors).
 * The lockset of an access is the set of locks its thread holds, in either
 * mode (a read-side rwlock hold counts).  Unsound by design: disjoint
 * locksets do not mean the accesses can meet (another order may forbid it),
 * so these races are never "observed" and never errors by default.
 * Complete for lock-based protection: a predictable race of two accesses
 * with no common lock is always reported.
 *
 * Clocks: only thread order (FastTrack discipline, rp_vc.h): Th(t)[t] = 1
 * initially, fork and send increment the sender after exporting, join and
 * receive join.  An access with epoch t#k is ordered before the current
 * access of thread u iff k <= Th(u)[t].
 *
 * Accesses go through rp_allpairs with the lockset as tag: a pair is
 * reported only if the tags are disjoint, and a cell may be evicted only by
 * an access whose lockset is a subset of the cell's (then every access that
 * would race with the evicted cell races with the evicting one, which keeps
 * at least one partner per racy access online).  Locksets are interned:
 * tag = index into a table of distinct sorted lock arrays, 0 = empty.
 *
 * Cost: O(threads) per fork/join/send/receive; O(held locks) per acquire
 * and release; per access O(cells) lockset comparisons, where cells may
 * grow with the number of distinct locksets that access a granule.
 */
#include "rp_allpairs.h"
#include "rp_array.h"
#include "rp_clocks.h"
#include "rp_detector.h"
#include "rp_shim.h"

#define NO_SET UINT32_MAX

typedef struct ls_set {
    uint64_t *locks;       /* sorted, distinct */
    uint32_t n;
    uint32_t next_same_hash;
    uint64_t hash;
} ls_set;

/* Locks a thread holds, sorted, with hold counts (rwlock readers nest). */
typedef struct ls_held {
    uint64_t *locks;
    uint32_t *counts;
    uint32_t n, cap;
    uint32_t tag;
} ls_held;

typedef struct ls_detector {
    rp_allpairs *pairs;
    rp_thread_clocks threads;
    rp_u64map sync_objects;
    ls_held *held;
    uint32_t n_held, cap_held;
    ls_set *sets;
    uint32_t n_sets, cap_sets;
    rp_u64map set_by_hash;     /* hash → 1 + index of the first set with it */
} ls_detector;

/* ---- interned locksets ------------------------------------------------------ */

static uint64_t hash_locks(const uint64_t *locks, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ locks[i]) * 0x100000001b3ull;
    return h;
}

static bool same_locks(const ls_set *s, const uint64_t *locks, uint32_t n)
{
    return s->n == n && rp_memcmp(s->locks, locks, n * sizeof(uint64_t)) == 0;
}

static uint32_t add_set(ls_detector *d, const uint64_t *locks, uint32_t n, uint64_t hash,
                        uint32_t next)
{
    d->sets = rp_array_reserve_from("rp.lockset.sets", d->sets, d->n_sets, &d->cap_sets,
                                    sizeof(ls_set), 16);
    ls_set *s = &d->sets[d->n_sets];
    s->locks = rp_malloc("rp.lockset.locks", n * sizeof(uint64_t));
    rp_memcpy(s->locks, locks, n * sizeof(uint64_t));
    s->n = n;
    s->hash = hash;
    s->next_same_hash = next;
    return d->n_sets++;
}

/* The tag of a sorted lock array (interned on first use). */
static uint32_t intern(ls_detector *d, const uint64_t *locks, uint32_t n)
{
    uint64_t hash = hash_locks(locks, n);
    uintptr_t first = (uintptr_t)u64map_get(&d->set_by_hash, hash);
    uint32_t i = first == 0 ? NO_SET : (uint32_t)(first - 1);
    for (; i != NO_SET; i = d->sets[i].next_same_hash)
        if (same_locks(&d->sets[i], locks, n))
            return i;
    uint32_t tag = add_set(d, locks, n, hash, first == 0 ? NO_SET : (uint32_t)(first - 1));
    u64map_put(&d->set_by_hash, hash, (void *)(uintptr_t)(tag + 1));
    return tag;
}

static bool disjoint(void *ctx, uint32_t first_tag, uint32_t second_tag)
{
    const ls_detector *d = ctx;
    const ls_set *a = &d->sets[first_tag], *b = &d->sets[second_tag];
    for (uint32_t i = 0, j = 0; i < a->n && j < b->n;) {
        if (a->locks[i] == b->locks[j])
            return false;
        if (a->locks[i] < b->locks[j])
            i++;
        else
            j++;
    }
    return true;
}

/* May an access with lockset new_tag evict one with old_tag?  Iff new ⊆ old. */
static bool subset(void *ctx, uint32_t old_tag, uint32_t new_tag)
{
    const ls_detector *d = ctx;
    const ls_set *old = &d->sets[old_tag], *new = &d->sets[new_tag];
    uint32_t j = 0;
    for (uint32_t i = 0; i < new->n; i++) {
        while (j < old->n && old->locks[j] < new->locks[i])
            j++;
        if (j == old->n || old->locks[j] != new->locks[i])
            return false;
    }
    return true;
}

/* ---- held locks ------------------------------------------------------------- */

static ls_held *held_of(ls_detector *d, rp_tid_t tid)
{
    d->held = rp_array_extend("rp.lockset.held", d->held, tid, &d->n_held, &d->cap_held,
                              sizeof(ls_held));
    return &d->held[tid];
}

static uint32_t held_position(const ls_held *h, uint64_t lock)
{
    uint32_t i = 0;
    while (i < h->n && h->locks[i] < lock)
        i++;
    return i;
}

static void held_insert(ls_held *h, uint32_t i, uint64_t lock)
{
    if (h->n == h->cap) {
        h->cap = h->cap == 0 ? 4 : 2 * h->cap;
        h->locks = rp_realloc("rp.lockset.held", h->locks, h->cap * sizeof(uint64_t));
        h->counts = rp_realloc("rp.lockset.held", h->counts, h->cap * sizeof(uint32_t));
    }
    for (uint32_t j = h->n; j > i; j--) {
        h->locks[j] = h->locks[j - 1];
        h->counts[j] = h->counts[j - 1];
    }
    h->locks[i] = lock;
    h->counts[i] = 0;
    h->n++;
}

static void held_remove(ls_held *h, uint32_t i)
{
    for (uint32_t j = i + 1; j < h->n; j++) {
        h->locks[j - 1] = h->locks[j];
        h->counts[j - 1] = h->counts[j];
    }
    h->n--;
}

static void ls_acquire(void *self, const rp_event *e)
{
    ls_detector *d = self;
    ls_held *h = held_of(d, e->tid);
    uint32_t i = held_position(h, e->obj);
    if (i == h->n || h->locks[i] != e->obj) {
        held_insert(h, i, e->obj);
        h->tag = intern(d, h->locks, h->n);
    }
    h->counts[i]++;
}

static void ls_release(void *self, const rp_event *e)
{
    ls_detector *d = self;
    ls_held *h = held_of(d, e->tid);
    uint32_t i = held_position(h, e->obj);
    if (i == h->n || h->locks[i] != e->obj || --h->counts[i] != 0)
        return;
    held_remove(h, i);
    h->tag = intern(d, h->locks, h->n);
}

/* ---- thread order ----------------------------------------------------------- */

static void ls_fork(void *self, const rp_event *e)
{
    ls_detector *d = self;
    rp_tid_t child = (rp_tid_t)e->obj;
    tclocks_ensure(&d->threads, child > e->tid ? child : e->tid);
    vc_join(&d->threads.clock[child], &d->threads.clock[e->tid]);
    vc_inc(&d->threads.clock[e->tid], e->tid);
}

static void ls_join(void *self, const rp_event *e)
{
    ls_detector *d = self;
    rp_tid_t joined = (rp_tid_t)e->obj;
    tclocks_ensure(&d->threads, joined > e->tid ? joined : e->tid);
    vc_join(&d->threads.clock[e->tid], &d->threads.clock[joined]);
}

static void ls_thread_gone(void *self, rp_tid_t tid)
{
    tclocks_release(&((ls_detector *)self)->threads, tid);
}

static void ls_sync_send(void *self, const rp_event *e)
{
    ls_detector *d = self;
    rp_vc *th = tclocks_get(&d->threads, e->tid);
    vc_join(objclocks_get(&d->sync_objects, e->obj), th);
    vc_inc(th, e->tid);
}

static void ls_sync_recv(void *self, const rp_event *e)
{
    ls_detector *d = self;
    vc_join(tclocks_get(&d->threads, e->tid), objclocks_get(&d->sync_objects, e->obj));
}

/* ---- accesses --------------------------------------------------------------- */

static void ls_access(void *self, const rp_event *e)
{
    ls_detector *d = self;
    rp_vc *th = tclocks_get(&d->threads, e->tid);
    rp_allpairs_access a = { e, th, vc_get(th, e->tid), NULL, 0, held_of(d, e->tid)->tag };
    allpairs_access(d->pairs, &a);
}

static void ls_forget(void *self, const rp_event *e)
{
    ls_detector *d = self;
    allpairs_forget(d->pairs, e);
}

static void ls_finish(void *self)
{
    ls_detector *d = self;
    allpairs_finish(d->pairs);
}

/* ---- life cycle --------------------------------------------------------------- */

static void *ls_create(const rp_detector_env *env)
{
    ls_detector *d = rp_calloc("rp.lockset", 1, sizeof *d);
    rp_allpairs_config config = { "lockset", disjoint, subset, d, false, NULL };
    d->pairs = allpairs_create(env, &config);
    tclocks_init(&d->threads, 1);
    u64map_init(&d->sync_objects);
    u64map_init(&d->set_by_hash);
    intern(d, NULL, 0);
    return d;
}

static void ls_destroy(void *self)
{
    ls_detector *d = self;
    if (d == NULL)
        return;
    allpairs_destroy(d->pairs);
    tclocks_free(&d->threads);
    objclocks_free(&d->sync_objects);
    for (uint32_t t = 0; t < d->n_held; t++) {
        rp_free(d->held[t].locks);
        rp_free(d->held[t].counts);
    }
    rp_free(d->held);
    for (uint32_t i = 0; i < d->n_sets; i++)
        rp_free(d->sets[i].locks);
    rp_free(d->sets);
    u64map_free(&d->set_by_hash);
    rp_free(d);
}

const rp_detector_ops rp_det_lockset = {
    .name = "lockset",
    .summary = "lockset (tutorial, seed 002): disjoint locksets, not ordered by thread order; "
               "possible races, unsound",
    .needs_branches = false,
    .repeat_safe = true,
    .predictive = true,
    .create = ls_create,
    .destroy = ls_destroy,
    .read = ls_access,
    .write = ls_access,
    .acquire = ls_acquire,
    .release = ls_release,
    .acquire_shared = ls_acquire,
    .release_shared = ls_release,
    .fork = ls_fork,
    .join = ls_join,
    .thread_gone = ls_thread_gone,
    .branch = NULL,
    .sync_send = ls_sync_send,
    .sync_recv = ls_sync_recv,
    .forget = ls_forget,
    .last_writer = allpairs_detector_last_writer,
    .finish = ls_finish,
};
