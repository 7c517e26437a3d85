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
    s->frees_chunks = false;
    s->release = NULL;
    s->release_ctx = NULL;
    s->n_spare = 0;
    u64map_init(&s->chunks);
    cache_clear(s);
}

static size_t chunk_bytes(const rp_shadow *s)
{
    return RP_SHADOW_CHUNK_GRANULES * s->slot_size;
}

static void unmap_chunk(const rp_shadow *s, uint8_t *slots)
{
    rp_pages_free(slots, chunk_bytes(s));
    rp_bulk_free(chunk_bytes(s));
}

static void free_chunk(void *ctx, uint64_t chunk, void *slots)
{
    (void)chunk;
    unmap_chunk(ctx, slots);
}

void shadow_fini(rp_shadow *s)
{
    u64map_for_each(&s->chunks, free_chunk, s);
    u64map_free(&s->chunks);
    while (s->n_spare > 0)
        unmap_chunk(s, s->spare[--s->n_spare]);
    cache_clear(s);
}

/* A zero-filled chunk: a spare one, or fresh pages. */
static uint8_t *chunk_new(rp_shadow *s)
{
    if (s->n_spare > 0)
        return s->spare[--s->n_spare];
    rp_bulk_alloc(chunk_bytes(s));
    return rp_pages_alloc("rp.shadow.chunk", chunk_bytes(s));
}

/* A chunk whose slots are all zero again leaves the shadow. */
static void chunk_drop(rp_shadow *s, uint8_t *slots)
{
    if (s->n_spare < RP_SHADOW_SPARE_CHUNKS)
        s->spare[s->n_spare++] = slots;
    else
        unmap_chunk(s, slots);
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

void shadow_set_release(rp_shadow *s, rp_shadow_slot_fn release, void *ctx)
{
    s->frees_chunks = true;
    s->release = release;
    s->release_ctx = ctx;
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
        slots = chunk_new(s);
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

void *shadow_find_refill(rp_shadow *s, uint64_t granule)
{
    uint64_t chunk = granule >> RP_SHADOW_CHUNK_BITS;
    rp_shadow_cache_entry *c = shadow_cache_entry(s, chunk);
    if (chunk == c->chunk)
        return slot_in(s, c->slots, granule);
    uint8_t *slots = u64map_get(&s->chunks, chunk);
    if (slots == NULL)
        return NULL;
    c->chunk = chunk;
    c->slots = slots;
    return slot_in(s, slots, granule);
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

typedef uint64_t __attribute__((may_alias)) slot_word;

/* release_chunk_slots for slots that tile 8-byte words (4 or 8 bytes):
 * a word's slots are released, then the word is zeroed at once.  No
 * division and no byte loop per word: in a program that fills fresh
 * blocks and frees them (bench/fresh.c), every word of a freed block's
 * chunks is in use, and the general loop below was a tenth of hb's run. */
static void release_word_slots(rp_shadow *s, uint64_t chunk, uint8_t *slots)
{
    slot_word *word = (slot_word *)slots;
    uint64_t lo = chunk << RP_SHADOW_CHUNK_BITS;
    uint64_t per_word = sizeof *word / s->slot_size;
    for (uint64_t w = 0; w < chunk_bytes(s) / sizeof *word; w++) {
        if (word[w] == 0)
            continue;
        for (uint64_t i = w * per_word; s->release != NULL && i < (w + 1) * per_word; i++)
            s->release(s->release_ctx, lo + i, slots + i * s->slot_size, 0xFF);
        word[w] = 0;
    }
}

/* The chunk's slots that are not zero (a zero slot owns nothing) let go
 * of what they own and are zeroed.  Found by 8-byte words: most slots of
 * a freed block are usually still empty, and a call per slot cost a
 * program that frees 2 MB blocks in a loop a quarter of its run. */
static void release_chunk_slots(rp_shadow *s, uint64_t chunk, uint8_t *slots)
{
    if (sizeof(slot_word) % s->slot_size == 0) {
        release_word_slots(s, chunk, slots);
        return;
    }
    const slot_word *word = (const slot_word *)slots;
    uint64_t lo = chunk << RP_SHADOW_CHUNK_BITS;
    uint64_t next = 0;      /* the first slot not yet released */
    for (uint64_t w = 0; w < chunk_bytes(s) / sizeof *word; w++) {
        if (word[w] == 0)
            continue;
        uint64_t first = w * sizeof *word / s->slot_size;
        uint64_t last = (w * sizeof *word + sizeof *word - 1) / s->slot_size;
        for (uint64_t i = first > next ? first : next; i <= last; i++) {
            uint8_t *slot = slots + i * s->slot_size;
            if (s->release != NULL)
                s->release(s->release_ctx, lo + i, slot, 0xFF);
            for (size_t b = 0; b < s->slot_size; b++)
                slot[b] = 0;
        }
        next = last + 1;
    }
}

/* A chunk wholly inside a cleared range of an owner that allows it: its
 * slots let go of what they own and the chunk leaves the map and cache. */
static void free_covered_chunk(rp_shadow *s, uint64_t chunk, uint8_t *slots)
{
    release_chunk_slots(s, chunk, slots);
    u64map_remove(&s->chunks, chunk);
    rp_shadow_cache_entry *c = shadow_cache_entry(s, chunk);
    if (c->chunk == chunk) {
        c->chunk = NO_CHUNK;
        c->slots = NULL;
    }
    chunk_drop(s, slots);
}

static void clear_chunk_if_in_range(const clear_request *r, uint64_t chunk, uint8_t *slots)
{
    uint64_t lo = chunk << RP_SHADOW_CHUNK_BITS;
    uint64_t hi = lo + (RP_SHADOW_CHUNK_GRANULES - 1);
    if (hi < r->first_granule || lo > r->last_granule)
        return;
    if (r->shadow->frees_chunks && lo >= r->first_granule && hi <= r->last_granule
        && shadow_granule_mask(lo, r->addr, r->size) == 0xFF
        && shadow_granule_mask(hi, r->addr, r->size) == 0xFF) {
        free_covered_chunk(r->shadow, chunk, slots);
        return;
    }
    if (lo < r->first_granule)
        lo = r->first_granule;
    if (hi > r->last_granule)
        hi = r->last_granule;
    clear_in_chunk(r->shadow, slots, lo, hi, r->addr, r->size, r->fn, r->ctx);
}

typedef struct chunk_list {
    uint64_t *chunk;
    size_t n;
} chunk_list;

static void list_chunk(void *ctx, uint64_t chunk, void *slots)
{
    chunk_list *l = ctx;
    (void)slots;
    l->chunk[l->n++] = chunk;
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
        /* A huge range: visiting the existing chunks is cheaper.  Listed
         * first, because clearing may free some of them. */
        chunk_list l = { rp_malloc("rp.shadow.list", (s->chunks.count + 1) * sizeof(uint64_t)),
                         0 };
        u64map_for_each(&s->chunks, list_chunk, &l);
        for (size_t i = 0; i < l.n; i++)
            clear_chunk_if_in_range(&r, l.chunk[i], u64map_get(&s->chunks, l.chunk[i]));
        rp_free(l.chunk);
        return;
    }
    for (uint64_t chunk = first_chunk;; chunk++) {
        uint8_t *slots = u64map_get(&s->chunks, chunk);
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
