/* det_wdp.c — the weak-dependence-aware-prediction detector ("wdp"), Genç,
 * Roemer, Xu, Bond OOPSLA'19 §3.2, §5.2 (Alg 2) (seed 001 digest §2 "WDP").
 *
 * What it reports: conflicting accesses (same bytes, different threads, at
 * least one write) with disjoint locksets (rp_locksets.h) that WDP leaves
 * unordered.  WDP is the smallest transitive relation with
 *   (a) r1 before b if e1 ∈ CS(r1) is the last writer of the read e2, e2 is
 *       inside another critical section on the same lock (open or closed),
 *       and b is the first branch of e2's thread after e2 (brDepsOn is
 *       taken as true for every earlier read of the thread, as in the
 *       paper's evaluation);
 *   (b) r1 before r2 (same lock) if the acquire of r1 is before r2;
 *   (c) program order, fork/join and sync send → receive (hard orders).
 * Only a lock-protected write → read under a common lock orders anything
 * across threads, and only from the reader's next branch on: without branch
 * events WDP gives the lockset pairs not ordered by thread order.
 * Complete (Thm 4.1: every predictable race is a WDP race, pair by pair),
 * unsound (a WDP race may be no predictable race, Fig. 2(a): WDP ignores
 * the local data dependence of a read followed by a write of its thread);
 * races need a witness (vindication) before they are errors.
 * observed = the pair is also unordered by HB (an HB clock runs alongside).
 *
 * Clocks (Alg 2 of the paper; rp_vc.h discipline): C(t) the WDP clock,
 * H(t) the HB clock, both with own entry 1 initially and incremented after
 * a release, fork or send.  An earlier access u#k is WDP-before the current
 * access of t iff k <= C(t)[u].
 *   write(t,x)    x's last writer := (t, lockset); x is recorded as written
 *                 in every critical section t has open
 *   read(t,x)     if x's last writer is another thread that held a lock l
 *                 t holds now: B(t) ⊔= L(l,x), the clock of the release of
 *                 the last section on l that wrote x — the last writer's
 *                 (no later section on l can have written x);
 *   branch(t)     C(t) ⊔= B(t), B(t) := ⊥ — nothing to do unless t read
 *                 such a byte since its last branch (the paper's filter:
 *                 a branch after no read changes nothing);
 *   release(t,l)  rule (b) (rp_csrules' per-lock histories); L(l,x) := C(t)
 *                 for every x the section wrote (overwrite: the last
 *                 section wins, Alg 2); increment
 *   acquire(t,l)  H(t) ⊔= H(l) only: WDP has no release → acquire order
 * Read-write locks are not reordered: read-side sections are ordered after
 * the previous exclusive release and before the next exclusive acquire, as
 * hard edges (as in dc).  RP_EV_FORGET forgets the last writers of the
 * bytes (fresh memory has none) and their L(l,x).
 *
 * Cost: per access O(held locks × bytes) map lookups plus the race check
 * (rp_allpairs); per branch O(threads) when something is pending, O(1)
 * otherwise; per release O(bytes written in the section × threads) plus
 * rule (b)'s history work.  Memory: 8 bytes of last writer per byte of
 * shadowed memory, and, bounded as rp_csrules.h says (the same options,
 * counters and summary lines):
 *   - one clock per critical section (rule b, rp_csrules' histories):
 *     dropped once every live thread consumed it — threads that ended
 *     (exited or joined) consume nothing — the rest bounded by
 *     --cs-sections;
 *   - L(l,x), one clock per (lock, byte) written under the lock: dropped
 *     with fresh memory, bounded by --cs-bytes (over it, the locks with the
 *     most lose theirs, counted: a read under the lock then joins nothing
 *     for them — less order);
 *   - an open section's writes (rp_cs_log: repeats merged, at most
 *     --cs-bytes distinct; later ones are not published: less order).
 * Less order keeps WDP's completeness: every race of the unbounded run is
 * still reported (test_history_bounds checks it on random traces).
 */
#include "rp_allpairs.h"
#include "rp_array.h"
#include "rp_clocks.h"
#include "rp_csrules.h"
#include "rp_detector.h"
#include "rp_locksets.h"
#include "rp_shadow.h"
#include "rp_shim.h"

/* The last write of one byte: thread + 1 (0 = none) and its lockset tag. */
typedef struct wdp_writer {
    uint32_t tid_plus_1;
    uint32_t tag;
} wdp_writer;

typedef struct wdp_slot {
    wdp_writer byte[RP_SHADOW_GRANULE_SIZE];
} wdp_slot;

/* An exclusive section a thread has open, and what it wrote so far. */
typedef struct wdp_section {
    uint64_t lock;
    rp_cs_log writes;
} wdp_section;

typedef struct wdp_thread {
    wdp_section *open;
    uint32_t n_open, cap_open;
    bool pending;          /* B(t) holds something for the next branch */
} wdp_thread;

typedef struct wdp_detector {
    rp_allpairs *pairs;
    rp_csrules *cs;
    rp_locksets *locksets;
    rp_shadow *writers;            /* byte → last writer */
    rp_thread_clocks c, h, b;      /* C(t), H(t), B(t) */
    wdp_thread *threads;
    uint32_t n_threads, cap_threads;
    rp_u64map written;             /* lock → rp_u64map byte → L(l,x) */
    uint64_t n_written;            /* (lock, byte) pairs in it */
    rp_u64map h_released;          /* H of the last exclusive release of l */
    rp_u64map c_released;          /* C of it (for read-side acquires) */
    rp_u64map h_read_released;     /* joins of read-side releases of l */
    rp_u64map c_read_released;
    rp_u64map h_sync, c_sync;
    const rp_event *forgetting;    /* the forget being applied */
} wdp_detector;

static wdp_thread *thread_of(wdp_detector *d, rp_tid_t tid)
{
    d->threads = rp_array_extend("rp.wdp.threads", d->threads, tid, &d->n_threads,
                                 &d->cap_threads, sizeof(wdp_thread));
    return &d->threads[tid];
}

static void increment(wdp_detector *d, rp_tid_t tid)
{
    vc_inc(tclocks_get(&d->c, tid), tid);
    vc_inc(tclocks_get(&d->h, tid), tid);
}

/* L(l,x): the clock of the last release of a section on l that wrote x. */
static rp_vc *section_clock(wdp_detector *d, uint64_t lock, uint64_t byte, bool create)
{
    rp_u64map *bytes = u64map_get(&d->written, lock);
    if (bytes == NULL && !create)
        return NULL;
    if (bytes == NULL) {
        bytes = rp_malloc("rp.wdp.bytes", sizeof *bytes);
        u64map_init(bytes);
        u64map_put(&d->written, lock, bytes);
    }
    if (!create)
        return u64map_get(bytes, byte);
    size_t before = bytes->count;
    rp_vc *clock = objclocks_get(bytes, byte);
    d->n_written += bytes->count - before;
    return clock;
}

/* ---- accesses --------------------------------------------------------------- */

static wdp_writer *writer_of(wdp_detector *d, uint64_t byte)
{
    wdp_slot *s = shadow_slot(d->writers, byte >> RP_SHADOW_GRANULE_BITS);
    return &s->byte[byte & (RP_SHADOW_GRANULE_SIZE - 1)];
}

/* Rule (a), first half: remember the last writer's release for t's next
 * branch if the writer is another thread under a lock t holds. */
static void read_byte(wdp_detector *d, const rp_event *e, uint64_t byte)
{
    const wdp_writer *w = writer_of(d, byte);
    wdp_thread *t = thread_of(d, e->tid);
    if (w->tid_plus_1 == 0 || w->tid_plus_1 - 1 == e->tid)
        return;
    for (uint32_t i = 0; i < t->n_open; i++) {
        if (!locksets_holds_exclusive(d->locksets, w->tag, t->open[i].lock))
            continue;
        const rp_vc *released = section_clock(d, t->open[i].lock, byte, false);
        if (released != NULL) {
            vc_join(tclocks_get(&d->b, e->tid), released);
            t->pending = true;
        }
    }
}

static void write_bytes(wdp_detector *d, const rp_event *e, uint32_t tag)
{
    wdp_thread *t = thread_of(d, e->tid);
    for (uint64_t i = 0; i < e->size; i++) {
        wdp_writer *w = writer_of(d, e->obj + i);
        w->tid_plus_1 = e->tid + 1;
        w->tag = tag;
    }
    for (uint32_t i = 0; i < t->n_open; i++)
        cslog_record(&t->open[i].writes, e, csrules_limits(d->cs));
}

static void check_access(wdp_detector *d, const rp_event *e, uint32_t tag)
{
    rp_vc *c = tclocks_get(&d->c, e->tid);
    rp_vc *h = tclocks_get(&d->h, e->tid);
    rp_allpairs_access a = { e, c, vc_get(c, e->tid), h, vc_get(h, e->tid), tag };
    allpairs_access(d->pairs, &a);
}

static void wdp_read(void *self, const rp_event *e)
{
    wdp_detector *d = self;
    for (uint64_t i = 0; i < e->size; i++)
        read_byte(d, e, e->obj + i);
    check_access(d, e, locksets_tag(d->locksets, e->tid));
}

static void wdp_write(void *self, const rp_event *e)
{
    wdp_detector *d = self;
    uint32_t tag = locksets_tag(d->locksets, e->tid);
    write_bytes(d, e, tag);
    check_access(d, e, tag);
}

static void wdp_branch(void *self, const rp_event *e)
{
    wdp_detector *d = self;
    wdp_thread *t = thread_of(d, e->tid);
    if (!t->pending)
        return;
    rp_vc *b = tclocks_get(&d->b, e->tid);
    vc_join(tclocks_get(&d->c, e->tid), b);
    vc_clear(b);
    t->pending = false;
}

/* ---- locks -------------------------------------------------------------------- */

static void wdp_acquire(void *self, const rp_event *e)
{
    wdp_detector *d = self;
    wdp_thread *t = thread_of(d, e->tid);
    rp_vc *c = tclocks_get(&d->c, e->tid);
    rp_vc *h = tclocks_get(&d->h, e->tid);
    vc_join(h, objclocks_get(&d->h_released, e->obj));
    vc_join(h, objclocks_get(&d->h_read_released, e->obj));
    vc_join(c, objclocks_get(&d->c_read_released, e->obj));
    csrules_acquire(d->cs, e->tid, e->obj, vc_get(c, e->tid));
    locksets_acquire(d->locksets, e->tid, e->obj, false);
    t->open = rp_array_reserve_from("rp.wdp.open", t->open, t->n_open, &t->cap_open,
                                    sizeof(wdp_section), 4);
    wdp_section *s = &t->open[t->n_open++];
    s->lock = e->obj;
    rp_memset(&s->writes, 0, sizeof s->writes);
}

/* L(l,x) := C(t) for every byte the section wrote. */
static void publish_writes(wdp_detector *d, const wdp_section *s, const rp_vc *c)
{
    for (uint32_t i = 0; i < s->writes.n; i++) {
        const rp_cs_logged *w = &s->writes.entries[i];
        for (uint64_t j = 0; j < w->size; j++)
            vc_copy(section_clock(d, s->lock, w->addr + j, true), c);
    }
}

static void free_bytes(void *ctx, uint64_t key, void *value);

static void find_most_written(void *ctx, uint64_t lock, void *bytes)
{
    uint64_t *most = ctx;
    if (most[1] == 0 || ((rp_u64map *)bytes)->count > most[1]) {
        most[0] = lock;
        most[1] = ((rp_u64map *)bytes)->count;
    }
}

/* Over the bound on (lock, byte) pairs (rp_csrules.h): the locks with the
 * most lose theirs, down to half the bound.  A read then finds no L(l,x)
 * for them: less order, counted. */
static void enforce_byte_bound(wdp_detector *d)
{
    rp_cs_limits *limits = csrules_limits(d->cs);
    if (limits == NULL || limits->max_bytes == 0 || d->n_written <= limits->max_bytes)
        return;
    while (d->n_written > limits->max_bytes / 2) {
        uint64_t most[2] = { 0, 0 };
        u64map_for_each(&d->written, find_most_written, most);
        rp_u64map *bytes = u64map_remove(&d->written, most[0]);
        limits->dropped_bytes += bytes->count;
        d->n_written -= bytes->count;
        free_bytes(NULL, most[0], bytes);
    }
}

static void close_section(wdp_detector *d, rp_tid_t tid, uint64_t lock, const rp_vc *c)
{
    wdp_thread *t = thread_of(d, tid);
    uint32_t i = t->n_open;
    while (i > 0 && t->open[i - 1].lock != lock)
        i--;
    if (i == 0)
        return;
    publish_writes(d, &t->open[i - 1], c);
    cslog_free(&t->open[i - 1].writes);
    for (uint32_t j = i; j < t->n_open; j++)
        t->open[j - 1] = t->open[j];
    t->n_open--;
}

static void wdp_release(void *self, const rp_event *e)
{
    wdp_detector *d = self;
    rp_vc *c = tclocks_get(&d->c, e->tid);
    rp_vc *h = tclocks_get(&d->h, e->tid);
    csrules_rule_b(d->cs, e->tid, e->obj, c, NULL);
    csrules_release(d->cs, e->tid, e->obj, c);
    close_section(d, e->tid, e->obj, c);
    enforce_byte_bound(d);
    locksets_release(d->locksets, e->tid, e->obj, false);
    vc_copy(objclocks_get(&d->h_released, e->obj), h);
    vc_copy(objclocks_get(&d->c_released, e->obj), c);
    increment(d, e->tid);
}

static void wdp_acquire_shared(void *self, const rp_event *e)
{
    wdp_detector *d = self;
    vc_join(tclocks_get(&d->h, e->tid), objclocks_get(&d->h_released, e->obj));
    vc_join(tclocks_get(&d->c, e->tid), objclocks_get(&d->c_released, e->obj));
    locksets_acquire(d->locksets, e->tid, e->obj, true);
}

static void wdp_release_shared(void *self, const rp_event *e)
{
    wdp_detector *d = self;
    vc_join(objclocks_get(&d->h_read_released, e->obj), tclocks_get(&d->h, e->tid));
    vc_join(objclocks_get(&d->c_read_released, e->obj), tclocks_get(&d->c, e->tid));
    locksets_release(d->locksets, e->tid, e->obj, true);
    increment(d, e->tid);
}

/* ---- threads and hard synchronisation ------------------------------------------ */

static void join_thread(rp_thread_clocks *tc, rp_tid_t into, rp_tid_t from)
{
    tclocks_ensure(tc, into > from ? into : from);
    vc_join(&tc->clock[into], &tc->clock[from]);
}

static void wdp_fork(void *self, const rp_event *e)
{
    wdp_detector *d = self;
    join_thread(&d->c, (rp_tid_t)e->obj, e->tid);
    join_thread(&d->h, (rp_tid_t)e->obj, e->tid);
    csrules_fork(d->cs, e->tid, (rp_tid_t)e->obj);
    increment(d, e->tid);
}

static void wdp_join(void *self, const rp_event *e)
{
    wdp_detector *d = self;
    rp_tid_t joined = (rp_tid_t)e->obj;
    join_thread(&d->c, e->tid, joined);
    join_thread(&d->h, e->tid, joined);
    csrules_join(d->cs, e->tid, joined);
}

static void wdp_sync_send(void *self, const rp_event *e)
{
    wdp_detector *d = self;
    vc_join(objclocks_get(&d->c_sync, e->obj), tclocks_get(&d->c, e->tid));
    vc_join(objclocks_get(&d->h_sync, e->obj), tclocks_get(&d->h, e->tid));
    increment(d, e->tid);
}

static void wdp_sync_recv(void *self, const rp_event *e)
{
    wdp_detector *d = self;
    vc_join(tclocks_get(&d->c, e->tid), objclocks_get(&d->c_sync, e->obj));
    vc_join(tclocks_get(&d->h, e->tid), objclocks_get(&d->h_sync, e->obj));
}

static void forget_writers(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    wdp_slot *s = slot;
    (void)ctx;
    (void)granule;
    for (uint32_t i = 0; i < RP_SHADOW_GRANULE_SIZE; i++)
        if (mask & (1u << i))
            s->byte[i].tid_plus_1 = 0;
}

/* L(l,x) of fresh bytes is never read again (they have no last writer)
 * until a section writes them and sets it anew. */
static void forget_section_clocks(void *ctx, uint64_t lock, void *bytes)
{
    wdp_detector *d = ctx;
    const rp_event *e = d->forgetting;
    size_t before = ((rp_u64map *)bytes)->count;
    (void)lock;
    objclocks_forget(bytes, e->obj, e->size);
    d->n_written -= before - ((rp_u64map *)bytes)->count;
}

static void wdp_forget(void *self, const rp_event *e)
{
    wdp_detector *d = self;
    shadow_clear_range(d->writers, e->obj, e->size, forget_writers, d);
    d->forgetting = e;
    u64map_for_each(&d->written, forget_section_clocks, d);
    allpairs_forget(d->pairs, e);
}

/* The thread's open sections will never be released: their logs go.  Its
 * clocks stay for a later join. */
static void wdp_thread_end(void *self, rp_tid_t tid)
{
    wdp_detector *d = self;
    wdp_thread *t = thread_of(d, tid);
    for (uint32_t i = 0; i < t->n_open; i++)
        cslog_free(&t->open[i].writes);
    t->n_open = 0;
    csrules_thread_end(d->cs, tid);
}

static void wdp_thread_gone(void *self, rp_tid_t tid)
{
    wdp_detector *d = self;
    csrules_thread_gone(d->cs, tid);
    tclocks_release(&d->c, tid);
    tclocks_release(&d->h, tid);
    tclocks_release(&d->b, tid);
}

static void wdp_kept(void *self, rp_history_stats *stats)
{
    wdp_detector *d = self;
    csrules_kept(d->cs, stats);
    stats->bytes += d->n_written;
}

static void wdp_finish(void *self)
{
    wdp_detector *d = self;
    allpairs_finish(d->pairs);
}

/* ---- life cycle --------------------------------------------------------------- */

static void consumer_clocks(void *self, rp_tid_t tid, const rp_vc **order, const rp_vc **also)
{
    *order = tclocks_peek(&((wdp_detector *)self)->c, tid);
    *also = NULL;
}

static void *wdp_create(const rp_detector_env *env)
{
    wdp_detector *d = rp_calloc("rp.wdp", 1, sizeof *d);
    d->locksets = locksets_create();
    rp_allpairs_config config = { "wdp", locksets_disjoint, locksets_may_evict, d->locksets,
                                  false, NULL };
    d->pairs = allpairs_create(env, &config);
    d->cs = csrules_create(true);
    csrules_set_clocks(d->cs, consumer_clocks, d);
    d->writers = shadow_create(sizeof(wdp_slot));
    tclocks_init(&d->c, 1);
    tclocks_init(&d->h, 1);
    tclocks_init(&d->b, 0);
    u64map_init(&d->written);
    u64map_init(&d->h_released);
    u64map_init(&d->c_released);
    u64map_init(&d->h_read_released);
    u64map_init(&d->c_read_released);
    u64map_init(&d->h_sync);
    u64map_init(&d->c_sync);
    return d;
}

static void free_bytes(void *ctx, uint64_t key, void *value)
{
    (void)ctx;
    (void)key;
    objclocks_free(value);
    rp_free(value);
}

static void wdp_destroy(void *self)
{
    wdp_detector *d = self;
    if (d == NULL)
        return;
    allpairs_destroy(d->pairs);
    csrules_destroy(d->cs);
    locksets_destroy(d->locksets);
    shadow_destroy(d->writers);
    tclocks_free(&d->c);
    tclocks_free(&d->h);
    tclocks_free(&d->b);
    for (uint32_t t = 0; t < d->n_threads; t++) {
        for (uint32_t i = 0; i < d->threads[t].n_open; i++)
            cslog_free(&d->threads[t].open[i].writes);
        rp_free(d->threads[t].open);
    }
    rp_free(d->threads);
    u64map_for_each(&d->written, free_bytes, NULL);
    u64map_free(&d->written);
    objclocks_free(&d->h_released);
    objclocks_free(&d->c_released);
    objclocks_free(&d->h_read_released);
    objclocks_free(&d->c_read_released);
    objclocks_free(&d->h_sync);
    objclocks_free(&d->c_sync);
    rp_free(d);
}

const rp_detector_ops rp_det_wdp = {
    .name = "wdp",
    .summary = "weak dependence-aware prediction (Genc et al. OOPSLA'19): complete, unsound "
               "without vindication; uses branch events",
    .needs_branches = true,
    .predictive = true,
    .create = wdp_create,
    .destroy = wdp_destroy,
    .read = wdp_read,
    .write = wdp_write,
    .acquire = wdp_acquire,
    .release = wdp_release,
    .acquire_shared = wdp_acquire_shared,
    .release_shared = wdp_release_shared,
    .fork = wdp_fork,
    .join = wdp_join,
    .branch = wdp_branch,
    .sync_send = wdp_sync_send,
    .sync_recv = wdp_sync_recv,
    .forget = wdp_forget,
    .last_writer = allpairs_detector_last_writer,
    .finish = wdp_finish,
    .thread_end = wdp_thread_end,
    .thread_gone = wdp_thread_gone,
    .kept = wdp_kept,
};
