/* rp_clocks.c — thread and object clock tables (rp_clocks.h). */
#include "rp_clocks.h"

#include "rp_array.h"
#include "rp_shim.h"

void tclocks_init(rp_thread_clocks *tc, uint32_t own_initial)
{
    tc->clock = NULL;
    tc->n = tc->cap = 0;
    tc->own_initial = own_initial;
}

void tclocks_free(rp_thread_clocks *tc)
{
    for (uint32_t t = 0; t < tc->n; t++)
        vc_free(&tc->clock[t]);
    rp_free(tc->clock);
    tc->clock = NULL;
    tc->n = tc->cap = 0;
}

void tclocks_grow(rp_thread_clocks *tc, rp_tid_t tid)
{
    uint32_t n = tid + 1;
    tc->clock = rp_array_reserve("rp.clocks.threads", tc->clock, tid, &tc->cap, sizeof(rp_vc));
    for (uint32_t t = tc->n; t < n; t++) {
        vc_init(&tc->clock[t]);
        vc_set(&tc->clock[t], t, tc->own_initial);
    }
    tc->n = n;
}

void tclocks_release(rp_thread_clocks *tc, rp_tid_t tid)
{
    if (tid < tc->n)
        vc_free(&tc->clock[tid]);
}

rp_vc *objclocks_get(rp_u64map *m, uint64_t obj)
{
    rp_vc *vc = u64map_get(m, obj);
    if (vc == NULL) {
        vc = rp_malloc("rp.clocks.object", sizeof *vc);
        vc_init(vc);
        u64map_put(m, obj, vc);
    }
    return vc;
}

static void free_clock(void *ctx, uint64_t key, void *value)
{
    (void)ctx;
    (void)key;
    vc_free(value);
    rp_free(value);
}

void objclocks_free(rp_u64map *m)
{
    u64map_for_each(m, free_clock, NULL);
    u64map_free(m);
}

void objclocks_forget(rp_u64map *m, uint64_t first, uint64_t count)
{
    u64map_remove_range(m, first, count, free_clock, NULL);
}
