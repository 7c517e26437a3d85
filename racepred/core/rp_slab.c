/* rp_slab.c — fixed-size objects from slabs (rp_slab.h). */
#include "rp_slab.h"

#include "rp_array.h"
#include "rp_shim.h"

#define SLAB_BYTES (64u << 10)

void *slab_get(rp_slab *s)
{
    if (s->n_free != 0)
        return s->free[--s->n_free];
    if (s->slab == NULL || (size_t)(s->slab_end - s->slab) < s->size) {
        s->slabs = rp_array_reserve("rp.slab.pointers", s->slabs, s->n_slabs, &s->cap_slabs,
                                    sizeof(void *));
        s->slab = rp_malloc(s->cost_centre, SLAB_BYTES);
        s->slab_end = s->slab + SLAB_BYTES;
        s->slabs[s->n_slabs++] = s->slab;
    }
    void *object = s->slab;
    s->slab += s->size;
    return object;
}

void slab_put(rp_slab *s, void *object)
{
    s->free = rp_array_reserve("rp.slab.pointers", s->free, s->n_free, &s->cap_free,
                               sizeof(void *));
    s->free[s->n_free++] = object;
}

void slab_fini(rp_slab *s)
{
    for (uint32_t i = 0; i < s->n_slabs; i++)
        rp_free(s->slabs[i]);
    rp_free(s->slabs);
    rp_free(s->free);
    s->slabs = NULL;
    s->free = NULL;
    s->n_slabs = s->cap_slabs = s->n_free = s->cap_free = 0;
    s->slab = s->slab_end = NULL;
}
