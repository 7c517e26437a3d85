/* rp_repeats.c — the engine's filter of repeated accesses (rp_repeats.h). */
#include "rp_repeats.h"

#include "rp_shim.h"

rp_repeats *repeats_create(void)
{
    rp_repeats *r = rp_calloc("rp.repeats", 1, sizeof *r);
    shadow_init(&r->shadow, sizeof(rp_repeat_slot));
    shadow_set_release(&r->shadow, NULL, NULL);
    return r;
}

void repeats_destroy(rp_repeats *r)
{
    if (r == NULL)
        return;
    shadow_fini(&r->shadow);
    rp_free(r->stamp);
    rp_free(r);
}

static void clear_slot(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    rp_repeat_slot *s = slot;
    (void)ctx;
    (void)granule;
    s->any &= (uint8_t)~mask;
    s->written &= (uint8_t)~mask;
}

static void forget_slot(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    rp_repeat_slot *s = slot;
    (void)ctx;
    (void)granule;
    (void)mask;
    s->stamp = 0;
}

/* A fresh stamp.  When the counter wraps, every stamp in the shadow could
 * alias a new one: forget them all and give every thread a new one. */
static uint32_t next_stamp(rp_repeats *r)
{
    if (r->last_stamp == UINT32_MAX) {
        shadow_for_each(&r->shadow, forget_slot, NULL);
        r->last_stamp = 0;
        for (uint32_t t = 0; t < r->n_threads; t++)
            r->stamp[t] = ++r->last_stamp;
    }
    return ++r->last_stamp;
}

/* Thread tid's current stamp (growing the table on first use). */
static uint32_t thread_stamp(rp_repeats *r, rp_tid_t tid)
{
    if (tid >= r->n_threads) {
        r->stamp = rp_realloc("rp.repeats.stamps", r->stamp, ((size_t)tid + 1) * sizeof(uint32_t));
        for (uint32_t t = r->n_threads; t <= tid; t++)
            r->stamp[t] = next_stamp(r);
        r->n_threads = tid + 1;
    }
    return r->stamp[tid];
}

static void new_span(rp_repeats *r, rp_tid_t tid)
{
    thread_stamp(r, tid);
    r->stamp[tid] = next_stamp(r);
}

/* Records the bytes of access e under its thread's stamp, granule by
 * granule: a granule whose stamp is another replaces it. */
static void note_access(rp_repeats *r, const rp_event *e)
{
    uint64_t addr = e->obj, size = e->size;
    if (size == 0)
        return;
    uint32_t stamp = thread_stamp(r, e->tid);
    uint64_t granule = addr >> RP_SHADOW_GRANULE_BITS;
    uint64_t last = (addr + (size - 1)) >> RP_SHADOW_GRANULE_BITS;
    if (addr + (size - 1) < addr)
        last = UINT64_MAX >> RP_SHADOW_GRANULE_BITS;
    for (;; granule++) {
        rp_repeat_slot *s = shadow_slot(&r->shadow, granule);
        uint8_t mask = shadow_granule_mask(granule, addr, size);
        if (s->stamp != stamp) {
            s->stamp = stamp;
            s->any = s->written = 0;
        }
        s->any |= mask;
        if (e->kind == RP_EV_WRITE)
            s->written |= mask;
        if (granule == last)
            return;
    }
}

void repeats_note(rp_repeats *r, const rp_event *e)
{
    switch (e->kind) {
    case RP_EV_READ:
    case RP_EV_WRITE:
        note_access(r, e);
        break;
    case RP_EV_FORGET:
        /* Fresh memory: the detectors drop what they knew of it, so an
         * access of it is new whatever the stamp says. */
        shadow_clear_range(&r->shadow, e->obj, e->size, clear_slot, NULL);
        break;
    case RP_EV_FORK:
    case RP_EV_JOIN:
        new_span(r, (rp_tid_t)e->obj);
        new_span(r, e->tid);
        break;
    default:
        new_span(r, e->tid);
        break;
    }
}
