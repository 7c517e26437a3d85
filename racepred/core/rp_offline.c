/* rp_offline.c — candidate pairs and reports of the offline
 * detectors (rp_offline.h; the log itself is in rp_segment.c).
 */
#include "rp_offline.h"

#include "rp_array.h"
#include "rp_shim.h"
#include "rp_sort.h"
#include "rp_u64map.h"
#include "rp_vc.h"

/* ---- vectors ------------------------------------------------------------- */

void u64vec_push(rp_u64vec *vec, uint64_t value)
{
    vec->v = rp_array_reserve_from("rp.offline.vec", vec->v, vec->n, &vec->cap, sizeof *vec->v, 64);
    vec->v[vec->n++] = value;
}

void u64vec_free(rp_u64vec *vec)
{
    rp_free(vec->v);
    vec->v = NULL;
    vec->n = vec->cap = 0;
}

/* ---- candidates --------------------------------------------------------------- */

/* Per touched byte ("slot", its index in the sorted touched set), CSR
 * lists: `acc` its accesses and `wr` its writes as (tid << 32 | index)
 * sorted, i.e. per thread in program order, and `fg` its forgets in trace
 * order. */
struct rp_conflicts {
    const rp_event *log;
    rp_u64map slot_of;      /* byte -> slot + 1 */
    uint32_t *acc_off, *wr_off, *fg_off;
    uint64_t *acc, *wr;
    uint32_t *fg;
};

static uint32_t slot_of(const rp_conflicts *c, uint64_t byte)
{
    return (uint32_t)(uintptr_t)u64map_get(&c->slot_of, byte) - 1;
}

/* The slots event i touches, [*lo, *hi): the bytes of an access are all
 * touched, so consecutive slots; a forget covers the touched bytes inside
 * its range, consecutive in the sorted set too. */
static void slot_range(const rp_conflicts *c, const uint64_t *t, size_t nt, uint32_t i,
                       uint32_t *lo, uint32_t *hi)
{
    const rp_event *e = &c->log[i];
    *lo = *hi = 0;
    if (rp_event_is_access(e)) {
        *lo = slot_of(c, e->obj);
        *hi = *lo + e->size;
    } else if (e->kind == RP_EV_FORGET) {
        *lo = *hi = (uint32_t)lower_bound_u64(t, nt, e->obj);
        while (*hi < nt && t[*hi] - e->obj < e->size)
            (*hi)++;
    }
}

static void prefix_sums(uint32_t *count, size_t n)
{
    uint32_t sum = 0;
    for (size_t j = 0; j <= n; j++) {
        uint32_t v = count[j];
        count[j] = sum;
        sum += v;
    }
}

static void sort_slots(uint64_t *keys, const uint32_t *off, size_t nt)
{
    for (size_t j = 0; j < nt; j++)
        sort_u64(keys + off[j], off[j + 1] - off[j]);
}

/* Only bytes some access touches get lists: a forget (a freed or fresh
 * heap block, a dead stack, possibly gigabytes) is added to the lists of
 * the accessed bytes inside its range, found in the sorted byte set, so
 * its cost does not depend on its size.  Two passes: count, then fill. */
rp_conflicts *conflicts_create(const rp_event *log, uint32_t n)
{
    rp_conflicts *c = rp_calloc("rp.offline.bytes", 1, sizeof *c);
    size_t nt;
    uint64_t *t = touched_bytes(log, n, &nt);
    c->log = log;
    u64map_init(&c->slot_of);
    for (size_t j = 0; j < nt; j++)
        u64map_put(&c->slot_of, t[j], (void *)(uintptr_t)(j + 1));
    c->acc_off = rp_calloc("rp.offline.bytes", nt + 2, sizeof *c->acc_off);
    c->wr_off = rp_calloc("rp.offline.bytes", nt + 2, sizeof *c->wr_off);
    c->fg_off = rp_calloc("rp.offline.bytes", nt + 2, sizeof *c->fg_off);
    for (uint32_t i = 0; i < n; i++) {
        bool acc = rp_event_is_access(&log[i]), wr = log[i].kind == RP_EV_WRITE;
        uint32_t lo, hi;
        slot_range(c, t, nt, i, &lo, &hi);
        for (uint32_t s = lo; s < hi; s++) {
            c->acc_off[s] += acc;
            c->wr_off[s] += wr;
            c->fg_off[s] += !acc;
        }
    }
    prefix_sums(c->acc_off, nt);
    prefix_sums(c->wr_off, nt);
    prefix_sums(c->fg_off, nt);
    c->acc = rp_malloc("rp.offline.bytes", ((size_t)c->acc_off[nt] + 1) * sizeof *c->acc);
    c->wr = rp_malloc("rp.offline.bytes", ((size_t)c->wr_off[nt] + 1) * sizeof *c->wr);
    c->fg = rp_malloc("rp.offline.bytes", ((size_t)c->fg_off[nt] + 1) * sizeof *c->fg);
    /* fill through the offsets, then shift them back */
    for (uint32_t i = 0; i < n; i++) {
        bool acc = rp_event_is_access(&log[i]), wr = log[i].kind == RP_EV_WRITE;
        uint64_t key = (uint64_t)log[i].tid << 32 | i;
        uint32_t lo, hi;
        slot_range(c, t, nt, i, &lo, &hi);
        for (uint32_t s = lo; s < hi; s++) {
            if (acc)
                c->acc[c->acc_off[s]++] = key;
            if (wr)
                c->wr[c->wr_off[s]++] = key;
            if (!acc)
                c->fg[c->fg_off[s]++] = i;
        }
    }
    uint32_t *offs[] = { c->acc_off, c->wr_off, c->fg_off };
    for (unsigned k = 0; k < 3; k++) {
        for (size_t j = nt; j > 0; j--)
            offs[k][j] = offs[k][j - 1];
        offs[k][0] = 0;
    }
    sort_slots(c->acc, c->acc_off, nt);
    sort_slots(c->wr, c->wr_off, nt);
    rp_free(t);
    return c;
}

void conflicts_destroy(rp_conflicts *c)
{
    if (c == NULL)
        return;
    u64map_free(&c->slot_of);
    rp_free(c->acc_off);
    rp_free(c->acc);
    rp_free(c->wr_off);
    rp_free(c->wr);
    rp_free(c->fg_off);
    rp_free(c->fg);
    rp_free(c);
}

/* First position in sorted[0 .. n) holding a value > v. */
static uint32_t upper_bound_u32(const uint32_t *sorted, uint32_t n, uint32_t v)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void cursor_init(rp_cursor *cur)
{
    rp_memset(cur, 0, sizeof *cur);
}

void cursor_free(rp_cursor *cur)
{
    rp_free(cur->pos);
    cursor_init(cur);
}

/* Per byte of a: thread t's candidates in the byte's acc (a writes) or wr
 * (a reads) list, from the first after a (earlier_too: after the byte's
 * last forget before a), up to the byte's next forget. */
void cursor_start(rp_cursor *cur, const rp_conflicts *c, uint32_t a, rp_tid_t t,
                  bool earlier_too)
{
    const rp_event *ea = &c->log[a];
    if (ea->size > cur->cap || cur->pos == NULL) {
        cur->cap = ea->size > 1 ? ea->size : 1;
        cur->pos = rp_realloc("rp.offline.cursor", cur->pos,
                              3 * (size_t)cur->cap * sizeof *cur->pos);
    }
    cur->c = c;
    cur->t = t;
    cur->n = ea->size;
    cur->list = ea->kind == RP_EV_WRITE ? c->acc : c->wr;
    uint32_t *end = cur->pos + cur->cap, *limit = end + cur->cap;
    const uint32_t *off = ea->kind == RP_EV_WRITE ? c->acc_off : c->wr_off;
    uint32_t s0 = slot_of(c, ea->obj);
    for (uint32_t k = 0; k < cur->n; k++) {
        uint32_t s = s0 + k;
        const uint64_t *l = cur->list + off[s];
        size_t len = off[s + 1] - off[s];
        const uint32_t *f = c->fg + c->fg_off[s];
        uint32_t nf = c->fg_off[s + 1] - c->fg_off[s], at = upper_bound_u32(f, nf, a);
        uint32_t from = !earlier_too ? a + 1 : at > 0 ? f[at - 1] + 1 : 0;
        cur->pos[k] = off[s] + (uint32_t)lower_bound_u64(l, len, (uint64_t)t << 32 | from);
        end[k] = off[s] + (uint32_t)lower_bound_u64(l, len, (uint64_t)(t + 1) << 32);
        limit[k] = at < nf ? f[at] : UINT32_MAX;
    }
}

void cursor_skip_to(rp_cursor *cur, uint32_t from)
{
    uint32_t *end = cur->pos + cur->cap;
    uint64_t key = (uint64_t)cur->t << 32 | from;
    for (uint32_t k = 0; k < cur->n; k++)
        if (cur->pos[k] < end[k] && cur->list[cur->pos[k]] < key)
            cur->pos[k] += (uint32_t)lower_bound_u64(cur->list + cur->pos[k],
                                                     end[k] - cur->pos[k], key);
}

uint32_t cursor_next(rp_cursor *cur)
{
    uint32_t *end = cur->pos + cur->cap, *limit = end + cur->cap;
    uint32_t best = UINT32_MAX;
    for (uint32_t k = 0; k < cur->n; k++)
        if (cur->pos[k] < end[k]) {
            uint32_t i = (uint32_t)cur->list[cur->pos[k]];
            if (i < limit[k] && i < best)
                best = i;
        }
    for (uint32_t k = 0; best != UINT32_MAX && k < cur->n; k++)
        if (cur->pos[k] < end[k] && (uint32_t)cur->list[cur->pos[k]] == best)
            cur->pos[k]++;
    return best;
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
                    uint32_t n, uint32_t from, rp_u64vec *races)
{
    /* sort by (second, first, confirmed); keep one entry per pair, the
     * confirmed one if any (it sorts last), and only new second accesses */
    sort_u64(races->v, races->n);
    uint32_t m = 0;
    for (uint32_t k = 0; k < races->n; k++) {
        if ((uint32_t)(races->v[k] >> 32) < from)
            continue;
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

rp_tid_t offline_log_last_writer(const rp_offline_log *log, uint64_t addr)
{
    for (uint32_t i = log->n; i-- > 0;) {
        const rp_event *e = &log->ev[i];
        if ((e->kind == RP_EV_WRITE || e->kind == RP_EV_FORGET) && addr - e->obj < e->size)
            return e->kind == RP_EV_WRITE ? e->tid : RP_NO_WRITER;
    }
    return RP_NO_WRITER;
}
