/* rp_array.h — growth of the core's (pointer, count, capacity) arrays.
 *
 * Every array the core appends to, or indexes by thread number, grows
 * here: the capacity at least doubles, so that n elements cost O(n)
 * copying in all.  Arrays grown one element at a time (an array indexed by
 * thread, in a program that starts thousands of threads one after
 * another) copied themselves once per element: quadratic, and cubic where
 * such an array was copied per thread (rp_csrules.c at a fork).
 */
#ifndef RP_ARRAY_H
#define RP_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/* The array moved to a capacity above index, at least twice *cap. */
void *rp_array_grow(const char *cost_centre, void *array, size_t index, uint32_t *cap,
                    size_t elem_size);

/* The same, from a first capacity of `first` elements: for arrays of which
 * there are many and most stay short (a lock's tracks and sections). */
void *rp_array_grow_from(const char *cost_centre, void *array, size_t index, uint32_t *cap,
                         size_t elem_size, uint32_t first);

/* Makes element `index` of array (*cap elements of elem_size) exist: when
 * it does not, the array moves to a capacity at least twice as large.  New
 * elements are uninitialised. */
static inline void *rp_array_reserve(const char *cost_centre, void *array, size_t index,
                                     uint32_t *cap, size_t elem_size)
{
    return index < *cap ? array : rp_array_grow(cost_centre, array, index, cap, elem_size);
}

/* rp_array_reserve from a first capacity of `first` (rp_array_grow_from). */
static inline void *rp_array_reserve_from(const char *cost_centre, void *array, size_t index,
                                          uint32_t *cap, size_t elem_size, uint32_t first)
{
    return index < *cap ? array
                        : rp_array_grow_from(cost_centre, array, index, cap, elem_size, first);
}

/* The array's first *n elements extended to index + 1, the new ones zeroed. */
void *rp_array_append_zeroed(const char *cost_centre, void *array, size_t index, uint32_t *n,
                             uint32_t *cap, size_t elem_size);

/* The same for an array whose first *n elements are in use: when index is
 * beyond them, the elements up to it are zeroed and *n becomes index + 1. */
static inline void *rp_array_extend(const char *cost_centre, void *array, size_t index,
                                    uint32_t *n, uint32_t *cap, size_t elem_size)
{
    if (index < *n)
        return array;
    return rp_array_append_zeroed(cost_centre, array, index, n, cap, elem_size);
}

#endif
