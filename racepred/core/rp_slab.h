/* rp_slab.h — fixed-size objects from slabs, for the core's small,
 * short-lived, numerous records (vector clocks, the critical-section
 * rules' granules).
 *
 * One rp_slab hands out objects of one size, carved from 64 KiB slabs
 * taken from the host allocator and given back only by slab_fini (the
 * memory of a class stays at its peak until then).  A freed object goes on a stack of pointers,
 * not on a chain through the objects: popping a chained list loads the
 * object's first word, a cache miss when it was freed long ago, and the
 * critical-section rules free tens of thousands at once (when a lock's
 * bytes reach --cs-bytes) and take them back one by one.  The host
 * allocator's bookkeeping per block (Valgrind's free lists: a fifth of
 * memcached's run, a fifth of 7-Zip's) is what this avoids.
 */
#ifndef RP_SLAB_H
#define RP_SLAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct rp_slab {
    size_t size;           /* bytes per object, a multiple of 8 */
    const char *cost_centre;
    void **free;
    uint32_t n_free, cap_free;
    char *slab, *slab_end;
    void **slabs;          /* every slab taken, for slab_fini */
    uint32_t n_slabs, cap_slabs;
} rp_slab;

/* An object of s->size bytes, contents undefined.  A slab starts
 * zero-filled but for size and cost_centre. */
void *slab_get(rp_slab *s);
void slab_put(rp_slab *s, void *object);

/* Gives back every slab (every object of s goes with them); s can be
 * used again. */
void slab_fini(rp_slab *s);

#endif
