/* rp_shadow.h — generic, sparse shadow memory for the whole 64-bit address
 * space.
 *
 * Memory is shadowed per 8-byte granule (granule = addr >> 3).  Every
 * granule has one slot of a fixed size chosen by the owner at creation
 * (each detector creates its own shadow with its own slot type).  Slots start
 * zero-filled; the owner decides what a slot means.
 *
 * Layout: two levels.  The address space is cut into chunks of
 * 2^RP_SHADOW_CHUNK_BITS granules (64 KiB of client memory); a hash map
 * (rp_u64map) from chunk number to a lazily allocated array of slots is the
 * first level.  A direct-mapped cache of RP_SHADOW_CACHE_ENTRIES chunks,
 * indexed by the low bits of the chunk number, makes the common lookup a
 * load, a compare and a multiply-add (shadow_slot is inline); several
 * entries because clients interleave stack, heap and static data, which a
 * one-entry cache turns into a hash lookup on most switches.
 *
 * Slots may own memory (e.g. spilled arrays); the shadow does not know, so
 * clearing and iteration go through a callback of the owner, and the owner
 * must release slot contents (shadow_for_each) before shadow_destroy.
 *
 * Memory that a program frees and never reuses (a heap block whose
 * addresses the allocator moves on from, an unmapped region) would keep its
 * chunks forever: an owner that calls shadow_set_release lets
 * shadow_clear_range free every chunk the cleared range covers whole
 * (releasing its slots that are not zero).
 *
 * Chunks are whole pages of the host (rp_pages_alloc), not heap blocks: a
 * fresh chunk is resident only where slots were written (an arena's
 * calloc writes all of it), which saved 3.5 MB of 85 on pbzip2, and a
 * program that touches a byte every 64 KiB over 2 GB: 0.4 against 3.3 GB.  Freed
 * chunks (zeroed as their slots are released) go to a pool of
 * RP_SHADOW_SPARE_CHUNKS for reuse: a program that frees and allocates
 * big blocks in a loop would otherwise map and unmap chunks all the time
 * (a 2 MB block freed and allocated 800 times: 2.8 s of system time
 * against 0.05 s).
 */
#ifndef RP_SHADOW_H
#define RP_SHADOW_H

#include "rp_u64map.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_SHADOW_GRANULE_BITS 3
#define RP_SHADOW_GRANULE_SIZE (1u << RP_SHADOW_GRANULE_BITS)
#define RP_SHADOW_CHUNK_BITS 13
#define RP_SHADOW_CHUNK_GRANULES ((uint64_t)1 << RP_SHADOW_CHUNK_BITS)
#define RP_SHADOW_CHUNK_BYTES (RP_SHADOW_CHUNK_GRANULES << RP_SHADOW_GRANULE_BITS)
#define RP_SHADOW_CACHE_ENTRIES 64u
/* Freed chunks kept for reuse (see shadow_set_release). */
#define RP_SHADOW_SPARE_CHUNKS 64u

typedef struct rp_shadow_cache_entry {
    uint64_t chunk;            /* chunk number of slots; impossible value if none */
    uint8_t *slots;
} rp_shadow_cache_entry;

typedef void (*rp_shadow_slot_fn)(void *ctx, uint64_t granule, void *slot, uint8_t mask);

typedef struct rp_shadow {
    size_t slot_size;
    bool frees_chunks;         /* shadow_set_release was called */
    rp_shadow_slot_fn release; /* may be NULL: slots own nothing */
    void *release_ctx;
    rp_u64map chunks;          /* chunk number → slot array */
    rp_shadow_cache_entry cache[RP_SHADOW_CACHE_ENTRIES];   /* by chunk % entries */
    uint8_t *spare[RP_SHADOW_SPARE_CHUNKS];
    uint32_t n_spare;
} rp_shadow;

static inline rp_shadow_cache_entry *shadow_cache_entry(const rp_shadow *s, uint64_t chunk)
{
    return (rp_shadow_cache_entry *)&s->cache[chunk & (RP_SHADOW_CACHE_ENTRIES - 1)];
}

rp_shadow *shadow_create(size_t slot_size);
void shadow_destroy(rp_shadow *s);
/* The same for a shadow embedded in its owner's struct (one load less on
 * the owner's hot path). */
void shadow_init(rp_shadow *s, size_t slot_size);
void shadow_fini(rp_shadow *s);

/* Slot of a granule, allocating its chunk if needed (slow path of shadow_slot). */
void *shadow_slot_slow(rp_shadow *s, uint64_t granule);

/* Slot of a granule: lookup-or-create.  Never NULL. */
static inline void *shadow_slot(rp_shadow *s, uint64_t granule)
{
    const rp_shadow_cache_entry *c = shadow_cache_entry(s, granule >> RP_SHADOW_CHUNK_BITS);
    if ((granule >> RP_SHADOW_CHUNK_BITS) == c->chunk)
        return c->slots + (granule & (RP_SHADOW_CHUNK_GRANULES - 1)) * s->slot_size;
    return shadow_slot_slow(s, granule);
}

/* Slot of a granule if its chunk is cached, else NULL: the lookup of a
 * fast path that must not call out. */
static inline void *shadow_slot_if_cached(const rp_shadow *s, uint64_t granule)
{
    const rp_shadow_cache_entry *c = shadow_cache_entry(s, granule >> RP_SHADOW_CHUNK_BITS);
    if ((granule >> RP_SHADOW_CHUNK_BITS) != c->chunk)
        return NULL;
    return c->slots + (granule & (RP_SHADOW_CHUNK_GRANULES - 1)) * s->slot_size;
}

/* Slot of a granule if its chunk exists, else NULL (nothing is allocated). */
void *shadow_find(rp_shadow *s, uint64_t granule);
/* The same, and a chunk found in the map replaces its cache entry. */
void *shadow_find_refill(rp_shadow *s, uint64_t granule);

/* Slot callbacks get the bytes of the granule concerned as `mask` (bit i =
 * byte granule*8 + i).
 *
 * From now on, a chunk that shadow_clear_range covers whole is freed after
 * release(ctx, granule, slot, 0xFF) for each of its slots that is not all
 * zero (a zero slot owns nothing), which must let go of what the slot
 * owns; release may be NULL when slots own nothing. */
void shadow_set_release(rp_shadow *s, rp_shadow_slot_fn release, void *ctx);

/* Calls fn for every existing slot overlapping [addr, addr + size), with the
 * mask of the bytes inside the range; fn is expected to forget them (see
 * shadow_set_release for chunks covered whole). */
void shadow_clear_range(rp_shadow *s, uint64_t addr, uint64_t size,
                        rp_shadow_slot_fn fn, void *ctx);

/* Calls fn (mask 0xFF) for every slot of every allocated chunk, in no
 * particular order; empty (still zero) slots included. */
void shadow_for_each(rp_shadow *s, rp_shadow_slot_fn fn, void *ctx);

/* Byte mask of the bytes of `granule` inside [addr, addr + size); size > 0,
 * addr + size may be 2^64 (computed without overflow).  Inline: every
 * granule of every access that reaches a detector computes one. */
static inline uint8_t shadow_granule_mask(uint64_t granule, uint64_t addr, uint64_t size)
{
    uint64_t base = granule << RP_SHADOW_GRANULE_BITS;
    uint64_t first = addr > base ? addr - base : 0;
    uint64_t last_in_range = addr + (size - 1);          /* may wrap only if size overflows */
    uint64_t last = last_in_range - base < RP_SHADOW_GRANULE_SIZE ? last_in_range - base : 7;
    return (uint8_t)(((2u << last) - 1) & ~((1u << first) - 1));
}

/* The number of bytes in a granule's mask, without a library call (the
 * tool is built for any x86-64, so __builtin_popcount calls libgcc). */
static inline uint32_t shadow_mask_bytes(uint8_t mask)
{
    uint32_t m = mask - ((mask >> 1) & 0x55u);
    m = (m & 0x33u) + ((m >> 2) & 0x33u);
    return (m + (m >> 4)) & 0x0Fu;
}

#endif
