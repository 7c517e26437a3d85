/* rp_sort.h — sorting without libc: an in-place heapsort of uint64 keys.
 *
 * Detectors that must emit results in a canonical order (all-pairs
 * post-processing) pack what they sort into one uint64 key.  O(n log n),
 * no allocation, not stable (equal keys are indistinguishable anyway).
 */
#ifndef RP_SORT_H
#define RP_SORT_H

#include <stddef.h>
#include <stdint.h>

void sort_u64(uint64_t *keys, size_t n);

/* Sorts, then removes duplicates; returns the new length. */
size_t sort_unique_u64(uint64_t *keys, size_t n);

#endif
