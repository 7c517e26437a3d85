/* rp_slab.c — fixed-size objects from slabs (rp_slab.h). */
#include "rp_slab.h"

#include "rp_shim.h"

#define SLAB_BYTES (64u << 10)

/* Room for one more pointer in a (pointer, count, capacity) stack. */
static void **grow_stack(void **stack, uint32_t count, uint32_t *cap)
{
    if (count < *cap)
        return stack;
    *cap = *cap == 0 ? 256 : 2 * *cap;
    return rp_realloc("rp.slab.pointers", stack, *cap * sizeof *stack);
}

void *slab_get(rp_slab *s)
{
    if (s->n_free != 0)
        return s->free[--s->n_free];
    if (s->slab == NULL || (size_t)(s->slab_end - s->slab) < s->size) {
        s->slabs = grow_stack(s->slabs, s->n_slabs, &s->cap_slabs);
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
    s->free = grow_stack(s->free, s->n_free, &s->cap_free);
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
