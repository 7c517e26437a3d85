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

/* Index of the first of sorted[0 .. n) that is >= key (n if none). */
size_t lower_bound_u64(const uint64_t *sorted, size_t n, uint64_t key);

struct rp_event;
/* The distinct bytes the reads and writes of log[0 .. n) touch, sorted
 * (free with rp_free; *count of them).  Offline passes that track a byte's
 * last writer apply a forget (which may span gigabytes: a large heap
 * block) to these bytes only, found with lower_bound_u64, so a forget
 * costs O(log + bytes accessed inside it), not O(its size). */
uint64_t *touched_bytes(const struct rp_event *log, uint32_t n, size_t *count);

/* for (j over the touched bytes inside [obj, obj + size)) */
#define FOR_TOUCHED_IN(j, t, nt, obj, size) \
    for (size_t j = lower_bound_u64((t), (nt), (obj)); \
         j < (nt) && (t)[j] - (obj) < (size); j++)

#endif
