/* det_hb.c — the happens-before detector ("hb").
 *
 * What it reports: pairs of conflicting accesses (same bytes, different
 * threads, at least one write) unordered by Lamport happens-before: program
 * order, release → every later acquire of the lock, fork/join, send → later
 * receive on a sync object (seed 002 §HB; seed 000 §2).  Every race is
 * observed: this run's schedule shows the two accesses unordered.
 *
 * Clocks (FastTrack/DJIT+ discipline, rp_vc.h): Th(t)[t] = 1 initially;
 * exporting a clock (release, release_shared, fork, sync_send) increments
 * the exporter's own entry afterwards; importing (acquire, join, recv) only
 * joins.  An access is stamped with its thread's epoch t#Th(t)[t] and does
 * not increment, so an earlier access with epoch t#k is ordered before the
 * current access of thread u iff k <= Th(u)[t].
 *
 * Read-write locks: an exclusive release orders every later acquire, a
 * read-side release (joined into R(l)) every later exclusive acquire.
 *
 * The races themselves — one earlier partner per racy access online, every
 * pair of the relation in all-pairs mode (seed 000 §5–6 with errata E1/E2)
 * — come from rp_allpairs.h with order = hb = Th(t): the shadow cells, the
 * eviction chain that guarantees a partner, the pair walk.  In the tool the
 * engine first drops the accesses that repeat what their thread did since
 * its last synchronisation (rp_repeats.h; 96 % of them on pigz).
 *
 * Cost: O(threads) per synchronisation event; per access O(cells of the
 * granules it touches), O(threads) for HB.
 */
#include "rp_allpairs.h"
#include "rp_clocks.h"
#include "rp_detector.h"
#include "rp_shim.h"

typedef struct hb_detector {
    rp_allpairs *pairs;
    rp_thread_clocks threads;
    rp_u64map released;        /* lock → L(l): its last exclusive release */
    rp_u64map read_released;   /* lock → R(l): join of its read-side releases */
    rp_u64map sync_objects;    /* object → join of its sends */
} hb_detector;

/* ---- synchronisation ------------------------------------------------------ */

static void hb_acquire(void *self, const rp_event *e)
{
    hb_detector *h = self;
    rp_vc *th = tclocks_get(&h->threads, e->tid);
    vc_join(th, objclocks_get(&h->released, e->obj));
    vc_join(th, objclocks_get(&h->read_released, e->obj));
}

static void hb_release(void *self, const rp_event *e)
{
    hb_detector *h = self;
    rp_vc *th = tclocks_get(&h->threads, e->tid);
    vc_copy(objclocks_get(&h->released, e->obj), th);
    vc_inc(th, e->tid);
}

static void hb_acquire_shared(void *self, const rp_event *e)
{
    hb_detector *h = self;
    vc_join(tclocks_get(&h->threads, e->tid), objclocks_get(&h->released, e->obj));
}

static void hb_release_shared(void *self, const rp_event *e)
{
    hb_detector *h = self;
    rp_vc *th = tclocks_get(&h->threads, e->tid);
    vc_join(objclocks_get(&h->read_released, e->obj), th);
    vc_inc(th, e->tid);
}

static void hb_fork(void *self, const rp_event *e)
{
    hb_detector *h = self;
    rp_tid_t child = (rp_tid_t)e->obj;
    tclocks_ensure(&h->threads, child > e->tid ? child : e->tid);
    vc_join(&h->threads.clock[child], &h->threads.clock[e->tid]);
    vc_inc(&h->threads.clock[e->tid], e->tid);
}

static void hb_join(void *self, const rp_event *e)
{
    hb_detector *h = self;
    rp_tid_t joined = (rp_tid_t)e->obj;
    tclocks_ensure(&h->threads, joined > e->tid ? joined : e->tid);
    vc_join(&h->threads.clock[e->tid], &h->threads.clock[joined]);
}

static void hb_thread_gone(void *self, rp_tid_t tid)
{
    tclocks_release(&((hb_detector *)self)->threads, tid);
}

static void hb_sync_send(void *self, const rp_event *e)
{
    hb_detector *h = self;
    rp_vc *th = tclocks_get(&h->threads, e->tid);
    vc_join(objclocks_get(&h->sync_objects, e->obj), th);
    vc_inc(th, e->tid);
}

static void hb_sync_recv(void *self, const rp_event *e)
{
    hb_detector *h = self;
    vc_join(tclocks_get(&h->threads, e->tid), objclocks_get(&h->sync_objects, e->obj));
}

/* ---- accesses --------------------------------------------------------------- */

static void hb_access(void *self, const rp_event *e)
{
    hb_detector *h = self;
    rp_vc *th = tclocks_get(&h->threads, e->tid);
    uint32_t epoch = vc_get(th, e->tid);
    rp_allpairs_access a = { e, th, epoch, th, epoch, 0 };
    allpairs_access(h->pairs, &a);
}

/* A racy read (env.racy_reads_order): ordered after the writer's epochs
 * before the write's (rp_allpairs_read_from_fn). */
static void hb_read_from(void *self, rp_tid_t reader, rp_tid_t writer, uint32_t clock,
                         uint32_t hb_clock)
{
    hb_detector *h = self;
    rp_vc *th = tclocks_get(&h->threads, reader);
    (void)clock;
    vc_raise(th, writer, hb_clock);
}

static void hb_forget(void *self, const rp_event *e)
{
    hb_detector *h = self;
    allpairs_forget(h->pairs, e);
}

static void hb_finish(void *self)
{
    hb_detector *h = self;
    allpairs_finish(h->pairs);
}

/* ---- life cycle --------------------------------------------------------------- */

static void *hb_create(const rp_detector_env *env)
{
    hb_detector *h = rp_calloc("rp.hb", 1, sizeof *h);
    rp_allpairs_config config = { "hb", NULL, NULL, h, true,
                                  env->racy_reads_order ? hb_read_from : NULL };
    h->pairs = allpairs_create(env, &config);
    tclocks_init(&h->threads, 1);
    u64map_init(&h->released);
    u64map_init(&h->read_released);
    u64map_init(&h->sync_objects);
    return h;
}

static void hb_destroy(void *self)
{
    hb_detector *h = self;
    if (h == NULL)
        return;
    allpairs_destroy(h->pairs);
    tclocks_free(&h->threads);
    objclocks_free(&h->released);
    objclocks_free(&h->read_released);
    objclocks_free(&h->sync_objects);
    rp_free(h);
}

const rp_detector_ops rp_det_hb = {
    .name = "hb",
    .summary = "happens-before (FastTrack clocks): conflicting accesses unordered by HB",
    .needs_branches = false,
    .repeat_safe = true,
    .create = hb_create,
    .destroy = hb_destroy,
    .read = hb_access,
    .write = hb_access,
    .acquire = hb_acquire,
    .release = hb_release,
    .acquire_shared = hb_acquire_shared,
    .release_shared = hb_release_shared,
    .fork = hb_fork,
    .join = hb_join,
    .thread_gone = hb_thread_gone,
    .branch = NULL,
    .sync_send = hb_sync_send,
    .sync_recv = hb_sync_recv,
    .forget = hb_forget,
    .last_writer = allpairs_detector_last_writer,
    .finish = hb_finish,
};
