/* det_dc.c — the doesn't-commute detector ("dc"), Roemer, Genç, Bond
 * PLDI'18 (seed 001 §2 "DC"; seed 003), and the analysis it shares with
 * "wdc" (det_wdc.c).
 *
 * What it reports: conflicting accesses (same bytes, different threads, at
 * least one write) unordered by DC, the smallest transitive relation with
 *   (a) r1 before e2 if e1 ∈ CS(r1) and e2 ∈ CS(r2) conflict, r1 and r2 on
 *       the same lock, r1 earlier (the second section may be still open);
 *   (b) r1 before r2 (same lock) if the acquire of r1 is before r2;
 *   (c) program order, fork/join and sync send → receive (hard orders).
 * DC does not compose with HB, so it is unsound: a DC race may be no
 * predictable race (seed 001 Table 3); it needs vindication before it can
 * be an error.  It is incomplete too, but it reports every WCP race and
 * more.  WDC drops rule (b): more races, same soundness story, cheaper.
 * observed = the pair is also unordered by HB (an HB clock runs alongside).
 *
 * Clocks: C(t) is t's DC clock, FastTrack discipline (rp_vc.h): own entry 1
 * initially, incremented after a release, fork or send; an access does not
 * increment.  An earlier access with epoch u#k is DC-before the current
 * access of thread t iff k <= C(t)[u] (DC contains program order and is
 * transitive, so epochs of release intervals suffice).
 *   acquire(t,l)  record the acquire's epoch for rule (b) (rp_csrules)
 *   access        rule (a): C(t) ⊔= release clocks of conflicting sections
 *                 on held locks (rp_csrules); then the race check
 *   release(t,l)  rule (b) (dc only): C(t) ⊔= release clocks of earlier
 *                 sections whose acquire is DC-before, to fixpoint; publish
 *                 the section's accesses with C(t); increment
 * There is no release→acquire edge: that is what makes DC weaker than HB.
 * Read-write locks are not reordered: read-side sections are ordered after
 * the previous exclusive release and before the next exclusive acquire, as
 * hard edges (sound choice; it may hide races between read-side and
 * write-side sections).
 *
 * Cost: per access O(threads × held locks × bytes) (rp_csrules) plus the
 * race check (rp_allpairs); per release O(threads) plus rule (b)'s queue
 * work; memory as rp_csrules.h says.
 */
#include "det_dc.h"

#include "rp_allpairs.h"
#include "rp_clocks.h"
#include "rp_csrules.h"
#include "rp_shim.h"

typedef struct dc_detector {
    rp_allpairs *pairs;
    rp_csrules *cs;
    rp_thread_clocks dc;           /* C(t) */
    rp_thread_clocks hb;           /* H(t), for rp_race.observed */
    rp_u64map hb_released;         /* H of the last exclusive release of l */
    rp_u64map dc_released;         /* C of the last exclusive release (read side) */
    rp_u64map hb_read_released;    /* joins of read-side releases of l */
    rp_u64map dc_read_released;
    rp_u64map hb_sync;
    rp_u64map dc_sync;
} dc_detector;

/* Both clocks of a thread; *dc and *hb stay valid until the next growth. */
static void clocks_of(dc_detector *d, rp_tid_t tid, rp_vc **dc, rp_vc **hb)
{
    *dc = tclocks_get(&d->dc, tid);
    *hb = tclocks_get(&d->hb, tid);
}

static void increment(dc_detector *d, rp_tid_t tid)
{
    vc_inc(tclocks_get(&d->dc, tid), tid);
    vc_inc(tclocks_get(&d->hb, tid), tid);
}

void dc_access(void *self, const rp_event *e)
{
    dc_detector *d = self;
    rp_vc *dc, *hb;
    clocks_of(d, e->tid, &dc, &hb);
    csrules_access(d->cs, e, dc, NULL);
    rp_allpairs_access a = { e, dc, vc_get(dc, e->tid), hb, vc_get(hb, e->tid), 0 };
    allpairs_access(d->pairs, &a);
}

/* A racy read (env.racy_reads_order): ordered after the writer's epochs
 * before the write's (rp_allpairs_read_from_fn),
 * in DC (or WDC) and in HB. */
static void dc_read_from(void *self, rp_tid_t reader, rp_tid_t writer, uint32_t clock,
                         uint32_t hb_clock)
{
    dc_detector *d = self;
    rp_vc *dc, *hb;
    clocks_of(d, reader, &dc, &hb);
    vc_raise(dc, writer, clock);
    vc_raise(hb, writer, hb_clock);
}

void dc_acquire(void *self, const rp_event *e)
{
    dc_detector *d = self;
    rp_vc *dc, *hb;
    clocks_of(d, e->tid, &dc, &hb);
    vc_join(hb, objclocks_get(&d->hb_released, e->obj));
    vc_join(hb, objclocks_get(&d->hb_read_released, e->obj));
    vc_join(dc, objclocks_get(&d->dc_read_released, e->obj));
    csrules_acquire(d->cs, e->tid, e->obj, vc_get(dc, e->tid));
}

void dc_release(void *self, const rp_event *e)
{
    dc_detector *d = self;
    rp_vc *dc, *hb;
    clocks_of(d, e->tid, &dc, &hb);
    csrules_rule_b(d->cs, e->tid, e->obj, dc, NULL);
    csrules_release(d->cs, e->tid, e->obj, dc);
    vc_copy(objclocks_get(&d->hb_released, e->obj), hb);
    vc_copy(objclocks_get(&d->dc_released, e->obj), dc);
    increment(d, e->tid);
}

void dc_acquire_shared(void *self, const rp_event *e)
{
    dc_detector *d = self;
    rp_vc *dc, *hb;
    clocks_of(d, e->tid, &dc, &hb);
    vc_join(hb, objclocks_get(&d->hb_released, e->obj));
    vc_join(dc, objclocks_get(&d->dc_released, e->obj));
}

void dc_release_shared(void *self, const rp_event *e)
{
    dc_detector *d = self;
    rp_vc *dc, *hb;
    clocks_of(d, e->tid, &dc, &hb);
    vc_join(objclocks_get(&d->hb_read_released, e->obj), hb);
    vc_join(objclocks_get(&d->dc_read_released, e->obj), dc);
    increment(d, e->tid);
}

static void join_thread(rp_thread_clocks *tc, rp_tid_t into, rp_tid_t from)
{
    tclocks_ensure(tc, into > from ? into : from);
    vc_join(&tc->clock[into], &tc->clock[from]);
}

void dc_fork(void *self, const rp_event *e)
{
    dc_detector *d = self;
    join_thread(&d->dc, (rp_tid_t)e->obj, e->tid);
    join_thread(&d->hb, (rp_tid_t)e->obj, e->tid);
    csrules_fork(d->cs, e->tid, (rp_tid_t)e->obj);
    increment(d, e->tid);
}

void dc_join(void *self, const rp_event *e)
{
    dc_detector *d = self;
    rp_tid_t joined = (rp_tid_t)e->obj;
    join_thread(&d->dc, e->tid, joined);
    join_thread(&d->hb, e->tid, joined);
    csrules_join(d->cs, e->tid, joined);
}

void dc_thread_gone(void *self, rp_tid_t tid)
{
    dc_detector *d = self;
    csrules_thread_gone(d->cs, tid);
    tclocks_release(&d->dc, tid);
    tclocks_release(&d->hb, tid);
}

void dc_thread_end(void *self, rp_tid_t tid)
{
    csrules_thread_end(((dc_detector *)self)->cs, tid);
}

void dc_kept(void *self, rp_history_stats *stats)
{
    csrules_kept(((dc_detector *)self)->cs, stats);
}

void dc_sync_send(void *self, const rp_event *e)
{
    dc_detector *d = self;
    rp_vc *dc, *hb;
    clocks_of(d, e->tid, &dc, &hb);
    vc_join(objclocks_get(&d->dc_sync, e->obj), dc);
    vc_join(objclocks_get(&d->hb_sync, e->obj), hb);
    increment(d, e->tid);
}

void dc_sync_recv(void *self, const rp_event *e)
{
    dc_detector *d = self;
    rp_vc *dc, *hb;
    clocks_of(d, e->tid, &dc, &hb);
    vc_join(dc, objclocks_get(&d->dc_sync, e->obj));
    vc_join(hb, objclocks_get(&d->hb_sync, e->obj));
}

void dc_forget(void *self, const rp_event *e)
{
    dc_detector *d = self;
    csrules_forget(d->cs, e->obj, e->size);
    allpairs_forget(d->pairs, e);
}

void dc_finish(void *self)
{
    dc_detector *d = self;
    allpairs_finish(d->pairs);
}

static void consumer_clocks(void *self, rp_tid_t tid, const rp_vc **order, const rp_vc **also)
{
    *order = tclocks_peek(&((dc_detector *)self)->dc, tid);
    *also = NULL;
}

void *dc_create_relation(const rp_detector_env *env, bool rule_b)
{
    dc_detector *d = rp_calloc("rp.dc", 1, sizeof *d);
    rp_allpairs_config config = { rule_b ? "dc" : "wdc", NULL, NULL, d, false,
                                  env->racy_reads_order ? dc_read_from : NULL };
    d->pairs = allpairs_create(env, &config);
    d->cs = csrules_create(rule_b);
    csrules_set_clocks(d->cs, consumer_clocks, d);
    tclocks_init(&d->dc, 1);
    tclocks_init(&d->hb, 1);
    u64map_init(&d->hb_released);
    u64map_init(&d->dc_released);
    u64map_init(&d->hb_read_released);
    u64map_init(&d->dc_read_released);
    u64map_init(&d->hb_sync);
    u64map_init(&d->dc_sync);
    return d;
}

void dc_destroy(void *self)
{
    dc_detector *d = self;
    if (d == NULL)
        return;
    allpairs_destroy(d->pairs);
    csrules_destroy(d->cs);
    tclocks_free(&d->dc);
    tclocks_free(&d->hb);
    objclocks_free(&d->hb_released);
    objclocks_free(&d->dc_released);
    objclocks_free(&d->hb_read_released);
    objclocks_free(&d->dc_read_released);
    objclocks_free(&d->hb_sync);
    objclocks_free(&d->dc_sync);
    rp_free(d);
}

static void *dc_create(const rp_detector_env *env)
{
    return dc_create_relation(env, true);
}

const rp_detector_ops rp_det_dc = {
    .name = "dc",
    .summary = "doesn't-commute (Roemer et al. PLDI'18): conflicting critical sections + "
               "release-release rule + program order; unsound without vindication",
    .needs_branches = false,
    .repeat_safe = true,
    .covers_hb = true,
    .predictive = true,
    .create = dc_create,
    .destroy = dc_destroy,
    .read = dc_access,
    .write = dc_access,
    .acquire = dc_acquire,
    .release = dc_release,
    .acquire_shared = dc_acquire_shared,
    .release_shared = dc_release_shared,
    .fork = dc_fork,
    .join = dc_join,
    .branch = NULL,
    .sync_send = dc_sync_send,
    .sync_recv = dc_sync_recv,
    .forget = dc_forget,
    .last_writer = allpairs_detector_last_writer,
    .finish = dc_finish,
    .thread_end = dc_thread_end,
    .thread_gone = dc_thread_gone,
    .kept = dc_kept,
};
