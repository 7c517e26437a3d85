/* rp_cellctx.c — interned access contexts of race-pair cells (rp_cellctx.h). */
#include "rp_cellctx.h"

#include "rp_shim.h"

#define MIN_CONTEXTS 64u
#define MIN_INDEX 64u

void cellctx_init(rp_cellctx_table *t)
{
    rp_memset(t, 0, sizeof *t);
    t->n = 1;
}

void cellctx_fini(rp_cellctx_table *t)
{
    rp_free(t->ctx);
    rp_free(t->index);
    cellctx_init(t);
}

bool cellctx_has_key(const rp_cellctx *c, const rp_cellctx_key *key)
{
    return c->site == key->site && c->tid == key->tid && c->clock == key->clock
           && c->hb_clock == key->hb_clock && c->tag == key->tag
           && c->twin_size == key->twin_size && c->is_write == key->is_write;
}

static rp_cellctx_key key_of(const rp_cellctx *c)
{
    rp_cellctx_key key = { c->site, c->tid, c->clock, c->hb_clock, c->tag, c->twin_size,
                           c->is_write };
    return key;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h = (h ^ v) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static uint32_t key_hash(const rp_cellctx_key *key)
{
    uint64_t h = mix(key->site, (uint64_t)key->tid << 32 | key->clock);
    h = mix(h, (uint64_t)key->hb_clock << 32 | key->tag);
    h = mix(h, (uint64_t)key->twin_size << 1 | key->is_write);
    return (uint32_t)(h >> 32);
}

/* The index position of key's context, or the empty one its probe ends at. */
static uint32_t probe(const rp_cellctx_table *t, const rp_cellctx_key *key)
{
    uint32_t last = t->index_cap - 1;
    for (uint32_t i = key_hash(key) & last;; i = (i + 1) & last) {
        uint32_t number = t->index[i];
        if (number == 0 || cellctx_has_key(&t->ctx[number], key))
            return i;
    }
}

static void index_grow(rp_cellctx_table *t)
{
    uint32_t *old = t->index;
    uint32_t old_cap = t->index_cap;
    t->index_cap = old_cap == 0 ? MIN_INDEX : 2 * old_cap;
    t->index = rp_calloc("rp.allpairs.contexts", t->index_cap, sizeof(uint32_t));
    for (uint32_t i = 0; i < old_cap; i++) {
        if (old[i] == 0)
            continue;
        rp_cellctx_key key = key_of(&t->ctx[old[i]]);
        t->index[probe(t, &key)] = old[i];
    }
    rp_free(old);
}

/* Empties index position hole, moving later entries of its probe run back
 * so that every key stays reachable from its home position. */
static void index_remove_at(rp_cellctx_table *t, uint32_t hole)
{
    uint32_t last = t->index_cap - 1;
    for (uint32_t i = (hole + 1) & last; t->index[i] != 0; i = (i + 1) & last) {
        rp_cellctx_key key = key_of(&t->ctx[t->index[i]]);
        uint32_t home = key_hash(&key) & last;
        if (((i - home) & last) >= ((i - hole) & last)) {
            t->index[hole] = t->index[i];
            hole = i;
        }
    }
    t->index[hole] = 0;
    t->index_count--;
}

static uint32_t new_context(rp_cellctx_table *t, const rp_cellctx_key *key, uint64_t ref)
{
    uint32_t number = t->free_head;
    if (number != 0) {
        t->free_head = (uint32_t)t->ctx[number].base_ref;
    } else {
        if (t->n >= t->cap) {
            rp_assert(t->cap < UINT32_MAX / 2);
            t->cap = t->cap < MIN_CONTEXTS ? MIN_CONTEXTS : 2 * t->cap;
            t->ctx = rp_realloc("rp.allpairs.contexts", t->ctx, (size_t)t->cap * sizeof *t->ctx);
        }
        number = t->n++;
    }
    rp_cellctx *c = &t->ctx[number];
    c->site = key->site;
    c->base_ref = ref;
    c->tid = key->tid;
    c->clock = key->clock;
    c->hb_clock = key->hb_clock;
    c->tag = key->tag;
    c->holders = 0;
    c->twin_size = key->twin_size;
    c->is_write = key->is_write;
    t->live++;
    return number;
}

/* The site's recent context, if it is live, has the key and reaches ref.
 * It is then the newest of its key: a newer one would have replaced it
 * here when it was made. */
static uint32_t *recent_entry(rp_cellctx_table *t, uint64_t site)
{
    return &t->recent[(site ^ site >> 6) & (CELLCTX_RECENT - 1)];
}

static bool recent_fits(const rp_cellctx_table *t, uint32_t number, const rp_cellctx_key *key,
                        uint64_t ref)
{
    return number != 0 && t->ctx[number].holders != 0 && cellctx_has_key(&t->ctx[number], key)
           && cellctx_reaches(t, number, ref);
}

/* The index's context of key if it reaches ref, else a new one. */
static uint32_t intern_indexed(rp_cellctx_table *t, const rp_cellctx_key *key, uint64_t ref)
{
    if (2 * (t->index_count + 1) > t->index_cap)
        index_grow(t);
    uint32_t pos = probe(t, key);
    uint32_t number = t->index[pos];
    if (number != 0 && cellctx_reaches(t, number, ref))
        return number;
    if (number == 0)
        t->index_count++;
    t->index[pos] = new_context(t, key, ref);
    return t->index[pos];
}

uint32_t cellctx_intern(rp_cellctx_table *t, const rp_cellctx_key *key, uint64_t ref)
{
    uint32_t *recent = recent_entry(t, key->site);
    if (!recent_fits(t, *recent, key, ref))
        *recent = intern_indexed(t, key, ref);
    return *recent;
}

void cellctx_release(rp_cellctx_table *t, uint32_t number)
{
    rp_cellctx *c = &t->ctx[number];
    rp_assert(c->holders > 0);
    if (--c->holders != 0)
        return;
    rp_cellctx_key key = key_of(c);
    uint32_t pos = probe(t, &key);
    if (t->index[pos] == number)
        index_remove_at(t, pos);
    c->base_ref = t->free_head;
    t->free_head = number;
    t->live--;
}
