/* rp_vc.c — vector clocks (see rp_vc.h). */
#include "rp_vc.h"

#include "rp_shim.h"

void vc_init(rp_vc *vc)
{
    vc->clock = NULL;
    vc->len = 0;
    vc->cap = 0;
}

void vc_free(rp_vc *vc)
{
    rp_free(vc->clock);
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
        vc->clock = rp_realloc("rp.vc", vc->clock, cap * sizeof(uint32_t));
        rp_memset(vc->clock + vc->cap, 0, (cap - vc->cap) * sizeof(uint32_t));
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
