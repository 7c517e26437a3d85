/* rp_sort.h — sorting without libc: uint64 keys.
 *
 * Detectors that must emit results in a canonical order (all-pairs
 * post-processing) pack what they sort into one uint64 key; the witness
 * window sorts the bytes a sub-log touches at every attempt.  A radix
 * sort, one byte a pass from the lowest, skipping the bytes every key
 * shares (addresses share their high ones): O(n) per pass, a buffer of n
 * keys.  It replaced a heapsort whose cache misses were 81 % of the time
 * of lockset on memcached (millions of touched bytes per attempt).
 * Short arrays go by insertion.
 */
#ifndef RP_SORT_H
#define RP_SORT_H

#include "rp_u64map.h"

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

/* The last writer of each touched byte, while a pass walks its log: an
 * array parallel to the touched bytes (4 bytes each, where a hash map
 * from byte to writer took 30-60), holding the index + 1 of the last
 * write or forget of that byte so far, 0 for none.  The bytes of one
 * access are all touched, so they are consecutive in it. */
typedef struct rp_lastw {
    const uint64_t *touched;
    size_t n_touched;
    uint32_t *last;
    /* 4 KiB page -> index + 1 of its first touched byte: a lookup bisects
     * one page's bytes (at most 4,096, near each other in memory) instead
     * of the whole array, whose every step was a cache miss. */
    rp_u64map pages;
} rp_lastw;

void lastw_init(rp_lastw *lw, const uint64_t *touched, size_t n_touched);
void lastw_free(rp_lastw *lw);

/* Index of the first touched byte >= obj, for an obj on a page some
 * touched byte is on (every access's bytes are). */
size_t lastw_pos(const rp_lastw *lw, uint64_t obj);

/* Event i writes or forgets [obj, obj + size): its touched bytes. */
void lastw_write(rp_lastw *lw, uint64_t obj, uint64_t size, uint32_t i);

/* The last writers (index + 1, 0: none) of the bytes from obj on, which
 * must be touched: element k is byte obj + k's while obj + k is too. */
static inline const uint32_t *lastw_of(const rp_lastw *lw, uint64_t obj)
{
    return lw->last + lastw_pos(lw, obj);
}

#endif
