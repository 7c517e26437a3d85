/* rp_window.c — the engine's bounded event window and online witness
 * confirmation (rp_window.h).
 */
#include "rp_window.h"

#include "rp_array.h"
#include "rp_shim.h"
#include "rp_spclosure.h"
#include "rp_trcone.h"
#include "rp_u64map.h"
#include "rp_witness.h"

#define NONE UINT32_MAX
#define BIG_FORGET 4096u
#define SITE_SCAN 4096u
#define MAX_SITE_PAIRS (1u << 16)

typedef struct held_lock {
    uint64_t obj;
    rp_tid_t tid;
    bool shared;
} held_lock;

typedef struct held_set {
    held_lock *v;
    uint32_t n, cap;
} held_set;

/* What one code-location pair's attempts came to. */
typedef struct site_pair {
    uint64_t site1, site2;
    uint8_t kinds;
    uint8_t fails;
    bool confirmed;
    rp_witness_desc desc;
} site_pair;

struct rp_window {
    rp_wevent *ring;
    uint32_t cap, head, count;
    uint64_t last_id;
    held_set held;              /* locks held at the window's start */
    held_set scratch;           /* ... at an attempt's cut */
    /* The attempts' sub-log, kept from one attempt to the next: Valgrind
     * maps a block this big on its own and unmaps it when freed, so a new
     * one per attempt cost a page fault and a zeroed page per 4 KiB. */
    rp_event *log;
    uint32_t log_cap;
    rp_u64map pairs;            /* site-pair key -> site_pair */
    uint32_t n_pairs;
    rp_u64map cones;            /* thread + 1 -> its latest failed attempt's tr_cone */
    uint64_t ruled_out;         /* attempts a tr_cone answered */
    uint64_t work, work_budget; /* sub-log events indexed so far, and the
                                   reversal attempts' work units */
    uint64_t outcomes[RP_WOUT_COUNT];
    uint64_t reversals;         /* new witnesses that reverse sections */
    uint32_t margin;            /* events kept before e1 */
    bool reversal;              /* try witnesses by reversal */
    rp_witness_desc desc;       /* the last confirmed witness */
    bool (*skip_site)(uint64_t site);
    bool keep_ids;              /* rp_window_witness_ids */
    uint64_t *ids;              /* the last new witness's sub-log events */
    uint32_t n_ids, cap_ids;
    uint64_t ids_cut;
};

void rp_window_set_site_filter(rp_window *w, bool (*skip)(uint64_t site))
{
    w->skip_site = skip;
}

static bool usable_site(const rp_window *w, const rp_event *e)
{
    return rp_event_is_access(e) && e->site != 0 && (w->skip_site == NULL || !w->skip_site(e->site));
}

static inline uint8_t wkind(const rp_wevent *e)
{
    return (uint8_t)(e->site_kind & 0xff);
}

static inline uint64_t wsite(const rp_wevent *e)
{
    return e->site_kind >> 8;
}

static bool is_lock_kind(uint8_t k)
{
    return k == RP_EV_ACQUIRE || k == RP_EV_RELEASE || k == RP_EV_ACQUIRE_SHARED ||
           k == RP_EV_RELEASE_SHARED;
}

static void held_apply(held_set *h, const rp_wevent *e)
{
    uint8_t k = wkind(e);
    bool shared = k == RP_EV_ACQUIRE_SHARED || k == RP_EV_RELEASE_SHARED;
    if (k == RP_EV_ACQUIRE || k == RP_EV_ACQUIRE_SHARED) {
        h->v = rp_array_reserve_from("rp.window.held", h->v, h->n, &h->cap, sizeof *h->v, 16);
        h->v[h->n].obj = e->obj;
        h->v[h->n].tid = e->tid;
        h->v[h->n].shared = shared;
        h->n++;
        return;
    }
    for (uint32_t i = h->n; i-- > 0;)
        if (h->v[i].obj == e->obj && h->v[i].tid == e->tid && h->v[i].shared == shared) {
            h->v[i] = h->v[--h->n];
            return;
        }
}

rp_window *rp_window_create(uint32_t capacity)
{
    rp_window *w = rp_calloc("rp.window", 1, sizeof *w);
    if (capacity < RP_WINDOW_MIN)
        capacity = RP_WINDOW_MIN;
    w->cap = capacity;
    w->ring = rp_malloc("rp.window.ring", (size_t)capacity * sizeof *w->ring);
    u64map_init(&w->pairs);
    u64map_init(&w->cones);
    w->work_budget = (uint64_t)capacity * 64 > ((uint64_t)1 << 26) ? (uint64_t)capacity * 64
                                                                   : (uint64_t)1 << 26;
    w->margin = RP_WINDOW_MARGIN;
    w->reversal = true;
    return w;
}

void rp_window_set_margin(rp_window *w, uint32_t margin)
{
    w->margin = margin;
}

void rp_window_set_reversal(rp_window *w, bool on)
{
    w->reversal = on;
}

void rp_window_keep_witness_ids(rp_window *w, bool keep)
{
    w->keep_ids = keep;
}

const uint64_t *rp_window_witness_ids(const rp_window *w, uint64_t *cut, uint32_t *n)
{
    *cut = w->ids_cut;
    *n = w->n_ids;
    return w->ids;
}

uint64_t rp_window_reversals(const rp_window *w)
{
    return w->reversals;
}

uint64_t rp_window_ruled_out(const rp_window *w)
{
    return w->ruled_out;
}

void rp_window_destroy(rp_window *w)
{
    if (w == NULL)
        return;
    rp_free(w->ring);
    rp_free(w->held.v);
    rp_free(w->scratch.v);
    rp_free(w->log);
    rp_free(w->ids);
    u64map_free_with_values(&w->pairs);
    u64map_free_with_values(&w->cones);
    rp_free(w);
}

/* How far ahead of the oldest slot an append prefetches (24-byte slots:
 * six cache lines). */
#define APPEND_AHEAD 16u

void rp_window_append(rp_window *w, const rp_event *e)
{
    rp_wevent *slot;
    if (w->count == w->cap) {
        slot = &w->ring[w->head];
        /* The ring is far larger than the caches and this is the only
         * read of the slot since it was written, a window's length ago:
         * the slots a few appends ahead are fetched now. */
        __builtin_prefetch(&w->ring[w->head + APPEND_AHEAD < w->cap ? w->head + APPEND_AHEAD
                                                                    : 0], 1);
        if (is_lock_kind(wkind(slot)))
            held_apply(&w->held, slot);
        w->head = w->head + 1 == w->cap ? 0 : w->head + 1;
    } else {
        uint32_t i = w->head + w->count;
        slot = &w->ring[i >= w->cap ? i - w->cap : i];
        w->count++;
    }
    slot->obj = e->obj;
    slot->site_kind = e->site << 8 | e->kind;
    slot->tid = e->tid;
    slot->size = e->size;
    w->last_id = e->id;
}

static uint64_t first_id(const rp_window *w)
{
    return w->last_id - w->count + 1;
}

static const rp_wevent *at_id(const rp_window *w, uint64_t id)
{
    uint64_t i = w->head + (id - first_id(w));
    return &w->ring[i >= w->cap ? i - w->cap : i];
}

uint64_t rp_window_count(const rp_window *w, rp_window_outcome o)
{
    return (unsigned)o < RP_WOUT_COUNT ? w->outcomes[o] : 0;
}

uint32_t rp_window_capacity(const rp_window *w)
{
    return w->cap;
}

const char *rp_window_outcome_name(rp_window_outcome o)
{
    static const char *const names[RP_WOUT_COUNT] = {
        [RP_WOUT_CONFIRMED] = "confirmed",
        [RP_WOUT_CONFIRMED_SITES] = "confirmed by an earlier witness of the same code locations",
        [RP_WOUT_OUT_OF_WINDOW] = "out of window",
        [RP_WOUT_BUDGET] = "budget",
        [RP_WOUT_NO_WITNESS] = "no witness (sync-preserving or by reversal)",
        [RP_WOUT_INVALID] = "witness rejected by the validator",
        [RP_WOUT_NOT_RETRIED] = "not retried",
        [RP_WOUT_MISMATCH] = "access not in the window",
    };
    return (unsigned)o < RP_WOUT_COUNT ? names[o] : "unknown";
}

/* ---- the site-pair cache ------------------------------------------------- */

static uint64_t pair_key(const rp_race *r, uint8_t kinds)
{
    uint64_t k = r->first.site * 0x9e3779b97f4a7c15ull ^ r->second.site * 0xc2b2ae3d27d4eb4full;
    return (k ^ (k >> 29) ^ kinds) | 1;
}

static site_pair *find_pair(rp_window *w, const rp_race *r, bool create)
{
    uint8_t kinds = (uint8_t)(r->first.is_write << 1 | r->second.is_write);
    uint64_t key = pair_key(r, kinds);
    site_pair *p = u64map_get(&w->pairs, key);
    if (p != NULL)
        return p->site1 == r->first.site && p->site2 == r->second.site && p->kinds == kinds ? p
                                                                                          : NULL;
    if (!create || w->n_pairs >= MAX_SITE_PAIRS)
        return NULL;
    p = rp_calloc("rp.window.pair", 1, sizeof *p);
    p->site1 = r->first.site;
    p->site2 = r->second.site;
    p->kinds = kinds;
    u64map_put(&w->pairs, key, p);
    w->n_pairs++;
    return p;
}

/* ---- one attempt ---------------------------------------------------------- */

typedef struct attempt {
    rp_event *log;
    uint32_t n, n_base;
    uint64_t cut;           /* id of log[n_base] */
    uint8_t *in_w;
} attempt;

/* A code location for the critical section that starts at log[acq]: the
 * first access of its thread inside it, else the last one before it. */
static uint64_t section_site(const rp_window *w, const attempt *a, uint32_t acq, bool *inside)
{
    const rp_event *x = &a->log[acq];
    uint32_t end = a->n - acq > SITE_SCAN ? acq + SITE_SCAN : a->n;
    for (uint32_t i = acq + 1; i < end; i++) {
        const rp_event *e = &a->log[i];
        if (e->tid != x->tid)
            continue;
        if ((e->kind == RP_EV_RELEASE || e->kind == RP_EV_RELEASE_SHARED) && e->obj == x->obj)
            break;
        if (usable_site(w, e)) {
            *inside = true;
            return e->site;
        }
    }
    uint32_t lo = acq > SITE_SCAN ? acq - SITE_SCAN : 0;
    for (uint32_t i = acq; i-- > lo;) {
        const rp_event *e = &a->log[i];
        if (e->tid == x->tid && usable_site(w, e)) {
            *inside = false;
            return e->site;
        }
    }
    *inside = false;
    return 0;
}

static bool is_acq(uint8_t k)
{
    return k == RP_EV_ACQUIRE || k == RP_EV_ACQUIRE_SHARED;
}

/* Lists the step "first's section now runs before second's" (acquires of
 * one lock), unless listed already; beyond RP_WITNESS_STEPS_MAX only
 * counted. */
static void add_step(const rp_window *w, const attempt *a, rp_witness_desc *d, uint32_t first,
                     uint32_t second, bool reversed)
{
    const rp_event *x = &a->log[first], *y = &a->log[second];
    for (uint32_t k = 0; k < d->n_steps; k++)
        if (d->steps[k].lock == x->obj && d->steps[k].tid == x->tid &&
            d->steps[k].other_tid == y->tid && d->steps[k].reversed == reversed)
            return;
    if (d->n_steps == RP_WITNESS_STEPS_MAX) {
        d->more_steps++;
        return;
    }
    rp_witness_step *s = &d->steps[d->n_steps++];
    s->tid = x->tid;
    s->other_tid = y->tid;
    s->lock = x->obj;
    s->reversed = reversed;
    s->site = section_site(w, a, first, &s->site_inside);
    s->other_site = section_site(w, a, second, &s->other_site_inside);
}

/* Sections swapped: a kept acquire whose lock's previous acquire in the
 * witness comes later in the run (both sections kept). */
static void reversed_steps(const rp_window *w, const attempt *a, const rp_witness *wit,
                           rp_witness_desc *d)
{
    rp_u64map last;
    u64map_init(&last);
    for (uint32_t k = 0; k < wit->n; k++) {
        uint32_t i = wit->events[k];
        if (k > 0 && i < wit->events[k - 1])
            d->reordered = true;
        if (!is_acq(a->log[i].kind))
            continue;
        uintptr_t prev = (uintptr_t)u64map_get(&last, a->log[i].obj);
        u64map_put(&last, a->log[i].obj, (void *)(uintptr_t)(i + 1));
        if (prev != 0 && prev - 1 > i)
            add_step(w, a, d, (uint32_t)(prev - 1), i, true);
    }
    u64map_free(&last);
}

/* Sections left out: a kept acquire whose lock's previous acquire in the
 * run is another thread's, not kept (it follows that thread's racing
 * access, or a section of its that the witness does not need). */
static void dropped_steps(const rp_window *w, const attempt *a, rp_witness_desc *d)
{
    rp_u64map last;
    u64map_init(&last);
    for (uint32_t i = a->n_base; i < a->n; i++) {
        const rp_event *e = &a->log[i];
        if (!is_acq(e->kind))
            continue;
        uintptr_t prev = (uintptr_t)u64map_get(&last, e->obj);
        u64map_put(&last, e->obj, (void *)(uintptr_t)(i + 1));
        if (prev == 0 || !a->in_w[i])
            continue;
        const rp_event *p = &a->log[prev - 1];
        if (!a->in_w[prev - 1] && p->tid != e->tid && prev - 1 >= a->n_base)
            add_step(w, a, d, i, (uint32_t)(prev - 1), false);
    }
    u64map_free(&last);
}

/* The key steps of a validated witness (a->in_w marks its events):
 * swapped sections first, then the sections it leaves out. */
static void describe(const rp_window *w, const attempt *a, const rp_witness *wit, rp_witness_desc *d)
{
    rp_memset(d, 0, sizeof *d);
    d->cut = a->cut;
    d->span = a->n - a->n_base;
    d->kept = wit->n - a->n_base;
    d->held_at_cut = a->n_base;
    reversed_steps(w, a, wit, d);
    dropped_steps(w, a, d);
}

/* Builds log = synthetic acquires of the locks held at `cut`, then the
 * window's events cut .. last. */
static void build(rp_window *w, attempt *a, uint64_t cut, uint64_t last)
{
    held_set *h = &w->scratch;
    h->n = 0;
    for (uint32_t i = 0; i < w->held.n; i++) {
        rp_wevent e = { w->held.v[i].obj,
                        w->held.v[i].shared ? RP_EV_ACQUIRE_SHARED : RP_EV_ACQUIRE,
                        w->held.v[i].tid, 0 };
        held_apply(h, &e);
    }
    for (uint64_t id = first_id(w); id < cut; id++) {
        const rp_wevent *e = at_id(w, id);
        if (is_lock_kind(wkind(e)))
            held_apply(h, e);
    }
    a->cut = cut;
    a->n_base = h->n;
    a->n = h->n + (uint32_t)(last - cut + 1);
    if (a->n > w->log_cap) {
        rp_free(w->log);
        w->log_cap = a->n;
        w->log = rp_malloc("rp.window.log", (size_t)w->log_cap * sizeof *w->log);
    }
    a->log = w->log;
    a->in_w = rp_calloc("rp.window.inw", a->n, 1);
    for (uint32_t i = 0; i < h->n; i++) {
        rp_event *e = &a->log[i];
        rp_memset(e, 0, sizeof *e);
        e->id = cut;
        e->obj = h->v[i].obj;
        e->tid = h->v[i].tid;
        e->kind = h->v[i].shared ? RP_EV_ACQUIRE_SHARED : RP_EV_ACQUIRE;
    }
    for (uint64_t id = cut; id <= last; id++) {
        const rp_wevent *x = at_id(w, id);
        rp_event *e = &a->log[h->n + (id - cut)];
        e->id = id;
        e->obj = x->obj;
        e->site = wsite(x);
        e->tid = x->tid;
        e->size = x->size;
        e->kind = wkind(x);
        if (e->kind == RP_EV_FORGET && e->size > BIG_FORGET)
            e->kind = RP_EV_BRANCH;
    }
}

static bool matches(const rp_event *e, const rp_access *x)
{
    return rp_event_is_access(e) && e->tid == x->tid && (e->kind == RP_EV_WRITE) == x->is_write;
}

/* A race-pair cell may stand for several instances of one instruction in
 * one epoch of its thread (rp_allpairs.h, "twins"), and names the latest.
 * The instance that touched the racy bytes is that one or an earlier one
 * of the same thread, site and kind, after the thread's last event that
 * starts an epoch (release, fork, send); looked for over at most
 * RP_WINDOW_MARGIN events. */
static uint64_t racy_instance(const rp_window *w, const rp_race *race)
{
    uint64_t id = race->first.id, lo = first_id(w);
    if (id < lo || id > w->last_id)
        return race->first.id;
    const rp_wevent *named = at_id(w, id);
    for (uint32_t k = 0; k < RP_WINDOW_MARGIN && id >= lo; k++, id--) {
        const rp_wevent *e = at_id(w, id);
        if (e->tid != race->first.tid)
            continue;
        if (wkind(e) == RP_EV_RELEASE || wkind(e) == RP_EV_RELEASE_SHARED
            || wkind(e) == RP_EV_FORK || wkind(e) == RP_EV_SYNC_SEND)
            break;
        if (e->site_kind == named->site_kind && e->obj < race->addr + race->size
            && race->addr < e->obj + e->size)
            return id;
    }
    return race->first.id;
}

/* The ids of the witness's sub-log events, for rp_window_witness_ids. */
static void keep_ids(rp_window *w, const attempt *a, const rp_witness *wit)
{
    w->n_ids = 0;
    w->ids_cut = a->cut;
    for (uint32_t k = 0; k < wit->n; k++) {
        if (wit->events[k] < a->n_base)
            continue;
        w->ids = rp_array_reserve_from("rp.window.ids", w->ids, w->n_ids, &w->cap_ids,
                                       sizeof *w->ids, 64);
        w->ids[w->n_ids++] = a->log[wit->events[k]].id;
    }
}

/* Runs the shared validator on the witness a construction built over
 * `log` (the attempt's sub-log or a copy with the same indices); the
 * synthetic acquires are its fixed start.  On success describes it. */
static rp_window_outcome accept(rp_window *w, attempt *a, const rp_event *log,
                                const rp_witness *wit)
{
    rp_wcheck *chk = wcheck_create(log, a->n);
    wcheck_set_fixed(chk, a->n_base);
    bool ok = witness_check(chk, wit, NULL);
    wcheck_destroy(chk);
    if (!ok)
        return RP_WOUT_INVALID;
    for (uint32_t k = 0; k < wit->n; k++)
        a->in_w[wit->events[k]] = 1;
    describe(w, a, wit, &w->desc);
    if (w->keep_ids)
        keep_ids(w, a, wit);
    return RP_WOUT_CONFIRMED;
}

static rp_window_outcome try_sync_preserving(rp_window *w, attempt *a, rp_spc *spc,
                                             uint32_t e1, uint32_t e2, rp_witness *wit)
{
    return witness_for_pair(spc, e1, e2, wit) ? accept(w, a, a->log, wit) : RP_WOUT_NO_WITNESS;
}

/* A large forget that build() made a mere program-order step. */
static bool shrunk_forget(const rp_window *w, const attempt *a, uint32_t i)
{
    return i >= a->n_base && a->log[i].kind == RP_EV_BRANCH &&
           wkind(at_id(w, a->log[i].id)) == RP_EV_FORGET;
}

static uint32_t dense_tid(rp_u64map *dense, uint64_t tid, uint32_t *n_threads)
{
    uintptr_t d = (uintptr_t)u64map_get(dense, tid + 1);
    if (d == 0) {
        d = ++*n_threads;
        u64map_put(dense, tid + 1, (void *)d);
    }
    return (uint32_t)d - 1;
}

/* The work units of a reversal attempt, charged to the same budgets as
 * the sub-log: the facts' clocks (a word per event and thread of the
 * sub-log, threads numbered densely), the bytes its accesses touch, and
 * as much again per large forget (kept as a write here: a reordering may
 * move it across a read of its bytes). */
static uint64_t reversal_cost(const rp_window *w, const attempt *a, rp_u64map *dense,
                              uint32_t *n_threads)
{
    uint64_t bytes = 0, forgets = 0;
    for (uint32_t i = 0; i < a->n; i++) {
        const rp_event *e = &a->log[i];
        dense_tid(dense, e->tid, n_threads);
        if (e->kind == RP_EV_FORK || e->kind == RP_EV_JOIN)
            dense_tid(dense, e->obj, n_threads);
        if (rp_event_is_access(e))
            bytes += e->size;
        forgets += shrunk_forget(w, a, i);
    }
    return (uint64_t)a->n * (*n_threads + 1) + (1 + forgets) * bytes;
}

/* The sub-log with dense thread numbers and its large forgets restored. */
static rp_event *reversal_log(const rp_window *w, const attempt *a, rp_u64map *dense)
{
    uint32_t unused = 0;
    rp_event *log = rp_malloc("rp.window.rlog", ((size_t)a->n + 1) * sizeof *log);
    for (uint32_t i = 0; i < a->n; i++) {
        log[i] = a->log[i];
        log[i].tid = dense_tid(dense, a->log[i].tid, &unused);
        if (log[i].kind == RP_EV_FORK || log[i].kind == RP_EV_JOIN)
            log[i].obj = dense_tid(dense, a->log[i].obj, &unused);
        if (shrunk_forget(w, a, i))
            log[i].kind = RP_EV_FORGET;
    }
    return log;
}

static rp_window_outcome reverse(rp_window *w, attempt *a, const rp_event *log, uint32_t e1,
                                 uint32_t e2, rp_witness *wit)
{
    rp_tcfacts f;
    tc_build(&f, log, a->n);
    uint32_t *cone = rp_calloc("rp.window.cone", (size_t)f.n_threads + 1, sizeof *cone);
    uint32_t *loc = rp_malloc("rp.window.loc", ((size_t)a->n + 1) * sizeof *loc);
    bool found = tc_reversal_witness(&f, a->n_base, e1, e2, cone, loc, wit);
    rp_free(cone);
    rp_free(loc);
    tc_free(&f);
    if (!found)
        return RP_WOUT_NO_WITNESS;
    rp_window_outcome out = accept(w, a, log, wit);
    if (out == RP_WOUT_CONFIRMED && w->desc.reordered)
        w->reversals++;
    return out;
}

/* The sync-preserving closure without its lock rule (spc_set_lock_rule)
 * leaves both accesses out: else no witness exists, reversed or not.  It
 * costs at most the sub-log's length and spares hopeless pairs the facts
 * of rp_trcone.h.  It sees the large forgets as program-order steps: a
 * read of memory one of them refreshed may then bring an older writer
 * and refuse a pair the reversal would confirm (rare: such a read reads
 * memory no one wrote since); it never lets through a pair it should
 * refuse, as tc_reversal_witness decides anyway. */
static bool reversal_possible(rp_spc *spc, uint32_t e1, uint32_t e2, rp_witness *wit)
{
    spc_set_lock_rule(spc, false);
    return witness_for_pair(spc, e1, e2, wit);
}

/* OSR's construction on the sub-log (tc_reversal_witness), within the
 * budgets: the test above costs the sub-log's length, the construction
 * reversal_cost. */
static rp_window_outcome try_reversal(rp_window *w, attempt *a, rp_spc *spc, uint32_t e1,
                                      uint32_t e2, rp_witness *wit)
{
    if (w->work + a->n > w->work_budget)
        return RP_WOUT_BUDGET;
    w->work += a->n;
    if (!reversal_possible(spc, e1, e2, wit))
        return RP_WOUT_NO_WITNESS;
    rp_u64map dense;
    uint32_t n_threads = 0;
    rp_window_outcome out = RP_WOUT_BUDGET;
    u64map_init(&dense);
    uint64_t cost = reversal_cost(w, a, &dense, &n_threads);
    if (cost <= RP_WINDOW_MAX_REVERSAL && w->work + cost <= w->work_budget) {
        w->work += cost;
        rp_event *log = reversal_log(w, a, &dense);
        out = reverse(w, a, log, e1, e2, wit);
        rp_free(log);
    }
    u64map_free(&dense);
    return out;
}

/* ---- pairs an earlier attempt rules out ------------------------------------
 *
 * Without the lock rule the closure is a union: every rule adds what one
 * event already in S needs, so C(pred e1 ∪ pred e2) = C(pred e1) ∪
 * C(pred e2), and only C(pred e2) can hold e1 (C(pred e1) lies before e1).
 * A pair fails that test, and has no witness of either kind, exactly when
 * e1 ∈ C(pred e2).  C(pred e2) only grows along e2's thread.  And an
 * event y of the sub-log got into it through a chain of events that each
 * need the next, earlier one, all at y or after: the chain is the same in
 * any sub-log that starts at or before y (the same writers, sends, forks
 * and joins; a sub-log that starts earlier only adds writers).  So after
 * an attempt that built a sub-log and found no witness (none exists, or
 * the reversal is over its bound) the window keeps, for e2's thread, the last event of
 * every other thread in C(pred e2) (each got there through such a chain,
 * and brings its thread's earlier events): a later pair (e1', e2') with
 * e2' on that thread from e2 on and e1' at or before that last event of
 * its thread has no witness either, without building its sub-log.
 * Bursts of candidates (the fields of one structure, each its own
 * code-location pair, between the same two stretches of two threads)
 * cost one attempt instead of one each. */
typedef struct tr_cone {
    uint64_t from_id;   /* e2 of the attempt: for its thread's events from here on */
    uint32_t n_threads;
    uint64_t last[];    /* per thread: id of its last event in C(pred e2) + 1, 0: none */
} tr_cone;

/* Computes C(pred e2) and keeps it for e2's thread, merged with the cone
 * kept from an earlier e2 of the thread: both hold from this e2 on, so the
 * merge keeps each thread's later last event (this sub-log may start after
 * an event the earlier cone holds). */
static void remember_cone(rp_window *w, const attempt *a, rp_spc *spc, uint32_t e2)
{
    rp_tid_t t2 = a->log[e2].tid;
    tr_cone *old = u64map_get(&w->cones, (uint64_t)t2 + 1);
    uint32_t n_threads = spc_threads(spc);
    if (old != NULL && old->n_threads > n_threads)
        n_threads = old->n_threads;
    tr_cone *c = rp_calloc("rp.window.cone", 1, sizeof *c + (size_t)n_threads * sizeof c->last[0]);
    spc_set_lock_rule(spc, false);
    spc_begin(spc, e2);
    c->from_id = a->cut + (e2 - a->n_base);
    c->n_threads = n_threads;
    for (uint32_t u = 0; u < spc_threads(spc); u++) {
        uint32_t last = spc_cone_last(spc, u);
        c->last[u] = last == UINT32_MAX || last < a->n_base ? 0 : a->cut + (last - a->n_base) + 1;
    }
    for (uint32_t u = 0; old != NULL && old->from_id <= c->from_id && u < old->n_threads; u++)
        if (old->last[u] > c->last[u])
            c->last[u] = old->last[u];
    rp_free(old);
    u64map_put(&w->cones, (uint64_t)t2 + 1, c);
}

static bool ruled_out(const rp_window *w, const rp_race *race)
{
    const tr_cone *c = u64map_get(&w->cones, (uint64_t)race->second.tid + 1);
    rp_tid_t t1 = race->first.tid;
    return c != NULL && race->second.id >= c->from_id && t1 < c->n_threads
           && race->first.id < c->last[t1];
}

static rp_window_outcome attempt_pair(rp_window *w, rp_race *race)
{
    race->first.id = racy_instance(w, race);
    uint64_t id1 = race->first.id, id2 = race->second.id;
    if (w->count == 0 || id1 >= id2 || id2 > w->last_id || id1 < first_id(w))
        return RP_WOUT_OUT_OF_WINDOW;
    if (ruled_out(w, race)) {
        w->ruled_out++;
        return RP_WOUT_NO_WITNESS;
    }
    uint64_t cut = id1 > first_id(w) + w->margin ? id1 - w->margin : first_id(w);
    uint64_t len = id2 - cut + 1;
    if (len > RP_WINDOW_MAX_ATTEMPT || w->work + len > w->work_budget)
        return RP_WOUT_BUDGET;
    w->work += len;

    attempt a;
    build(w, &a, cut, id2);
    uint32_t e1 = a.n_base + (uint32_t)(id1 - cut), e2 = a.n_base + (uint32_t)(id2 - cut);
    rp_window_outcome out = RP_WOUT_MISMATCH;
    if (matches(&a.log[e1], &race->first) && matches(&a.log[e2], &race->second)) {
        rp_witness wit;
        rp_spc *spc = spc_create(a.log, a.n);
        spc_set_base(spc, a.n_base);
        witness_init(&wit);
        out = try_sync_preserving(w, &a, spc, e1, e2, &wit);
        if (out == RP_WOUT_NO_WITNESS && w->reversal)
            out = try_reversal(w, &a, spc, e1, e2, &wit);
        if (out != RP_WOUT_CONFIRMED)
            remember_cone(w, &a, spc, e2);
        witness_free(&wit);
        spc_destroy(spc);
    }
    rp_free(a.in_w);
    return out;
}

rp_window_outcome rp_window_confirm(rp_window *w, rp_race *race)
{
    site_pair *p = find_pair(w, race, false);
    rp_window_outcome out;
    if (p != NULL && p->confirmed) {
        w->desc = p->desc;
        out = RP_WOUT_CONFIRMED_SITES;
    } else if (p != NULL && p->fails >= RP_WINDOW_RETRIES) {
        out = RP_WOUT_NOT_RETRIED;
    } else {
        uint64_t work_before = w->work;
        out = attempt_pair(w, race);
        if (p == NULL)
            p = find_pair(w, race, true);
        if (p != NULL) {
            if (out == RP_WOUT_CONFIRMED) {
                p->confirmed = true;
                p->desc = w->desc;
            } else if (out != RP_WOUT_OUT_OF_WINDOW
                       && (out != RP_WOUT_BUDGET || w->work != work_before)) {
                p->fails++;     /* only attempts that cost work count: a
                                   reversal over its own bound did */
            }
        }
    }
    w->outcomes[out]++;
    if (out == RP_WOUT_CONFIRMED || out == RP_WOUT_CONFIRMED_SITES) {
        race->confirmed = true;
        race->witness = &w->desc;
    }
    return out;
}
