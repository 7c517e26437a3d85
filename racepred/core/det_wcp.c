/* det_wcp.c — the weak-causal-precedence detector ("wcp"), Kini, Mathur,
 * Viswanathan PLDI'17 (seed 001 §2 "WCP"; seeds 003/004 digests).
 *
 * What it reports: conflicting accesses (same bytes, different threads, at
 * least one write) ordered neither by WCP nor by thread order (program
 * order, fork/join, sync send → receive).  WCP is the smallest relation
 * with
 *   (a) r1 before e2 if e1 ∈ CS(r1) and e2 ∈ CS(r2) conflict, r1 and r2 on
 *       the same lock, r1 earlier (the second section may be still open);
 *   (b) r1 before r2 (same lock) if the acquire of r1 is WCP-before r2;
 *   (c) closed under composition with HB on both sides.
 * Sound for the first race (Kini et al. Thm 1: a WCP race implies a
 * predictable race or a predictable deadlock); later pairs may be false.
 * Reports every HB race and more, in linear time.  observed = HB-unordered.
 *
 * Choice on rule (a) for two sections of the same thread: the published
 * vector-clock algorithm joins L^w_{l,x} / L^r_{l,x} whatever thread
 * released them, so an access is ordered after its own thread's earlier
 * conflicting sections' releases, and, by HB composition, after what
 * happened before them.  racepred follows the published algorithm (as the
 * seed 003/004 references do); seed 001's definition excludes same-thread
 * sections and can report more (traces/README.md, "Cross-script
 * disagreements").  No trace vector depends on the difference.
 *
 * Clocks (published algorithm, Alg 1 of the paper; rp_vc.h discipline):
 *   H(t)  HB clock: own entry 1 initially, incremented after a release,
 *         fork or send;
 *   P(t)  WCP predecessors: t's events strictly WCP-before the current one;
 *   C(t)  P(t) ⊔ thread order: what the race check uses.  C(t)[t] = H(t)[t].
 * An access takes epoch t#H(t)[t]; an earlier access u#k is ordered before
 * the current access of t iff k <= C(t)[u].
 *   acquire(t,l)  H ⊔= H_l; P, C ⊔= P_l (right composition with HB);
 *                 record the acquire's epoch for rule (b)
 *   access        rule (a): P, C ⊔= H-clocks of the releases of conflicting
 *                 sections on held locks (left composition with HB)
 *   release(t,l)  rule (b): P, C ⊔= H-clocks of other threads' sections
 *                 whose acquire epoch is <= P[their thread], to fixpoint;
 *                 publish the section's accesses with H; H_l := H;
 *                 P_l := P; increment
 *   fork/join/send/receive  join all three clocks (hard edges)
 * Read-write locks are not reordered: read-side sections are hard-ordered
 * after the previous exclusive release and before the next exclusive
 * acquire (sound; it may hide races between read and write sides).
 *
 * Cost: O(threads) per synchronisation event; per access O(threads × held
 * locks × bytes) plus the race check (rp_allpairs); memory as rp_csrules.h.
 */
#include "rp_allpairs.h"
#include "rp_clocks.h"
#include "rp_csrules.h"
#include "rp_detector.h"
#include "rp_shim.h"

/* The three clocks a synchronisation object passes on. */
typedef struct wcp_clocks {
    rp_vc h, p, c;
} wcp_clocks;

typedef struct wcp_detector {
    rp_allpairs *pairs;
    rp_csrules *cs;
    rp_thread_clocks h, p, c;
    rp_u64map released;        /* lock → wcp_clocks of its last exclusive release */
    rp_u64map read_released;   /* lock → joins of its read-side releases */
    rp_u64map sync_objects;    /* object → joins of its sends */
} wcp_detector;

typedef struct wcp_thread {
    rp_vc *h, *p, *c;
} wcp_thread;

/* The clocks of tid; valid until the tables grow. */
static wcp_thread thread_of(wcp_detector *d, rp_tid_t tid)
{
    wcp_thread t;
    tclocks_ensure(&d->h, tid);
    tclocks_ensure(&d->p, tid);
    tclocks_ensure(&d->c, tid);
    t.h = &d->h.clock[tid];
    t.p = &d->p.clock[tid];
    t.c = &d->c.clock[tid];
    return t;
}

static wcp_clocks *object_of(rp_u64map *m, uint64_t obj)
{
    wcp_clocks *o = u64map_get(m, obj);
    if (o == NULL) {
        o = rp_malloc("rp.wcp.object", sizeof *o);
        vc_init(&o->h);
        vc_init(&o->p);
        vc_init(&o->c);
        u64map_put(m, obj, o);
    }
    return o;
}

/* A hard edge: everything passes. */
static void import_all(wcp_thread t, const wcp_clocks *o)
{
    vc_join(t.h, &o->h);
    vc_join(t.p, &o->p);
    vc_join(t.c, &o->c);
}

static void export_all(wcp_clocks *o, wcp_thread t)
{
    vc_join(&o->h, t.h);
    vc_join(&o->p, t.p);
    vc_join(&o->c, t.c);
}

static void increment(wcp_thread t, rp_tid_t tid)
{
    vc_inc(t.h, tid);
    vc_inc(t.c, tid);
}

/* ---- accesses --------------------------------------------------------------- */

static void wcp_access(void *self, const rp_event *e)
{
    wcp_detector *d = self;
    wcp_thread t = thread_of(d, e->tid);
    csrules_access(d->cs, e, t.p, t.c);
    uint32_t epoch = vc_get(t.h, e->tid);
    rp_allpairs_access a = { e, t.c, epoch, t.h, epoch, 0 };
    allpairs_access(d->pairs, &a);
}

/* A racy read (env.racy_reads_order): ordered after the writer's epochs
 * before the write's (rp_allpairs_read_from_fn),
 * in HB and in WCP (whose epochs are HB's). */
static void wcp_read_from(void *self, rp_tid_t reader, rp_tid_t writer, uint32_t clock,
                          uint32_t hb_clock)
{
    wcp_detector *d = self;
    wcp_thread t = thread_of(d, reader);
    (void)clock;
    vc_raise(t.h, writer, hb_clock);
    vc_raise(t.c, writer, hb_clock);
}

/* ---- locks -------------------------------------------------------------------- */

static void wcp_acquire(void *self, const rp_event *e)
{
    wcp_detector *d = self;
    wcp_thread t = thread_of(d, e->tid);
    const wcp_clocks *last = object_of(&d->released, e->obj);
    vc_join(t.h, &last->h);
    vc_join(t.p, &last->p);
    vc_join(t.c, &last->p);
    import_all(t, object_of(&d->read_released, e->obj));
    csrules_acquire(d->cs, e->tid, e->obj, vc_get(t.h, e->tid));
}

static void wcp_release(void *self, const rp_event *e)
{
    wcp_detector *d = self;
    wcp_thread t = thread_of(d, e->tid);
    wcp_clocks *last = object_of(&d->released, e->obj);
    csrules_rule_b(d->cs, e->tid, e->obj, t.p, t.c);
    csrules_release(d->cs, e->tid, e->obj, t.h);
    vc_copy(&last->h, t.h);
    vc_copy(&last->p, t.p);
    vc_copy(&last->c, t.c);
    increment(t, e->tid);
}

static void wcp_acquire_shared(void *self, const rp_event *e)
{
    wcp_detector *d = self;
    import_all(thread_of(d, e->tid), object_of(&d->released, e->obj));
}

static void wcp_release_shared(void *self, const rp_event *e)
{
    wcp_detector *d = self;
    wcp_thread t = thread_of(d, e->tid);
    export_all(object_of(&d->read_released, e->obj), t);
    increment(t, e->tid);
}

/* ---- threads and hard synchronisation ------------------------------------------ */

static void join_threads(wcp_detector *d, rp_tid_t into, rp_tid_t from)
{
    rp_tid_t max = into > from ? into : from;
    thread_of(d, max);
    vc_join(&d->h.clock[into], &d->h.clock[from]);
    vc_join(&d->p.clock[into], &d->p.clock[from]);
    vc_join(&d->c.clock[into], &d->c.clock[from]);
}

static void wcp_fork(void *self, const rp_event *e)
{
    wcp_detector *d = self;
    join_threads(d, (rp_tid_t)e->obj, e->tid);
    csrules_fork(d->cs, e->tid, (rp_tid_t)e->obj);
    increment(thread_of(d, e->tid), e->tid);
}

static void wcp_join(void *self, const rp_event *e)
{
    wcp_detector *d = self;
    rp_tid_t joined = (rp_tid_t)e->obj;
    join_threads(d, e->tid, joined);
    csrules_join(d->cs, e->tid, joined);
}

static void wcp_thread_end(void *self, rp_tid_t tid)
{
    csrules_thread_end(((wcp_detector *)self)->cs, tid);
}

static void wcp_thread_gone(void *self, rp_tid_t tid)
{
    wcp_detector *d = self;
    csrules_thread_gone(d->cs, tid);
    tclocks_release(&d->h, tid);
    tclocks_release(&d->p, tid);
    tclocks_release(&d->c, tid);
}

static void wcp_kept(void *self, rp_history_stats *stats)
{
    csrules_kept(((wcp_detector *)self)->cs, stats);
}

static void wcp_sync_send(void *self, const rp_event *e)
{
    wcp_detector *d = self;
    wcp_thread t = thread_of(d, e->tid);
    export_all(object_of(&d->sync_objects, e->obj), t);
    increment(t, e->tid);
}

static void wcp_sync_recv(void *self, const rp_event *e)
{
    wcp_detector *d = self;
    import_all(thread_of(d, e->tid), object_of(&d->sync_objects, e->obj));
}

static void wcp_forget(void *self, const rp_event *e)
{
    wcp_detector *d = self;
    csrules_forget(d->cs, e->obj, e->size);
    allpairs_forget(d->pairs, e);
}

static void wcp_finish(void *self)
{
    wcp_detector *d = self;
    allpairs_finish(d->pairs);
}

/* ---- life cycle --------------------------------------------------------------- */

static void consumer_clocks(void *self, rp_tid_t tid, const rp_vc **order, const rp_vc **also)
{
    wcp_detector *d = self;
    *order = tclocks_peek(&d->p, tid);
    *also = tclocks_peek(&d->c, tid);
    if (*also == NULL)
        *order = NULL;
}

static void *wcp_create(const rp_detector_env *env)
{
    wcp_detector *d = rp_calloc("rp.wcp", 1, sizeof *d);
    rp_allpairs_config config = { "wcp", NULL, NULL, d, false,
                                  env->racy_reads_order ? wcp_read_from : NULL };
    d->pairs = allpairs_create(env, &config);
    d->cs = csrules_create(true);
    csrules_set_clocks(d->cs, consumer_clocks, d);
    tclocks_init(&d->h, 1);
    tclocks_init(&d->p, 0);
    tclocks_init(&d->c, 1);
    u64map_init(&d->released);
    u64map_init(&d->read_released);
    u64map_init(&d->sync_objects);
    return d;
}

static void free_object(void *ctx, uint64_t key, void *value)
{
    wcp_clocks *o = value;
    (void)ctx;
    (void)key;
    vc_free(&o->h);
    vc_free(&o->p);
    vc_free(&o->c);
    rp_free(o);
}

static void free_objects(rp_u64map *m)
{
    u64map_for_each(m, free_object, NULL);
    u64map_free(m);
}

static void wcp_destroy(void *self)
{
    wcp_detector *d = self;
    if (d == NULL)
        return;
    allpairs_destroy(d->pairs);
    csrules_destroy(d->cs);
    tclocks_free(&d->h);
    tclocks_free(&d->p);
    tclocks_free(&d->c);
    free_objects(&d->released);
    free_objects(&d->read_released);
    free_objects(&d->sync_objects);
    rp_free(d);
}

const rp_detector_ops rp_det_wcp = {
    .name = "wcp",
    .summary = "weak causal precedence (Kini et al. PLDI'17): sound for the first race, "
               "linear time",
    .needs_branches = false,
    .repeat_safe = true,
    .covers_hb = true,
    .predictive = true,
    .create = wcp_create,
    .destroy = wcp_destroy,
    .read = wcp_access,
    .write = wcp_access,
    .acquire = wcp_acquire,
    .release = wcp_release,
    .acquire_shared = wcp_acquire_shared,
    .release_shared = wcp_release_shared,
    .fork = wcp_fork,
    .join = wcp_join,
    .branch = NULL,
    .sync_send = wcp_sync_send,
    .sync_recv = wcp_sync_recv,
    .forget = wcp_forget,
    .last_writer = allpairs_detector_last_writer,
    .finish = wcp_finish,
    .thread_end = wcp_thread_end,
    .thread_gone = wcp_thread_gone,
    .kept = wcp_kept,
};
