/* rp_slab.c — fixed-size objects from slabs (rp_slab.h). */
#include "rp_slab.h"

#include "rp_shim.h"

#define SLAB_BYTES (64u << 10)

void *slab_get(rp_slab *s)
{
    if (s->n_free != 0)
        return s->free[--s->n_free];
    if (s->slab == NULL || (size_t)(s->slab_end - s->slab) < s->size) {
        s->slab = rp_malloc(s->cost_centre, SLAB_BYTES);
        s->slab_end = s->slab + SLAB_BYTES;
    }
    void *object = s->slab;
    s->slab += s->size;
    return object;
}

void slab_put(rp_slab *s, void *object)
{
    if (s->n_free == s->cap_free) {
        s->cap_free = s->cap_free == 0 ? 256 : 2 * s->cap_free;
        s->free = rp_realloc("rp.slab.free", s->free, s->cap_free * sizeof *s->free);
    }
    s->free[s->n_free++] = object;
}
