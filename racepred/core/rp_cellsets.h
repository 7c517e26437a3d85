/* rp_cellsets.h — interned cell sets: the cells that many granules have
 * alike, kept once.
 *
 * A granule of rp_allpairs.c remembers its recent accesses as 8-byte
 * cells (context number, bytes, event offset).  Loops over arrays of
 * structures or of 2-byte entries leave the same cells in granule after
 * granule: bzip2's unrolled loops write each granule with four
 * instructions, so 1.1 M of pbzip2's granules held two or four cells made
 * of 4,000 distinct lists.  When a race needs only its earlier access's
 * site, thread, kind and bytes (rp_detector_env.sites_suffice), a cell
 * names the latest access of its context instead of its own event, the
 * cells of such granules are equal, and a granule keeps a pointer to one
 * interned copy.
 *
 * A set is immutable: a granule whose cells change moves to another set
 * (or to a private array), so that the set's other holders are untouched.
 * Sets are reference-counted by the granules that hold them; the owner
 * holds the cells' contexts once per set (rp_cellctx.h).  A set without
 * holders stays: a loop passes every granule through the same lists (one
 * cell, two, three, four), each held by one granule at a time, and would
 * otherwise make and free them at every granule (2.5 M sets made for
 * pbzip2, 1.8 M for pigz).  The table drops the sets without holders when
 * it is half full, before it grows, and lets the owner let go of their
 * contexts then.
 *
 * A list becomes a set when it is met a second time (a direct-mapped table
 * of the hashes of lists met once): lists that no other granule has, a
 * program that synchronises between most accesses makes them, stay in
 * private arrays, which cost a third of a set and its table entry.
 *
 * Layout: sets of n cells from one rp_slab per n; an open-addressing table
 * (linear probing) of pointers to them by hash, rebuilt when it fills.
 * Each set has a number (from 1; a dropped set's is reused): an owner whose
 * granules have 4-byte slots names a set by it (rp_allpairs.c).
 * Cost: finding a list is a hash of its cells and, usually, one probe.
 */
#ifndef RP_CELLSETS_H
#define RP_CELLSETS_H

#include "rp_slab.h"

#include <stdbool.h>
#include <stdint.h>

/* The most cells in a set; granules with more keep private arrays. */
#define CELLSET_MAX 16u
#define CELLSETS_SEEN_BITS 12

struct rp_cellset {
    uint32_t holders;
    uint32_t number;       /* cellsets_by_number */
    uint64_t hash;
    uint32_t n;
    uint64_t cells[];
};

typedef struct rp_cellset rp_cellset;
/* Called for a set the table drops (no holders), before it is freed. */
typedef void (*rp_cellset_drop_fn)(void *ctx, rp_cellset *set);

typedef struct rp_cellsets {
    rp_cellset **table;    /* NULL: empty entry */
    uint32_t cap, count;
    uint32_t seen[1u << CELLSETS_SEEN_BITS];
    rp_slab slabs[CELLSET_MAX + 1];   /* by n */
    rp_cellset **by_number;           /* [0] unused */
    uint32_t n_numbers, cap_numbers;
    uint32_t *free_numbers;           /* numbers of dropped sets */
    uint32_t n_free, cap_free;
    rp_cellset_drop_fn drop;
    void *drop_ctx;
} rp_cellsets;

void cellsets_init(rp_cellsets *s, rp_cellset_drop_fn drop, void *drop_ctx);
/* Drops every set (their holders must have let go) and frees the table. */
void cellsets_fini(rp_cellsets *s);

uint64_t cellsets_hash(const uint64_t *cells, uint32_t n);

/* The set of these n cells (2 <= n <= CELLSET_MAX), or NULL. */
rp_cellset *cellsets_find(const rp_cellsets *s, const uint64_t *cells, uint32_t n,
                          uint64_t hash);

/* Whether a list of this hash was met before; remembers it if not. */
bool cellsets_met_before(rp_cellsets *s, uint64_t hash);

/* A new set of the cells, no holders yet; the list must not be a set.
 * May drop the sets without holders first. */
rp_cellset *cellsets_add(rp_cellsets *s, const uint64_t *cells, uint32_t n, uint64_t hash);

/* The set numbered `number`, which must be a set's that the table holds. */
static inline rp_cellset *cellsets_by_number(const rp_cellsets *s, uint32_t number)
{
    return s->by_number[number];
}

#endif
