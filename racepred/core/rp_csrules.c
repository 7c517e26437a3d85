/* rp_csrules.c — critical-section rules of WCP/DC/WDC (rp_csrules.h). */
#include "rp_csrules.h"

#include "rp_shim.h"
#include "rp_u64map.h"

/* L^r_{l,x}, L^w_{l,x} for one byte x of one lock l. */
typedef struct cs_byte {
    rp_vc read;
    rp_vc write;
} cs_byte;

/* One critical section in a lock's history (rule b). */
typedef struct cs_entry {
    uint32_t acq_epoch;
    bool released;
    rp_vc rel;
} cs_entry;

/* A thread's history on one lock, and how far it consumed the others'. */
typedef struct cs_track {
    cs_entry *entries;
    uint32_t n, cap;
    uint32_t *next;        /* index = producer thread */
    uint32_t n_next;
} cs_track;

typedef struct cs_lock {
    rp_u64map bytes;       /* byte address → cs_byte */
    cs_track *tracks;      /* index = thread */
    uint32_t n_tracks;
} cs_lock;

typedef struct cs_access {
    uint64_t addr;
    uint32_t size;
    bool is_write;
} cs_access;

typedef struct cs_open {
    uint64_t lock;
    cs_access *accesses;
    uint32_t n, cap;
} cs_open;

/* The critical sections a thread has open, innermost last. */
typedef struct cs_stack {
    cs_open *open;
    uint32_t n, cap;
} cs_stack;

struct rp_csrules {
    bool rule_b;
    rp_u64map locks;       /* lock → cs_lock */
    cs_stack *threads;
    uint32_t n_threads;
};

static void *grow(void *array, uint32_t count, uint32_t *cap, size_t elem_size)
{
    if (count < *cap)
        return array;
    *cap = *cap == 0 ? 4 : 2 * *cap;
    return rp_realloc("rp.csrules.array", array, (size_t)*cap * elem_size);
}

static cs_lock *lock_of(rp_csrules *cs, uint64_t obj)
{
    cs_lock *l = u64map_get(&cs->locks, obj);
    if (l == NULL) {
        l = rp_calloc("rp.csrules.lock", 1, sizeof *l);
        u64map_init(&l->bytes);
        u64map_put(&cs->locks, obj, l);
    }
    return l;
}

static cs_byte *byte_of(cs_lock *l, uint64_t addr)
{
    cs_byte *b = u64map_get(&l->bytes, addr);
    if (b == NULL) {
        b = rp_malloc("rp.csrules.byte", sizeof *b);
        vc_init(&b->read);
        vc_init(&b->write);
        u64map_put(&l->bytes, addr, b);
    }
    return b;
}

static cs_track *track_of(cs_lock *l, rp_tid_t tid)
{
    if (tid >= l->n_tracks) {
        l->tracks = rp_realloc("rp.csrules.tracks", l->tracks, (tid + 1) * sizeof(cs_track));
        rp_memset(l->tracks + l->n_tracks, 0, (tid + 1 - l->n_tracks) * sizeof(cs_track));
        l->n_tracks = tid + 1;
    }
    return &l->tracks[tid];
}

static cs_stack *stack_of(rp_csrules *cs, rp_tid_t tid)
{
    if (tid >= cs->n_threads) {
        cs->threads = rp_realloc("rp.csrules.threads", cs->threads,
                                 (tid + 1) * sizeof(cs_stack));
        rp_memset(cs->threads + cs->n_threads, 0, (tid + 1 - cs->n_threads) * sizeof(cs_stack));
        cs->n_threads = tid + 1;
    }
    return &cs->threads[tid];
}

/* ---- acquire ---------------------------------------------------------------- */

void csrules_acquire(rp_csrules *cs, rp_tid_t tid, uint64_t lock, uint32_t acq_epoch)
{
    cs_stack *st = stack_of(cs, tid);
    st->open = grow(st->open, st->n, &st->cap, sizeof(cs_open));
    cs_open *o = &st->open[st->n++];
    o->lock = lock;
    o->accesses = NULL;
    o->n = o->cap = 0;
    if (!cs->rule_b)
        return;
    cs_track *tr = track_of(lock_of(cs, lock), tid);
    tr->entries = grow(tr->entries, tr->n, &tr->cap, sizeof(cs_entry));
    cs_entry *en = &tr->entries[tr->n++];
    en->acq_epoch = acq_epoch;
    en->released = false;
    vc_init(&en->rel);
}

/* ---- rule (a) ------------------------------------------------------------------ */

static void join_conflicting(cs_lock *l, const rp_event *e, rp_vc *dst, rp_vc *also)
{
    bool is_write = e->kind == RP_EV_WRITE;
    for (uint64_t i = 0; i < e->size; i++) {
        const cs_byte *b = u64map_get(&l->bytes, e->obj + i);
        if (b == NULL)
            continue;
        vc_join(dst, &b->write);
        if (also != NULL)
            vc_join(also, &b->write);
        if (is_write) {
            vc_join(dst, &b->read);
            if (also != NULL)
                vc_join(also, &b->read);
        }
    }
}

static void record_access(cs_open *o, const rp_event *e)
{
    bool is_write = e->kind == RP_EV_WRITE;
    if (o->n != 0) {
        const cs_access *last = &o->accesses[o->n - 1];
        if (last->addr == e->obj && last->size == e->size && last->is_write == is_write)
            return;
    }
    o->accesses = grow(o->accesses, o->n, &o->cap, sizeof(cs_access));
    o->accesses[o->n].addr = e->obj;
    o->accesses[o->n].size = e->size;
    o->accesses[o->n].is_write = is_write;
    o->n++;
}

void csrules_access(rp_csrules *cs, const rp_event *e, rp_vc *dst, rp_vc *also)
{
    cs_stack *st = stack_of(cs, e->tid);
    for (uint32_t i = 0; i < st->n; i++) {
        cs_lock *l = u64map_get(&cs->locks, st->open[i].lock);
        if (l != NULL)
            join_conflicting(l, e, dst, also);
        record_access(&st->open[i], e);
    }
}

/* ---- rule (b) ------------------------------------------------------------------ */

static uint32_t *consumed(cs_track *tr, rp_tid_t producer)
{
    if (producer >= tr->n_next) {
        tr->next = rp_realloc("rp.csrules.next", tr->next, (producer + 1) * sizeof(uint32_t));
        rp_memset(tr->next + tr->n_next, 0, (producer + 1 - tr->n_next) * sizeof(uint32_t));
        tr->n_next = producer + 1;
    }
    return &tr->next[producer];
}

/* Consumes producer's sections whose acquire is ordered before; true if any. */
static bool consume_ordered(cs_lock *l, rp_tid_t tid, rp_tid_t producer, rp_vc *order,
                            rp_vc *also)
{
    const cs_track *from = &l->tracks[producer];
    uint32_t *next = consumed(&l->tracks[tid], producer);
    bool any = false;
    while (*next < from->n && from->entries[*next].released
           && from->entries[*next].acq_epoch <= vc_get(order, producer)) {
        vc_join(order, &from->entries[*next].rel);
        if (also != NULL)
            vc_join(also, &from->entries[*next].rel);
        (*next)++;
        any = true;
    }
    return any;
}

void csrules_rule_b(rp_csrules *cs, rp_tid_t tid, uint64_t lock, rp_vc *order, rp_vc *also)
{
    cs_lock *l = u64map_get(&cs->locks, lock);
    if (!cs->rule_b || l == NULL)
        return;
    track_of(l, tid);
    for (bool changed = true; changed;) {
        changed = false;
        for (rp_tid_t u = 0; u < l->n_tracks; u++)
            if (u != tid && consume_ordered(l, tid, u, order, also))
                changed = true;
    }
}

/* ---- release -------------------------------------------------------------------- */

static void publish_accesses(cs_lock *l, const cs_open *o, const rp_vc *released)
{
    for (uint32_t i = 0; i < o->n; i++) {
        const cs_access *a = &o->accesses[i];
        for (uint64_t j = 0; j < a->size; j++) {
            cs_byte *b = byte_of(l, a->addr + j);
            vc_join(a->is_write ? &b->write : &b->read, released);
        }
    }
}

static void close_history_entry(cs_lock *l, rp_tid_t tid, const rp_vc *released)
{
    cs_track *tr = track_of(l, tid);
    for (uint32_t i = tr->n; i-- > 0;) {
        if (!tr->entries[i].released) {
            vc_copy(&tr->entries[i].rel, released);
            tr->entries[i].released = true;
            return;
        }
    }
}

void csrules_release(rp_csrules *cs, rp_tid_t tid, uint64_t lock, const rp_vc *released)
{
    cs_stack *st = stack_of(cs, tid);
    uint32_t i = st->n;
    while (i > 0 && st->open[i - 1].lock != lock)
        i--;
    if (i == 0)
        return;
    cs_open *o = &st->open[i - 1];
    cs_lock *l = lock_of(cs, lock);
    publish_accesses(l, o, released);
    if (cs->rule_b)
        close_history_entry(l, tid, released);
    rp_free(o->accesses);
    for (uint32_t j = i; j < st->n; j++)
        st->open[j - 1] = st->open[j];
    st->n--;
}

/* ---- life cycle --------------------------------------------------------------- */

rp_csrules *csrules_create(bool rule_b)
{
    rp_csrules *cs = rp_calloc("rp.csrules", 1, sizeof *cs);
    cs->rule_b = rule_b;
    u64map_init(&cs->locks);
    return cs;
}

static void free_byte(void *ctx, uint64_t key, void *value)
{
    cs_byte *b = value;
    (void)ctx;
    (void)key;
    vc_free(&b->read);
    vc_free(&b->write);
    rp_free(b);
}

static void free_lock(void *ctx, uint64_t key, void *value)
{
    cs_lock *l = value;
    (void)ctx;
    (void)key;
    u64map_for_each(&l->bytes, free_byte, NULL);
    u64map_free(&l->bytes);
    for (uint32_t t = 0; t < l->n_tracks; t++) {
        for (uint32_t i = 0; i < l->tracks[t].n; i++)
            vc_free(&l->tracks[t].entries[i].rel);
        rp_free(l->tracks[t].entries);
        rp_free(l->tracks[t].next);
    }
    rp_free(l->tracks);
    rp_free(l);
}

void csrules_destroy(rp_csrules *cs)
{
    if (cs == NULL)
        return;
    u64map_for_each(&cs->locks, free_lock, NULL);
    u64map_free(&cs->locks);
    for (uint32_t t = 0; t < cs->n_threads; t++) {
        for (uint32_t i = 0; i < cs->threads[t].n; i++)
            rp_free(cs->threads[t].open[i].accesses);
        rp_free(cs->threads[t].open);
    }
    rp_free(cs->threads);
    rp_free(cs);
}
