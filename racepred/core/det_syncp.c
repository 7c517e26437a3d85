/* det_syncp.c — sync-preserving races ("syncp"; Mathur, Pavlogiannis,
 * Viswanathan POPL'21, seed 004 §3).
 *
 * What it reports: pairs (e1, e2) of conflicting accesses (different
 * threads, shared bytes not refreshed by a forget in between, at least one
 * write) for which a correct reordering exists that keeps the relative
 * order of every two critical sections on the same lock and ends with e1
 * and e2 both enabled.  Sound for every pair: each one is reported only
 * after its witness (the closure of rp_spclosure.h in trace order) passed
 * the shared validator (rp_witness.h).  `observed` = the pair is unordered
 * by happens-before (computed by one HB vector-clock pass at the end).
 *
 * Offline algorithm: every event is logged (up to SYNCP_MAX_EVENTS; later
 * events are dropped and the drop is reported).  At finish, per access a,
 * the later accesses that conflict with it are gathered from per-byte
 * access lists (a forget of the byte ends the list walk) and grouped by
 * thread; for each thread the candidates are tried in program order with
 * one growing closure (monotonicity), stopping when a falls into it.
 * Cost: O(N) per (access, other thread) in the worst case, O(N^2 T)
 * overall; memory ~100 bytes per logged event.  Location mode (all_pairs
 * off) computes the same set and reports, per second access, its latest
 * partner only.
 */
#include "rp_detector.h"
#include "rp_shim.h"
#include "rp_sort.h"
#include "rp_spclosure.h"
#include "rp_u64map.h"
#include "rp_vc.h"
#include "rp_witness.h"

/* 2^22 events = 160 MiB of log plus ~250 MiB of indexes at finish. */
#define SYNCP_MAX_EVENTS (1u << 22)
#define NONE UINT32_MAX

typedef struct syncp_detector {
    rp_detector_env env;
    rp_event *log;
    uint32_t n, cap;
    uint64_t dropped;
} syncp_detector;

typedef struct byte_list {
    uint32_t *ev;
    uint32_t n, cap;
} byte_list;

typedef struct pairs {
    uint64_t *v;        /* first << 32 | second */
    uint32_t n, cap;
} pairs;

static void pairs_push(pairs *p, uint64_t v)
{
    if (p->n == p->cap) {
        p->cap = p->cap == 0 ? 64 : 2 * p->cap;
        p->v = rp_realloc("rp.syncp.pairs", p->v, p->cap * sizeof *p->v);
    }
    p->v[p->n++] = v;
}

static void syncp_event(void *self, const rp_event *e)
{
    syncp_detector *d = self;
    if (d->n == SYNCP_MAX_EVENTS) {
        d->dropped++;
        return;
    }
    if (d->n == d->cap) {
        d->cap = d->cap == 0 ? 1024 : 2 * d->cap;
        if (d->cap > SYNCP_MAX_EVENTS)
            d->cap = SYNCP_MAX_EVENTS;
        d->log = rp_realloc("rp.syncp.log", d->log, d->cap * sizeof *d->log);
    }
    d->log[d->n++] = *e;
}

/* ---- candidates ------------------------------------------------------------- */

static void list_push(byte_list *l, uint32_t ev)
{
    if (l->n == l->cap) {
        l->cap = l->cap == 0 ? 4 : 2 * l->cap;
        l->ev = rp_realloc("rp.syncp.bytes", l->ev, l->cap * sizeof *l->ev);
    }
    l->ev[l->n++] = ev;
}

/* byte -> its accesses and forgets, in trace order. */
static void index_bytes(const syncp_detector *d, rp_u64map *bytes)
{
    for (uint32_t i = 0; i < d->n; i++) {
        const rp_event *e = &d->log[i];
        if (!rp_event_is_access(e) && e->kind != RP_EV_FORGET)
            continue;
        for (uint32_t k = 0; k < e->size; k++) {
            byte_list *l = u64map_get(bytes, e->obj + k);
            if (l == NULL) {
                l = rp_calloc("rp.syncp.bytes", 1, sizeof *l);
                u64map_put(bytes, e->obj + k, l);
            }
            list_push(l, i);
        }
    }
}

static uint32_t find_in_list(const byte_list *l, uint32_t ev)
{
    uint32_t lo = 0, hi = l->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->ev[mid] < ev)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Later accesses conflicting with a, as (tid << 32 | index), sorted. */
static void gather(const syncp_detector *d, const rp_u64map *bytes, uint32_t a, pairs *out)
{
    const rp_event *ea = &d->log[a];
    out->n = 0;
    for (uint32_t k = 0; k < ea->size; k++) {
        const byte_list *l = u64map_get(bytes, ea->obj + k);
        for (uint32_t j = find_in_list(l, a) + 1; j < l->n; j++) {
            const rp_event *eb = &d->log[l->ev[j]];
            if (eb->kind == RP_EV_FORGET)
                break;
            if (eb->tid != ea->tid && (ea->kind == RP_EV_WRITE || eb->kind == RP_EV_WRITE))
                pairs_push(out, (uint64_t)eb->tid << 32 | l->ev[j]);
        }
    }
    out->n = (uint32_t)sort_unique_u64(out->v, out->n);
}

/* Tries every candidate of a; appends the confirmed pairs to races. */
static uint32_t check_access(const syncp_detector *d, rp_spc *spc, rp_wcheck *chk,
                             rp_witness *w, const pairs *cand, uint32_t a, pairs *races)
{
    uint32_t unconfirmed = 0;
    for (uint32_t k = 0; k < cand->n;) {
        uint32_t tid = (uint32_t)(cand->v[k] >> 32);
        spc_begin(spc, a);
        for (; k < cand->n && (uint32_t)(cand->v[k] >> 32) == tid; k++) {
            uint32_t b = (uint32_t)cand->v[k];
            rp_spc_result r = spc_extend(spc, b);
            if (r == RP_SPC_FIRST_IN)
                break;
            if (r != RP_SPC_RACE)
                continue;
            spc_witness(spc, b, w);
            if (witness_check(chk, w, NULL))
                pairs_push(races, (uint64_t)a << 32 | b);
            else
                unconfirmed++;
        }
        while (k < cand->n && (uint32_t)(cand->v[k] >> 32) == tid)
            k++;
    }
    (void)d;
    return unconfirmed;
}

static void free_list(void *ctx, uint64_t key, void *value)
{
    byte_list *l = value;
    (void)ctx;
    (void)key;
    rp_free(l->ev);
    rp_free(l);
}

/* ---- observed: one happens-before pass ------------------------------------ */

typedef struct hb_state {
    rp_vc *threads;
    uint32_t n_threads;
    rp_u64map locks;        /* obj -> rp_vc[2]: released, read_released */
    rp_u64map sync;         /* obj -> rp_vc */
} hb_state;

static rp_vc *hb_thread(hb_state *h, rp_tid_t t)
{
    if (t >= h->n_threads) {
        uint32_t n = t + 1;
        h->threads = rp_realloc("rp.syncp.hb", h->threads, n * sizeof *h->threads);
        for (uint32_t i = h->n_threads; i < n; i++) {
            vc_init(&h->threads[i]);
            vc_set(&h->threads[i], i, 1);
        }
        h->n_threads = n;
    }
    return &h->threads[t];
}

static rp_vc *hb_obj(rp_u64map *m, uint64_t obj, uint32_t count)
{
    rp_vc *v = u64map_get(m, obj);
    if (v == NULL) {
        v = rp_calloc("rp.syncp.hb", count, sizeof *v);
        for (uint32_t i = 0; i < count; i++)
            vc_init(&v[i]);
        u64map_put(m, obj, v);
    }
    return v;
}

/* Same clocks as det_hb.c: exporters increment after exporting. */
static void hb_step(hb_state *h, const rp_event *e)
{
    rp_vc *th = hb_thread(h, e->tid);
    switch (e->kind) {
    case RP_EV_ACQUIRE: {
        rp_vc *l = hb_obj(&h->locks, e->obj, 2);
        vc_join(th, &l[0]);
        vc_join(th, &l[1]);
        break;
    }
    case RP_EV_ACQUIRE_SHARED:
        vc_join(th, &hb_obj(&h->locks, e->obj, 2)[0]);
        break;
    case RP_EV_RELEASE:
        vc_copy(&hb_obj(&h->locks, e->obj, 2)[0], th);
        vc_inc(th, e->tid);
        break;
    case RP_EV_RELEASE_SHARED:
        vc_join(&hb_obj(&h->locks, e->obj, 2)[1], th);
        vc_inc(th, e->tid);
        break;
    case RP_EV_SYNC_SEND:
        vc_join(hb_obj(&h->sync, e->obj, 1), th);
        vc_inc(th, e->tid);
        break;
    case RP_EV_SYNC_RECV:
        vc_join(th, hb_obj(&h->sync, e->obj, 1));
        break;
    case RP_EV_FORK: {
        rp_vc *child = hb_thread(h, (rp_tid_t)e->obj);
        th = hb_thread(h, e->tid);
        vc_join(child, th);
        vc_inc(th, e->tid);
        break;
    }
    case RP_EV_JOIN: {
        rp_vc *child = hb_thread(h, (rp_tid_t)e->obj);
        th = hb_thread(h, e->tid);
        vc_join(th, child);
        break;
    }
    default:
        break;
    }
}

static void free_lock_vcs(void *ctx, uint64_t key, void *value)
{
    rp_vc *v = value;
    (void)key;
    for (uintptr_t i = 0; i < (uintptr_t)ctx; i++)
        vc_free(&v[i]);
    rp_free(v);
}

/* observed[k] for races sorted by second: a ||HB b. */
static void compute_observed(const syncp_detector *d, const uint64_t *by_second, uint32_t n,
                             bool *observed)
{
    hb_state h = { NULL, 0, { NULL, 0, 0 }, { NULL, 0, 0 } };
    uint32_t *own = rp_malloc("rp.syncp.hb", ((size_t)d->n + 1) * sizeof *own);
    uint32_t k = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        const rp_event *e = &d->log[i];
        own[i] = vc_get(hb_thread(&h, e->tid), e->tid);
        for (; k < n && (uint32_t)(by_second[k] >> 32) == i; k++) {
            uint32_t a = (uint32_t)by_second[k];
            observed[k] = own[a] > vc_get(&h.threads[e->tid], d->log[a].tid);
        }
        hb_step(&h, e);
    }
    for (uint32_t t = 0; t < h.n_threads; t++)
        vc_free(&h.threads[t]);
    rp_free(h.threads);
    u64map_for_each(&h.locks, free_lock_vcs, (void *)(uintptr_t)2);
    u64map_free(&h.locks);
    u64map_for_each(&h.sync, free_lock_vcs, (void *)(uintptr_t)1);
    u64map_free(&h.sync);
    rp_free(own);
}

/* ---- reports --------------------------------------------------------------- */

static rp_access access_of(const rp_event *e)
{
    rp_access a = { e->id, e->obj, e->site, e->tid, e->size, e->kind == RP_EV_WRITE };
    return a;
}

static void report(const syncp_detector *d, uint32_t a, uint32_t b, bool observed)
{
    const rp_event *ea = &d->log[a], *eb = &d->log[b];
    uint64_t lo = ea->obj > eb->obj ? ea->obj : eb->obj;
    uint64_t hi = ea->obj + ea->size < eb->obj + eb->size ? ea->obj + ea->size
                                                            : eb->obj + eb->size;
    rp_race race = { "syncp", access_of(ea), access_of(eb), lo, (uint32_t)(hi - lo), observed,
                     true };
    d->env.report(d->env.report_ctx, &race);
}

/* Races arrive as (a << 32 | b); report sorted by (first, second).  In
 * location mode keep only the latest first access per second access. */
static void report_all(const syncp_detector *d, pairs *races)
{
    uint32_t n = races->n;
    uint64_t *by_second = rp_malloc("rp.syncp.report", ((size_t)n + 1) * sizeof *by_second);
    bool *observed = rp_calloc("rp.syncp.report", (size_t)n + 1, sizeof *observed);
    for (uint32_t k = 0; k < n; k++)
        by_second[k] = races->v[k] << 32 | races->v[k] >> 32;
    sort_u64(by_second, n);
    compute_observed(d, by_second, n, observed);
    /* by_second order is (second, first): re-sort (first, second) with the
     * observed bit carried in a side index. */
    uint64_t *order = rp_malloc("rp.syncp.report", ((size_t)n + 1) * sizeof *order);
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        bool last_of_second = k + 1 == n || (by_second[k + 1] >> 32) != (by_second[k] >> 32);
        if (!d->env.all_pairs && !last_of_second)
            continue;
        order[m++] = (uint64_t)(uint32_t)by_second[k] << 40 | (by_second[k] >> 32) << 1 |
                     (observed[k] ? 1 : 0);
    }
    sort_u64(order, m);
    for (uint32_t k = 0; k < m; k++)
        report(d, (uint32_t)(order[k] >> 40), (uint32_t)((order[k] >> 1) & 0x7fffffffffull),
               order[k] & 1);
    rp_free(order);
    rp_free(by_second);
    rp_free(observed);
}

static void syncp_finish(void *self)
{
    syncp_detector *d = self;
    rp_u64map bytes;
    pairs cand = { NULL, 0, 0 }, races = { NULL, 0, 0 };
    rp_witness w;
    uint32_t unconfirmed = 0;
    if (d->dropped != 0)
        rp_message("syncp: event log full (%u events): the last %llu events were not analysed\n",
                   (unsigned)SYNCP_MAX_EVENTS, (unsigned long long)d->dropped);
    rp_spc *spc = spc_create(d->log, d->n);
    rp_wcheck *chk = wcheck_create(d->log, d->n);
    witness_init(&w);
    u64map_init(&bytes);
    index_bytes(d, &bytes);
    for (uint32_t a = 0; a < d->n; a++) {
        if (!rp_event_is_access(&d->log[a]))
            continue;
        gather(d, &bytes, a, &cand);
        unconfirmed += check_access(d, spc, chk, &w, &cand, a, &races);
    }
    if (unconfirmed != 0)
        rp_message("syncp: internal error: %u closure witnesses failed validation "
                   "(pairs not reported)\n", unconfirmed);
    report_all(d, &races);
    u64map_for_each(&bytes, free_list, NULL);
    u64map_free(&bytes);
    witness_free(&w);
    wcheck_destroy(chk);
    spc_destroy(spc);
    rp_free(cand.v);
    rp_free(races.v);
}

static void *syncp_create(const rp_detector_env *env)
{
    syncp_detector *d = rp_calloc("rp.syncp", 1, sizeof *d);
    d->env = *env;
    return d;
}

static void syncp_destroy(void *self)
{
    syncp_detector *d = self;
    if (d == NULL)
        return;
    rp_free(d->log);
    rp_free(d);
}

const rp_detector_ops rp_det_syncp = {
    .name = "syncp",
    .summary = "sync-preserving races (POPL'21), every pair with a validated witness; offline",
    .needs_branches = false,
    .create = syncp_create,
    .destroy = syncp_destroy,
    .read = syncp_event,
    .write = syncp_event,
    .acquire = syncp_event,
    .release = syncp_event,
    .acquire_shared = syncp_event,
    .release_shared = syncp_event,
    .fork = syncp_event,
    .join = syncp_event,
    .sync_send = syncp_event,
    .sync_recv = syncp_event,
    .forget = syncp_event,
    .finish = syncp_finish,
};
