/* rp_vc.c — vector clocks (see rp_vc.h). */
#include "rp_vc.h"

#include "rp_shim.h"

/* Clock arrays of up to 4 << (VC_POOL_CLASSES - 1) entries come from
 * slabs, one free list per capacity class (4 << k entries): wcp, dc and
 * sdp keep a clock per critical section and per synchronisation object,
 * millions of 16- to 64-byte arrays on a lock-heavy server, and the host
 * allocator's per-block bookkeeping cost more than the clocks' own work
 * (memcached under the default detectors: a fifth of the run in Valgrind's
 * free-list code).  A freed array goes back to its class's list; slabs are
 * kept for the process's life, so the memory of small clocks stays at its
 * peak.  Larger clocks use the allocator directly. */
#define VC_POOL_CLASSES 8
#define VC_SLAB_BYTES (64u << 10)

typedef struct vc_free_array {
    struct vc_free_array *next;
} vc_free_array;

typedef struct vc_class {
    vc_free_array *free;
    char *slab, *slab_end;
} vc_class;

static vc_class classes[VC_POOL_CLASSES];

/* The class of a capacity (a power of two times 4), or VC_POOL_CLASSES. */
static unsigned cap_class(uint32_t cap)
{
    unsigned k = 0;
    while (k < VC_POOL_CLASSES && (4u << k) != cap)
        k++;
    return k;
}

/* An array of cap entries, contents undefined. */
static uint32_t *clock_array_get(uint32_t cap)
{
    size_t bytes = cap * sizeof(uint32_t);
    unsigned k = cap_class(cap);
    if (k >= VC_POOL_CLASSES)
        return rp_malloc("rp.vc", bytes);
    vc_class *c = &classes[k];
    if (c->free != NULL) {
        vc_free_array *a = c->free;
        c->free = a->next;
        return (uint32_t *)a;
    }
    if (c->slab == NULL || (size_t)(c->slab_end - c->slab) < bytes) {
        c->slab = rp_malloc("rp.vc.slab", VC_SLAB_BYTES);
        c->slab_end = c->slab + VC_SLAB_BYTES;
    }
    uint32_t *clock = (uint32_t *)c->slab;
    c->slab += bytes;
    return clock;
}

static void clock_array_put(uint32_t *clock, uint32_t cap)
{
    unsigned k = cap_class(cap);
    if (k >= VC_POOL_CLASSES) {
        rp_free(clock);
        return;
    }
    vc_free_array *a = (vc_free_array *)clock;
    a->next = classes[k].free;
    classes[k].free = a;
}

void vc_init(rp_vc *vc)
{
    vc->clock = NULL;
    vc->len = 0;
    vc->cap = 0;
}

void vc_free(rp_vc *vc)
{
    if (vc->clock != NULL)
        clock_array_put(vc->clock, vc->cap);
    vc_init(vc);
}

static void vc_grow(rp_vc *vc, uint32_t len)
{
    if (len <= vc->len)
        return;
    if (len > vc->cap) {
        uint32_t cap = vc->cap < 4 ? 4 : vc->cap;
        while (cap < len)
            cap *= 2;
        uint32_t *clock = clock_array_get(cap);
        if (vc->clock != NULL) {
            rp_memcpy(clock, vc->clock, vc->cap * sizeof(uint32_t));
            clock_array_put(vc->clock, vc->cap);
        }
        rp_memset(clock + vc->cap, 0, (cap - vc->cap) * sizeof(uint32_t));
        vc->clock = clock;
        vc->cap = cap;
    }
    vc->len = len;
}

void vc_set(rp_vc *vc, rp_tid_t tid, uint32_t clock)
{
    vc_grow(vc, tid + 1);
    vc->clock[tid] = clock;
}

void vc_inc(rp_vc *vc, rp_tid_t tid)
{
    vc_grow(vc, tid + 1);
    vc->clock[tid]++;
}

void vc_join(rp_vc *dst, const rp_vc *src)
{
    vc_grow(dst, src->len);
    for (uint32_t i = 0; i < src->len; i++)
        if (src->clock[i] > dst->clock[i])
            dst->clock[i] = src->clock[i];
}

void vc_copy(rp_vc *dst, const rp_vc *src)
{
    if (dst == src)
        return;
    vc_clear(dst);
    vc_grow(dst, src->len);
    rp_memcpy(dst->clock, src->clock, src->len * sizeof(uint32_t));
}

bool vc_leq(const rp_vc *a, const rp_vc *b)
{
    for (uint32_t i = 0; i < a->len; i++)
        if (a->clock[i] > vc_get(b, i))
            return false;
    return true;
}

void vc_clear(rp_vc *vc)
{
    if (vc->len != 0)
        rp_memset(vc->clock, 0, vc->len * sizeof(uint32_t));
    vc->len = 0;
}
