/* rp_offline.c — event log, candidate pairs and reports of the offline
 * detectors (rp_offline.h).
 */
#include "rp_offline.h"

#include "rp_shim.h"
#include "rp_sort.h"
#include "rp_u64map.h"
#include "rp_vc.h"

/* ---- the log ---------------------------------------------------------------- */

void offline_log_append(rp_offline_log *log, const rp_event *e)
{
    if (log->n == RP_OFFLINE_MAX_EVENTS) {
        log->dropped++;
        return;
    }
    if (log->n == log->cap) {
        log->cap = log->cap == 0 ? 1024 : 2 * log->cap;
        if (log->cap > RP_OFFLINE_MAX_EVENTS)
            log->cap = RP_OFFLINE_MAX_EVENTS;
        log->ev = rp_realloc("rp.offline.log", log->ev, log->cap * sizeof *log->ev);
    }
    log->ev[log->n++] = *e;
}

void offline_log_free(rp_offline_log *log)
{
    rp_free(log->ev);
    log->ev = NULL;
    log->n = log->cap = 0;
}

void offline_log_warn(const rp_offline_log *log, const char *name)
{
    if (log->dropped != 0)
        rp_message("%s: event log full (%u events): the last %llu events were not analysed\n",
                   name, (unsigned)RP_OFFLINE_MAX_EVENTS, (unsigned long long)log->dropped);
}

void u64vec_push(rp_u64vec *vec, uint64_t value)
{
    if (vec->n == vec->cap) {
        vec->cap = vec->cap == 0 ? 64 : 2 * vec->cap;
        vec->v = rp_realloc("rp.offline.vec", vec->v, vec->cap * sizeof *vec->v);
    }
    vec->v[vec->n++] = value;
}

void u64vec_free(rp_u64vec *vec)
{
    rp_free(vec->v);
    vec->v = NULL;
    vec->n = vec->cap = 0;
}

/* ---- candidates --------------------------------------------------------------- */

typedef struct byte_list {
    uint32_t *ev;
    uint32_t n, cap;
} byte_list;

struct rp_conflicts {
    const rp_event *log;
    rp_u64map bytes;        /* byte -> byte_list of accesses and forgets */
};

static void list_push(byte_list *l, uint32_t ev)
{
    if (l->n == l->cap) {
        l->cap = l->cap == 0 ? 4 : 2 * l->cap;
        l->ev = rp_realloc("rp.offline.bytes", l->ev, l->cap * sizeof *l->ev);
    }
    l->ev[l->n++] = ev;
}

/* Only bytes some access touches get a list: a forget (a freed or fresh
 * heap block, a dead stack, possibly gigabytes) is added to the lists of
 * the accessed bytes inside its range, found in the sorted byte set, so
 * its cost does not depend on its size. */
rp_conflicts *conflicts_create(const rp_event *log, uint32_t n)
{
    rp_conflicts *c = rp_calloc("rp.offline.bytes", 1, sizeof *c);
    size_t nt;
    uint64_t *t = touched_bytes(log, n, &nt);
    c->log = log;
    u64map_init(&c->bytes);
    for (size_t j = 0; j < nt; j++)
        u64map_put(&c->bytes, t[j], rp_calloc("rp.offline.bytes", 1, sizeof(byte_list)));
    for (uint32_t i = 0; i < n; i++) {
        const rp_event *e = &log[i];
        if (rp_event_is_access(e)) {
            for (uint32_t k = 0; k < e->size; k++)
                list_push(u64map_get(&c->bytes, e->obj + k), i);
        } else if (e->kind == RP_EV_FORGET) {
            FOR_TOUCHED_IN(j, t, nt, e->obj, e->size)
                list_push(u64map_get(&c->bytes, t[j]), i);
        }
    }
    rp_free(t);
    return c;
}

static void free_list(void *ctx, uint64_t key, void *value)
{
    byte_list *l = value;
    (void)ctx;
    (void)key;
    rp_free(l->ev);
    rp_free(l);
}

void conflicts_destroy(rp_conflicts *c)
{
    if (c == NULL)
        return;
    u64map_for_each(&c->bytes, free_list, NULL);
    u64map_free(&c->bytes);
    rp_free(c);
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

static bool conflicting_kinds(const rp_event *a, const rp_event *b)
{
    return a->tid != b->tid && (a->kind == RP_EV_WRITE || b->kind == RP_EV_WRITE);
}

void conflicts_gather(const rp_conflicts *c, uint32_t a, bool earlier_too, rp_u64vec *out)
{
    const rp_event *ea = &c->log[a];
    out->n = 0;
    for (uint32_t k = 0; k < ea->size; k++) {
        const byte_list *l = u64map_get(&c->bytes, ea->obj + k);
        uint32_t at = find_in_list(l, a);
        for (uint32_t j = at + 1; j < l->n; j++) {
            const rp_event *eb = &c->log[l->ev[j]];
            if (eb->kind == RP_EV_FORGET)
                break;
            if (conflicting_kinds(ea, eb))
                u64vec_push(out, (uint64_t)eb->tid << 32 | l->ev[j]);
        }
        for (uint32_t j = at; earlier_too && j-- > 0;) {
            const rp_event *eb = &c->log[l->ev[j]];
            if (eb->kind == RP_EV_FORGET)
                break;
            if (conflicting_kinds(ea, eb))
                u64vec_push(out, (uint64_t)eb->tid << 32 | l->ev[j]);
        }
    }
    out->n = (uint32_t)sort_unique_u64(out->v, out->n);
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
        h->threads = rp_realloc("rp.offline.hb", h->threads, n * sizeof *h->threads);
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
        v = rp_calloc("rp.offline.hb", count, sizeof *v);
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

static void free_vcs(void *ctx, uint64_t key, void *value)
{
    rp_vc *v = value;
    (void)key;
    for (uintptr_t i = 0; i < (uintptr_t)ctx; i++)
        vc_free(&v[i]);
    rp_free(v);
}

/* observed[k] for races sorted by second: first ||HB second. */
static void compute_observed(const rp_event *log, uint32_t n, const uint64_t *by_second,
                             uint32_t n_races, bool *observed)
{
    hb_state h = { NULL, 0, { NULL, 0, 0 }, { NULL, 0, 0 } };
    uint32_t *own = rp_malloc("rp.offline.hb", ((size_t)n + 1) * sizeof *own);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const rp_event *e = &log[i];
        own[i] = vc_get(hb_thread(&h, e->tid), e->tid);
        for (; k < n_races && (uint32_t)(by_second[k] >> 32) == i; k++) {
            uint32_t a = (uint32_t)by_second[k] >> 1;
            observed[k] = own[a] > vc_get(&h.threads[e->tid], log[a].tid);
        }
        hb_step(&h, e);
    }
    for (uint32_t t = 0; t < h.n_threads; t++)
        vc_free(&h.threads[t]);
    rp_free(h.threads);
    u64map_for_each(&h.locks, free_vcs, (void *)(uintptr_t)2);
    u64map_free(&h.locks);
    u64map_for_each(&h.sync, free_vcs, (void *)(uintptr_t)1);
    u64map_free(&h.sync);
    rp_free(own);
}

/* ---- reports --------------------------------------------------------------- */

static rp_access access_of(const rp_event *e)
{
    rp_access a = { e->id, e->obj, e->site, e->tid, e->size, e->kind == RP_EV_WRITE };
    return a;
}

static void report_one(const rp_detector_env *env, const char *name, const rp_event *log,
                       uint32_t a, uint32_t b, bool observed, bool confirmed)
{
    const rp_event *ea = &log[a], *eb = &log[b];
    uint64_t lo = ea->obj > eb->obj ? ea->obj : eb->obj;
    uint64_t hi = ea->obj + ea->size < eb->obj + eb->size ? ea->obj + ea->size
                                                            : eb->obj + eb->size;
    rp_race race = { name, access_of(ea), access_of(eb), lo, (uint32_t)(hi - lo), observed,
                     confirmed, NULL };
    env->report(env->report_ctx, &race);
}

void offline_report(const rp_detector_env *env, const char *name, const rp_event *log,
                    uint32_t n, rp_u64vec *races)
{
    /* sort by (second, first, confirmed); keep one entry per pair, the
     * confirmed one if any (it sorts last) */
    sort_u64(races->v, races->n);
    uint32_t m = 0;
    for (uint32_t k = 0; k < races->n; k++) {
        if (m > 0 && races->v[m - 1] >> 1 == races->v[k] >> 1)
            m--;
        races->v[m++] = races->v[k];
    }
    races->n = m;
    bool *observed = rp_calloc("rp.offline.report", (size_t)m + 1, sizeof *observed);
    compute_observed(log, n, races->v, m, observed);
    /* report in (first, second) order: first << 40 | second << 2 | obs | conf */
    uint64_t *order = rp_malloc("rp.offline.report", ((size_t)m + 1) * sizeof *order);
    uint32_t o = 0;
    for (uint32_t k = 0; k < m; k++) {
        uint32_t second = (uint32_t)(races->v[k] >> 32);
        bool last_of_second = k + 1 == m || (uint32_t)(races->v[k + 1] >> 32) != second;
        if (!env->all_pairs && !last_of_second)
            continue;
        uint64_t first = (uint32_t)races->v[k] >> 1;
        order[o++] = first << 40 | (uint64_t)second << 2 | (observed[k] ? 2 : 0) |
                     (races->v[k] & 1);
    }
    sort_u64(order, o);
    for (uint32_t k = 0; k < o; k++)
        report_one(env, name, log, (uint32_t)(order[k] >> 40),
                   (uint32_t)((order[k] >> 2) & 0x3fffffffffull), (order[k] & 2) != 0,
                   (order[k] & 1) != 0);
    rp_free(order);
    rp_free(observed);
}
