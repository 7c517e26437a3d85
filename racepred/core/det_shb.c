/* det_shb.c — the schedulable-happens-before detector ("shb"), seed 000.
 *
 * What it reports: R^T of seed 000 Def 3.6 — conflicting pairs (same bytes,
 * different threads, at least one write) that are unordered by SHB, plus the
 * write-read-dependency ("WRD") pairs: a read and its last writer in another
 * thread with nothing SHB-between them.  SHB (Mathur, Kini, Viswanathan
 * OOPSLA'18; seed 000 Def 3.3) is HB plus an edge from every read's last
 * writer to the read.  Every pair is a predictable race of the observed run
 * (seed 000 Thm F.1 + Def 3.6): sound for all pairs, not only the first.
 * SHB orders more than HB and WRD pairs are HB-unordered, so every pair is
 * also an HB race: races are reported with observed = true.
 *
 * Clocks (seed 000 §3, Alg 1/4): Th(t)[t] = 1 initially; acquire, join and
 * receive only join; release, fork, send, write and read increment their
 * thread's own entry after recording.  L_W(b), per byte b, is the clock of
 * the last write of b captured BEFORE the writer increments, so a read that
 * syncs with it learns the write's epoch exactly; hence an earlier access
 * with epoch t#k is SHB-before the current access of thread u iff
 * k <= Th(u)[t] (erratum E1: equality is ordered).
 *
 * A read first checks, for each distinct last writer w of its bytes in
 * another thread, whether w is unordered with it (w's epoch > Th[tid(w)]):
 * then (w, read) is a WRD pair (seed 000 Alg 5, Appendix E).  It then joins
 * every L_W of its bytes into Th, and the access goes through rp_allpairs
 * with order = Th (SHB-concurrent pairs; all pairs via seed 000 Alg 3,
 * edges and post-processing with erratum E2 — see rp_allpairs.h).  A write
 * goes through rp_allpairs, then becomes the last writer of its bytes.
 *
 * Read-write locks: a read-side release orders the next exclusive acquire,
 * an exclusive release every later acquire (as in det_hb.c).  Sync
 * send/receive are hard edges like release/acquire.  RP_EV_FORGET clears
 * the last writers of the bytes as well as the access history.
 *
 * Cost: O(threads) per access and synchronisation event; one clock copy per
 * write (shared by the bytes it last wrote, freed when overwritten).
 */
#include "rp_allpairs.h"
#include "rp_clocks.h"
#include "rp_detector.h"
#include "rp_shadow.h"
#include "rp_shim.h"

/* The last write of some bytes: L_W and what a WRD report needs. */
typedef struct shb_writer {
    uint32_t refs;         /* bytes whose last writer this is */
    uint32_t event;        /* rp_allpairs event number (all-pairs mode) */
    rp_access access;
    rp_vc clock;           /* L_W: Th(tid) at the write, before the increment */
} shb_writer;

typedef struct shb_slot {
    shb_writer *last_writer[RP_SHADOW_GRANULE_SIZE];
} shb_slot;

/* A WRD partner of the current read and the bytes it last wrote. */
typedef struct shb_wrd {
    shb_writer *writer;
    uint64_t lo, hi;       /* inclusive */
    bool unordered;        /* the WRD check: a pair (writer, read) */
} shb_wrd;

typedef struct shb_detector {
    rp_allpairs *pairs;
    rp_shadow *writers;
    rp_thread_clocks threads;
    rp_u64map released;        /* Rel(l): last exclusive release */
    rp_u64map read_released;   /* join of read-side releases of l */
    rp_u64map sync_objects;
    shb_wrd *wrd;
    uint32_t n_wrd, cap_wrd;
} shb_detector;

/* ---- synchronisation --------------------------------------------------------- */

static void shb_acquire(void *self, const rp_event *e)
{
    shb_detector *d = self;
    rp_vc *th = tclocks_get(&d->threads, e->tid);
    vc_join(th, objclocks_get(&d->released, e->obj));
    vc_join(th, objclocks_get(&d->read_released, e->obj));
}

static void shb_release(void *self, const rp_event *e)
{
    shb_detector *d = self;
    rp_vc *th = tclocks_get(&d->threads, e->tid);
    vc_copy(objclocks_get(&d->released, e->obj), th);
    vc_inc(th, e->tid);
}

static void shb_acquire_shared(void *self, const rp_event *e)
{
    shb_detector *d = self;
    vc_join(tclocks_get(&d->threads, e->tid), objclocks_get(&d->released, e->obj));
}

static void shb_release_shared(void *self, const rp_event *e)
{
    shb_detector *d = self;
    rp_vc *th = tclocks_get(&d->threads, e->tid);
    vc_join(objclocks_get(&d->read_released, e->obj), th);
    vc_inc(th, e->tid);
}

static void shb_fork(void *self, const rp_event *e)
{
    shb_detector *d = self;
    rp_tid_t child = (rp_tid_t)e->obj;
    tclocks_ensure(&d->threads, child > e->tid ? child : e->tid);
    rp_vc *child_vc = &d->threads.clock[child];
    rp_vc *parent_vc = &d->threads.clock[e->tid];
    vc_join(child_vc, parent_vc);
    if (vc_get(child_vc, child) == 0)
        vc_set(child_vc, child, 1);
    vc_inc(parent_vc, e->tid);
}

static void shb_join(void *self, const rp_event *e)
{
    shb_detector *d = self;
    rp_tid_t joined = (rp_tid_t)e->obj;
    tclocks_ensure(&d->threads, joined > e->tid ? joined : e->tid);
    vc_join(&d->threads.clock[e->tid], &d->threads.clock[joined]);
}

static void shb_thread_gone(void *self, rp_tid_t tid)
{
    tclocks_release(&((shb_detector *)self)->threads, tid);
}

static void shb_sync_send(void *self, const rp_event *e)
{
    shb_detector *d = self;
    rp_vc *th = tclocks_get(&d->threads, e->tid);
    vc_join(objclocks_get(&d->sync_objects, e->obj), th);
    vc_inc(th, e->tid);
}

static void shb_sync_recv(void *self, const rp_event *e)
{
    shb_detector *d = self;
    vc_join(tclocks_get(&d->threads, e->tid), objclocks_get(&d->sync_objects, e->obj));
}

/* ---- last writers ------------------------------------------------------------- */

static void writer_release(shb_writer *w)
{
    if (w == NULL || --w->refs != 0)
        return;
    vc_free(&w->clock);
    rp_free(w);
}

static void slot_forget(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    shb_slot *s = slot;
    (void)ctx;
    (void)granule;
    for (uint32_t i = 0; i < RP_SHADOW_GRANULE_SIZE; i++) {
        if (mask & (1u << i)) {
            writer_release(s->last_writer[i]);
            s->last_writer[i] = NULL;
        }
    }
}

/* Calls fn for every granule of the access with the mask of its bytes. */
static void for_each_granule(shb_detector *d, const rp_event *e,
                             void (*fn)(shb_detector *d, uint64_t granule, uint8_t mask,
                                        void *arg),
                             void *arg)
{
    uint64_t granule = e->obj >> RP_SHADOW_GRANULE_BITS;
    uint64_t last = (e->obj + (e->size - 1)) >> RP_SHADOW_GRANULE_BITS;
    if (e->obj + (e->size - 1) < e->obj)
        last = UINT64_MAX >> RP_SHADOW_GRANULE_BITS;
    for (;; granule++) {
        fn(d, granule, shadow_granule_mask(granule, e->obj, e->size), arg);
        if (granule == last)
            return;
    }
}

static void set_last_writer(shb_detector *d, uint64_t granule, uint8_t mask, void *arg)
{
    shb_slot *s = shadow_slot(d->writers, granule);
    shb_writer *w = arg;
    for (uint32_t i = 0; i < RP_SHADOW_GRANULE_SIZE; i++) {
        if (mask & (1u << i)) {
            writer_release(s->last_writer[i]);
            s->last_writer[i] = w;
            w->refs++;
        }
    }
}

static shb_wrd *wrd_entry(shb_detector *d, shb_writer *w)
{
    for (uint32_t i = 0; i < d->n_wrd; i++)
        if (d->wrd[i].writer == w)
            return &d->wrd[i];
    if (d->n_wrd == d->cap_wrd) {
        d->cap_wrd = d->cap_wrd == 0 ? 8 : d->cap_wrd * 2;
        d->wrd = rp_realloc("rp.shb.wrd", d->wrd, d->cap_wrd * sizeof(shb_wrd));
    }
    shb_wrd *r = &d->wrd[d->n_wrd++];
    r->writer = w;
    r->lo = UINT64_MAX;
    r->hi = 0;
    r->unordered = false;
    return r;
}

/* Collects the distinct last writers of the read's bytes with their bytes. */
static void collect_writers(shb_detector *d, uint64_t granule, uint8_t mask, void *arg)
{
    shb_slot *s = shadow_find(d->writers, granule);
    uint64_t base = granule << RP_SHADOW_GRANULE_BITS;
    (void)arg;
    if (s == NULL)
        return;
    for (uint32_t i = 0; i < RP_SHADOW_GRANULE_SIZE; i++) {
        if (!(mask & (1u << i)) || s->last_writer[i] == NULL)
            continue;
        shb_wrd *r = wrd_entry(d, s->last_writer[i]);
        r->lo = base + i < r->lo ? base + i : r->lo;
        r->hi = base + i > r->hi ? base + i : r->hi;
    }
}

/* ---- accesses --------------------------------------------------------------- */

static uint32_t check_access(shb_detector *d, const rp_event *e, const rp_vc *th)
{
    rp_allpairs_access a = { e, th, vc_get(th, e->tid), NULL, 0, 0 };
    return allpairs_access(d->pairs, &a);
}

static void shb_read(void *self, const rp_event *e)
{
    shb_detector *d = self;
    rp_vc *th = tclocks_get(&d->threads, e->tid);
    if (e->size == 0)
        return;
    d->n_wrd = 0;
    for_each_granule(d, e, collect_writers, NULL);
    for (uint32_t i = 0; i < d->n_wrd; i++) {
        const shb_writer *w = d->wrd[i].writer;
        d->wrd[i].unordered = vc_get(&w->clock, w->access.tid) > vc_get(th, w->access.tid);
    }
    for (uint32_t i = 0; i < d->n_wrd; i++)
        vc_join(th, &d->wrd[i].writer->clock);
    uint32_t event = check_access(d, e, th);
    rp_access second = { e->id, e->obj, e->site, e->tid, e->size, false };
    for (uint32_t i = 0; i < d->n_wrd; i++) {
        const shb_wrd *r = &d->wrd[i];
        if (r->unordered)
            allpairs_add_pair(d->pairs, &r->writer->access, r->writer->event, &second, event,
                              r->lo, r->hi - r->lo + 1);
    }
    vc_inc(th, e->tid);
}

static void shb_write(void *self, const rp_event *e)
{
    shb_detector *d = self;
    rp_vc *th = tclocks_get(&d->threads, e->tid);
    if (e->size == 0)
        return;
    shb_writer *w = rp_malloc("rp.shb.writer", sizeof *w);
    w->refs = 0;
    w->event = check_access(d, e, th);
    w->access.id = e->id;
    w->access.addr = e->obj;
    w->access.site = e->site;
    w->access.tid = e->tid;
    w->access.size = e->size;
    w->access.is_write = true;
    vc_init(&w->clock);
    vc_copy(&w->clock, th);
    for_each_granule(d, e, set_last_writer, w);
    vc_inc(th, e->tid);
}

static void shb_forget(void *self, const rp_event *e)
{
    shb_detector *d = self;
    shadow_clear_range(d->writers, e->obj, e->size, slot_forget, d);
    allpairs_forget(d->pairs, e);
}

static void shb_finish(void *self)
{
    shb_detector *d = self;
    allpairs_finish(d->pairs);
}

/* ---- life cycle --------------------------------------------------------------- */

static void *shb_create(const rp_detector_env *env)
{
    shb_detector *d = rp_calloc("rp.shb", 1, sizeof *d);
    rp_allpairs_config config = { "shb", NULL, NULL, NULL, true, NULL };
    d->pairs = allpairs_create(env, &config);
    d->writers = shadow_create(sizeof(shb_slot));
    shadow_set_release(d->writers, slot_forget, d);
    tclocks_init(&d->threads, 1);
    u64map_init(&d->released);
    u64map_init(&d->read_released);
    u64map_init(&d->sync_objects);
    return d;
}

static void shb_destroy(void *self)
{
    shb_detector *d = self;
    if (d == NULL)
        return;
    allpairs_destroy(d->pairs);
    shadow_for_each(d->writers, slot_forget, d);
    shadow_destroy(d->writers);
    tclocks_free(&d->threads);
    objclocks_free(&d->released);
    objclocks_free(&d->read_released);
    objclocks_free(&d->sync_objects);
    rp_free(d->wrd);
    rp_free(d);
}

const rp_detector_ops rp_det_shb = {
    .name = "shb",
    .summary = "schedulable happens-before (seed 000): SHB-unordered pairs and write-read "
               "dependency pairs, all sound",
    .needs_branches = false,
    .create = shb_create,
    .destroy = shb_destroy,
    .read = shb_read,
    .write = shb_write,
    .acquire = shb_acquire,
    .release = shb_release,
    .acquire_shared = shb_acquire_shared,
    .release_shared = shb_release_shared,
    .fork = shb_fork,
    .join = shb_join,
    .thread_gone = shb_thread_gone,
    .branch = NULL,
    .sync_send = shb_sync_send,
    .sync_recv = shb_sync_recv,
    .forget = shb_forget,
    .last_writer = allpairs_detector_last_writer,
    .finish = shb_finish,
};
