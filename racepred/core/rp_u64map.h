/* rp_u64map.h — hash map from a uint64 key to a non-NULL pointer.
 *
 * Used for everything the detectors key by a 64-bit number: lock and sync
 * objects (rp_event.obj), the first level of shadow memory (rp_shadow.c).
 * Open addressing with linear probing, Fibonacci hashing, capacity a power
 * of two kept at most half full.  An entry is in use iff its value is not
 * NULL, so values must never be NULL.  Removal shifts the following entries
 * of the probe run back (no tombstones), so lookups stay as short as if the
 * entry had never been there.
 */
#ifndef RP_U64MAP_H
#define RP_U64MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct rp_u64map_entry {
    uint64_t key;
    void *value;
} rp_u64map_entry;

typedef struct rp_u64map {
    rp_u64map_entry *entries;
    size_t cap;        /* a power of two */
    size_t count;
} rp_u64map;

void u64map_init(rp_u64map *m);
/* Frees the table, not the values. */
void u64map_free(rp_u64map *m);
/* Frees the table and every value (each one rp_malloc'd block). */
void u64map_free_with_values(rp_u64map *m);

/* The value stored under key, or NULL. */
void *u64map_get(const rp_u64map *m, uint64_t key);
/* Stores value (not NULL) under key, replacing any earlier value. */
void u64map_put(rp_u64map *m, uint64_t key, void *value);

/* Removes key; returns its value, or NULL if it was not there. */
void *u64map_remove(rp_u64map *m, uint64_t key);

typedef void (*rp_u64map_visit_fn)(void *ctx, uint64_t key, void *value);

/* Removes every key in [first, first + count) and calls fn (if not NULL)
 * on each removed entry; returns how many were removed.  Costs
 * O(min(16 count, capacity)). */
size_t u64map_remove_range(rp_u64map *m, uint64_t first, uint64_t count,
                           rp_u64map_visit_fn fn, void *ctx);
/* Calls fn for every entry, in no particular order. */
void u64map_for_each(const rp_u64map *m, rp_u64map_visit_fn fn, void *ctx);

#endif
