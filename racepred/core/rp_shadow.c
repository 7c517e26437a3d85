/* rp_shadow.c — sparse two-level shadow memory (see rp_shadow.h). */
#include "rp_shadow.h"

#include "rp_shim.h"

/* No chunk number reaches this: granules have 61 bits, chunks 48. */
#define NO_CHUNK UINT64_MAX

static void cache_clear(rp_shadow *s)
{
    for (uint32_t i = 0; i < RP_SHADOW_CACHE_ENTRIES; i++) {
        s->cache[i].chunk = NO_CHUNK;
        s->cache[i].slots = NULL;
    }
}

void shadow_init(rp_shadow *s, size_t slot_size)
{
    rp_assert(slot_size > 0);
    s->slot_size = slot_size;
    u64map_init(&s->chunks);
    cache_clear(s);
}

static void free_chunk(void *ctx, uint64_t chunk, void *slots)
{
    (void)ctx;
    (void)chunk;
    rp_free(slots);
}

void shadow_fini(rp_shadow *s)
{
    u64map_for_each(&s->chunks, free_chunk, NULL);
    u64map_free(&s->chunks);
    cache_clear(s);
}

rp_shadow *shadow_create(size_t slot_size)
{
    rp_shadow *s = rp_malloc("rp.shadow", sizeof *s);
    shadow_init(s, slot_size);
    return s;
}

void shadow_destroy(rp_shadow *s)
{
    if (s == NULL)
        return;
    shadow_fini(s);
    rp_free(s);
}

static uint8_t *slot_in(const rp_shadow *s, uint8_t *slots, uint64_t granule)
{
    return slots + (granule & (RP_SHADOW_CHUNK_GRANULES - 1)) * s->slot_size;
}

void *shadow_slot_slow(rp_shadow *s, uint64_t granule)
{
    uint64_t chunk = granule >> RP_SHADOW_CHUNK_BITS;
    uint8_t *slots = u64map_get(&s->chunks, chunk);
    if (slots == NULL) {
        slots = rp_calloc("rp.shadow.chunk", RP_SHADOW_CHUNK_GRANULES, s->slot_size);
        u64map_put(&s->chunks, chunk, slots);
    }
    rp_shadow_cache_entry *c = shadow_cache_entry(s, chunk);
    c->chunk = chunk;
    c->slots = slots;
    return slot_in(s, slots, granule);
}

void *shadow_find(rp_shadow *s, uint64_t granule)
{
    uint64_t chunk = granule >> RP_SHADOW_CHUNK_BITS;
    const rp_shadow_cache_entry *c = shadow_cache_entry(s, chunk);
    if (chunk == c->chunk)
        return slot_in(s, c->slots, granule);
    uint8_t *slots = u64map_get(&s->chunks, chunk);
    return slots == NULL ? NULL : slot_in(s, slots, granule);
}

uint8_t shadow_granule_mask(uint64_t granule, uint64_t addr, uint64_t size)
{
    uint64_t base = granule << RP_SHADOW_GRANULE_BITS;
    uint64_t first = addr > base ? addr - base : 0;
    uint64_t last_in_range = addr + (size - 1);          /* may wrap only if size overflows */
    uint64_t last = last_in_range - base < RP_SHADOW_GRANULE_SIZE ? last_in_range - base : 7;
    return (uint8_t)(((2u << last) - 1) & ~((1u << first) - 1));
}

/* The granules [lo, hi] of one chunk's slot array. */
static void clear_in_chunk(rp_shadow *s, uint8_t *slots, uint64_t lo, uint64_t hi,
                           uint64_t addr, uint64_t size, rp_shadow_slot_fn fn, void *ctx)
{
    for (uint64_t g = lo;; g++) {
        fn(ctx, g, slot_in(s, slots, g), shadow_granule_mask(g, addr, size));
        if (g == hi)
            return;
    }
}

typedef struct clear_request {
    rp_shadow *shadow;
    uint64_t addr, size, first_granule, last_granule;
    rp_shadow_slot_fn fn;
    void *ctx;
} clear_request;

static void clear_chunk_if_in_range(void *ctx, uint64_t chunk, void *slots)
{
    const clear_request *r = ctx;
    uint64_t lo = chunk << RP_SHADOW_CHUNK_BITS;
    uint64_t hi = lo + (RP_SHADOW_CHUNK_GRANULES - 1);
    if (hi < r->first_granule || lo > r->last_granule)
        return;
    if (lo < r->first_granule)
        lo = r->first_granule;
    if (hi > r->last_granule)
        hi = r->last_granule;
    clear_in_chunk(r->shadow, slots, lo, hi, r->addr, r->size, r->fn, r->ctx);
}

void shadow_clear_range(rp_shadow *s, uint64_t addr, uint64_t size,
                        rp_shadow_slot_fn fn, void *ctx)
{
    if (size == 0)
        return;
    uint64_t last_byte = addr + (size - 1) < addr ? UINT64_MAX : addr + (size - 1);
    clear_request r = { s, addr, last_byte - addr + 1, addr >> RP_SHADOW_GRANULE_BITS,
                        last_byte >> RP_SHADOW_GRANULE_BITS, fn, ctx };
    uint64_t first_chunk = r.first_granule >> RP_SHADOW_CHUNK_BITS;
    uint64_t last_chunk = r.last_granule >> RP_SHADOW_CHUNK_BITS;
    if (last_chunk - first_chunk >= s->chunks.count) {
        /* A huge range: walking the existing chunks is cheaper. */
        u64map_for_each(&s->chunks, clear_chunk_if_in_range, &r);
        return;
    }
    for (uint64_t chunk = first_chunk;; chunk++) {
        void *slots = u64map_get(&s->chunks, chunk);
        if (slots != NULL)
            clear_chunk_if_in_range(&r, chunk, slots);
        if (chunk == last_chunk)
            return;
    }
}

typedef struct visit_request {
    rp_shadow *shadow;
    rp_shadow_slot_fn fn;
    void *ctx;
} visit_request;

static void visit_chunk(void *ctx, uint64_t chunk, void *slots)
{
    const visit_request *r = ctx;
    uint64_t lo = chunk << RP_SHADOW_CHUNK_BITS;
    for (uint64_t i = 0; i < RP_SHADOW_CHUNK_GRANULES; i++)
        r->fn(r->ctx, lo + i, slot_in(r->shadow, slots, lo + i), 0xFF);
}

void shadow_for_each(rp_shadow *s, rp_shadow_slot_fn fn, void *ctx)
{
    visit_request r = { s, fn, ctx };
    u64map_for_each(&s->chunks, visit_chunk, &r);
}
