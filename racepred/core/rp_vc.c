/* rp_vc.c — vector clocks (see rp_vc.h). */
#include "rp_vc.h"

#include "rp_shim.h"
#include "rp_slab.h"

/* Clock arrays of up to 4 << (VC_POOL_CLASSES - 1) entries come from
 * slabs (rp_slab.h), one per capacity class (4 << k entries): wcp, dc and
 * sdp keep a clock per critical section, per synchronisation object and
 * per part of a lock's granule, millions of 16- to 64-byte arrays on a
 * lock-heavy server.  Larger clocks use the allocator directly. */
#define VC_POOL_CLASSES 8

#define VC_CLASS(k) { .size = (4u << (k)) * sizeof(uint32_t), .cost_centre = "rp.vc.slab" }

static rp_slab classes[VC_POOL_CLASSES] = {
    VC_CLASS(0), VC_CLASS(1), VC_CLASS(2), VC_CLASS(3),
    VC_CLASS(4), VC_CLASS(5), VC_CLASS(6), VC_CLASS(7)
};

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
    unsigned k = cap_class(cap);
    if (k >= VC_POOL_CLASSES)
        return rp_malloc("rp.vc", cap * sizeof(uint32_t));
    return slab_get(&classes[k]);
}

static void clock_array_put(uint32_t *clock, uint32_t cap)
{
    unsigned k = cap_class(cap);
    if (k >= VC_POOL_CLASSES)
        rp_free(clock);
    else
        slab_put(&classes[k], clock);
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
