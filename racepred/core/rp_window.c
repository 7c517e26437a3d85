/* rp_window.c — the engine's bounded event window and online witness
 * confirmation (rp_window.h).
 */
#include "rp_window.h"

#include "rp_shim.h"
#include "rp_spclosure.h"
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
    rp_u64map pairs;            /* site-pair key -> site_pair */
    uint32_t n_pairs;
    uint64_t work, work_budget; /* sub-log events indexed so far */
    uint64_t outcomes[RP_WOUT_COUNT];
    rp_witness_desc desc;       /* the last confirmed witness */
    bool (*skip_site)(uint64_t site);
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
        if (h->n == h->cap) {
            h->cap = h->cap == 0 ? 16 : 2 * h->cap;
            h->v = rp_realloc("rp.window.held", h->v, h->cap * sizeof *h->v);
        }
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
    w->work_budget = (uint64_t)capacity * 64 > ((uint64_t)1 << 26) ? (uint64_t)capacity * 64
                                                                   : (uint64_t)1 << 26;
    return w;
}

static void free_pair(void *ctx, uint64_t key, void *value)
{
    (void)ctx;
    (void)key;
    rp_free(value);
}

void rp_window_destroy(rp_window *w)
{
    if (w == NULL)
        return;
    rp_free(w->ring);
    rp_free(w->held.v);
    rp_free(w->scratch.v);
    u64map_for_each(&w->pairs, free_pair, NULL);
    u64map_free(&w->pairs);
    rp_free(w);
}

void rp_window_append(rp_window *w, const rp_event *e)
{
    rp_wevent *slot;
    if (w->count == w->cap) {
        slot = &w->ring[w->head];
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
        [RP_WOUT_NO_WITNESS] = "no sync-preserving witness",
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

/* The key steps: each kept acquire whose lock's previous acquire (in the
 * run) is another thread's, dropped by the witness. */
static void describe(const rp_window *w, const attempt *a, const rp_witness *wit, rp_witness_desc *d)
{
    rp_u64map last;
    rp_memset(d, 0, sizeof *d);
    d->cut = a->cut;
    d->span = a->n - a->n_base;
    d->kept = wit->n - a->n_base;
    d->held_at_cut = a->n_base;
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
        if (a->in_w[prev - 1] || p->tid == e->tid || prev - 1 < a->n_base)
            continue;
        bool dup = false;
        for (uint32_t k = 0; k < d->n_steps; k++)
            if (d->steps[k].lock == e->obj && d->steps[k].tid == e->tid &&
                d->steps[k].other_tid == p->tid)
                dup = true;
        if (dup)
            continue;
        if (d->n_steps == RP_WITNESS_STEPS_MAX) {
            d->more_steps++;
            continue;
        }
        rp_witness_step *s = &d->steps[d->n_steps++];
        s->tid = e->tid;
        s->other_tid = p->tid;
        s->lock = e->obj;
        s->site = section_site(w, a, i, &s->site_inside);
        s->other_site = section_site(w, a, (uint32_t)(prev - 1), &s->other_site_inside);
    }
    u64map_free(&last);
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
    a->log = rp_malloc("rp.window.log", (size_t)a->n * sizeof *a->log);
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

static rp_window_outcome attempt_pair(rp_window *w, rp_race *race)
{
    race->first.id = racy_instance(w, race);
    uint64_t id1 = race->first.id, id2 = race->second.id;
    if (w->count == 0 || id1 >= id2 || id2 > w->last_id || id1 < first_id(w))
        return RP_WOUT_OUT_OF_WINDOW;
    uint64_t cut = id1 > first_id(w) + RP_WINDOW_MARGIN ? id1 - RP_WINDOW_MARGIN : first_id(w);
    uint64_t len = id2 - cut + 1;
    if (len > RP_WINDOW_MAX_ATTEMPT || w->work + len > w->work_budget)
        return RP_WOUT_BUDGET;
    w->work += len;

    attempt a;
    build(w, &a, cut, id2);
    uint32_t e1 = a.n_base + (uint32_t)(id1 - cut), e2 = a.n_base + (uint32_t)(id2 - cut);
    rp_window_outcome out;
    if (!matches(&a.log[e1], &race->first) || !matches(&a.log[e2], &race->second)) {
        out = RP_WOUT_MISMATCH;
    } else {
        rp_spc *spc = spc_create(a.log, a.n);
        rp_witness wit;
        witness_init(&wit);
        spc_set_base(spc, a.n_base);
        if (!witness_for_pair(spc, e1, e2, &wit)) {
            out = RP_WOUT_NO_WITNESS;
        } else {
            rp_wcheck *chk = wcheck_create(a.log, a.n);
            if (witness_check(chk, &wit, NULL)) {
                for (uint32_t k = 0; k < wit.n; k++)
                    a.in_w[wit.events[k]] = 1;
                describe(w, &a, &wit, &w->desc);
                out = RP_WOUT_CONFIRMED;
            } else {
                out = RP_WOUT_INVALID;
            }
            wcheck_destroy(chk);
        }
        witness_free(&wit);
        spc_destroy(spc);
    }
    rp_free(a.log);
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
        out = attempt_pair(w, race);
        if (p == NULL)
            p = find_pair(w, race, true);
        if (p != NULL) {
            if (out == RP_WOUT_CONFIRMED) {
                p->confirmed = true;
                p->desc = w->desc;
            } else if (out != RP_WOUT_OUT_OF_WINDOW && out != RP_WOUT_BUDGET) {
                p->fails++;     /* only attempts that cost work count */
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
