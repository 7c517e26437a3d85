/* rp_cellctx.c — interned access contexts of race-pair cells (rp_cellctx.h). */
#include "rp_cellctx.h"

#include "rp_shim.h"

#define MIN_CONTEXTS 64u

void cellctx_init(rp_cellctx_table *t)
{
    rp_memset(t, 0, sizeof *t);
    t->n = 1;
}

void cellctx_fini(rp_cellctx_table *t)
{
    rp_free(t->ctx);
    rp_free(t->first_ref);
    cellctx_init(t);
}

void cellctx_keep_firsts(rp_cellctx_table *t)
{
    rp_assert(t->n == 1);
    t->keeps_firsts = true;
}

static uint32_t *recent_entry(rp_cellctx_table *t, const rp_cellctx_key *key)
{
    uint64_t h = (key->site ^ (uint64_t)key->tid << 20) * 0x9E3779B97F4A7C15ull;
    return &t->recent[h >> (64 - CELLCTX_RECENT_BITS)];
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
            if (t->keeps_firsts)
                t->first_ref = rp_realloc("rp.allpairs.firsts", t->first_ref,
                                          (size_t)t->cap * sizeof *t->first_ref);
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
    if (t->keeps_firsts)
        t->first_ref[number] = ref;
    t->live++;
    return number;
}

/* Whether context `number` (0: none) is live, has the key and reaches ref. */
static inline bool context_serves(const rp_cellctx_table *t, uint32_t number,
                                  const rp_cellctx_key *key, uint64_t ref)
{
    return number != 0 && t->ctx[number].holders != 0 && cellctx_has_key(&t->ctx[number], key)
           && cellctx_reaches(t, number, ref);
}

uint32_t cellctx_intern(rp_cellctx_table *t, const rp_cellctx_key *key, uint64_t ref)
{
    /* The context interned last is asked first: a loop over fresh memory
     * interns one key per granule, and by then a walk through megabytes
     * of shadow has often evicted the recent table's line (bench/fresh.c:
     * that load was a quarter of intern's time).  Every call leaves
     * t->last in its key's entry of the table, so the answer is the
     * table's. */
    if (context_serves(t, t->last, key, ref))
        return t->last;
    uint32_t *recent = recent_entry(t, key);
    if (!context_serves(t, *recent, key, ref))
        *recent = new_context(t, key, ref);
    t->last = *recent;
    return t->last;
}

void cellctx_release(rp_cellctx_table *t, uint32_t number)
{
    rp_cellctx *c = &t->ctx[number];
    rp_assert(c->holders > 0);
    if (--c->holders != 0)
        return;
    c->base_ref = t->free_head;
    t->free_head = number;
    t->live--;
}
