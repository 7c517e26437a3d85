/* rp_array.c — growth of the core's arrays (rp_array.h). */
#include "rp_array.h"

#include "rp_shim.h"

#define FIRST_CAPACITY 8u

void *rp_array_grow(const char *cost_centre, void *array, size_t index, uint32_t *cap,
                    size_t elem_size)
{
    return rp_array_grow_from(cost_centre, array, index, cap, elem_size, FIRST_CAPACITY);
}

void *rp_array_grow_from(const char *cost_centre, void *array, size_t index, uint32_t *cap,
                         size_t elem_size, uint32_t first)
{
    rp_assert(index < UINT32_MAX / 2 && first > 0);
    uint32_t grown = *cap < first ? first : *cap;
    while (grown <= index)
        grown *= 2;
    *cap = grown;
    return rp_realloc(cost_centre, array, (size_t)grown * elem_size);
}

void *rp_array_append_zeroed(const char *cost_centre, void *array, size_t index, uint32_t *n,
                             uint32_t *cap, size_t elem_size)
{
    array = rp_array_reserve(cost_centre, array, index, cap, elem_size);
    rp_memset((char *)array + (size_t)*n * elem_size, 0, (index + 1 - *n) * elem_size);
    *n = (uint32_t)index + 1;
    return array;
}
