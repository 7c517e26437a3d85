/* rp_cellsets.c — interned cell sets (rp_cellsets.h). */
#include "rp_cellsets.h"

#include "rp_array.h"
#include "rp_shim.h"

#define MIN_TABLE 256u

void cellsets_init(rp_cellsets *s, rp_cellset_drop_fn drop, void *drop_ctx)
{
    rp_memset(s, 0, sizeof *s);
    s->drop = drop;
    s->drop_ctx = drop_ctx;
    for (uint32_t n = 0; n <= CELLSET_MAX; n++) {
        s->slabs[n].size = sizeof(rp_cellset) + n * sizeof(uint64_t);
        s->slabs[n].cost_centre = "rp.allpairs.cellsets";
    }
}

uint64_t cellsets_hash(const uint64_t *cells, uint32_t n)
{
    uint64_t h = n;
    for (uint32_t i = 0; i < n; i++) {
        h = (h ^ cells[i]) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
    }
    return h ^ h >> 32;
}

/* A loop, not rp_memcmp: sets have at most CELLSET_MAX cells, and the
 * host's memcmp was 1.3 % of pigz under hb. */
static bool cells_equal(const uint64_t *a, const uint64_t *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

rp_cellset *cellsets_find(const rp_cellsets *s, const uint64_t *cells, uint32_t n,
                          uint64_t hash)
{
    if (s->count == 0)
        return NULL;
    for (uint32_t i = (uint32_t)hash & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        rp_cellset *set = s->table[i];
        if (set == NULL)
            return NULL;
        if (set->hash == hash && set->n == n && cells_equal(set->cells, cells, n))
            return set;
    }
}

bool cellsets_met_before(rp_cellsets *s, uint64_t hash)
{
    uint32_t *entry = &s->seen[hash >> (64 - CELLSETS_SEEN_BITS)];
    uint32_t mark = (uint32_t)hash | 1u;
    if (*entry == mark)
        return true;
    *entry = mark;
    return false;
}

static void insert(rp_cellset **table, uint32_t cap, rp_cellset *set)
{
    uint32_t i = (uint32_t)set->hash & (cap - 1);
    while (table[i] != NULL)
        i = (i + 1) & (cap - 1);
    table[i] = set;
}

/* A number for a new set: a dropped set's, else the next. */
static uint32_t number_take(rp_cellsets *s)
{
    if (s->n_free != 0)
        return s->free_numbers[--s->n_free];
    if (s->n_numbers == 0)
        s->n_numbers = 1;
    s->by_number = rp_array_reserve("rp.allpairs.cellsets.numbers", s->by_number, s->n_numbers,
                                    &s->cap_numbers, sizeof *s->by_number);
    return s->n_numbers++;
}

static void number_give_back(rp_cellsets *s, uint32_t number)
{
    s->free_numbers = rp_array_reserve("rp.allpairs.cellsets.numbers", s->free_numbers,
                                       s->n_free, &s->cap_free, sizeof *s->free_numbers);
    s->free_numbers[s->n_free++] = number;
}

static void drop(rp_cellsets *s, rp_cellset *set)
{
    rp_assert(set->holders == 0);
    s->drop(s->drop_ctx, set);
    number_give_back(s, set->number);
    slab_put(&s->slabs[set->n], set);
    s->count--;
}

/* Keeps the table at most half full: drops the sets without holders, and
 * doubles the table when the others would fill more than a quarter (so
 * that the next rebuild is at least a quarter of the table away). */
static void make_room(rp_cellsets *s)
{
    if (2 * (s->count + 1) <= s->cap)
        return;
    uint32_t live = 0;
    for (uint32_t i = 0; i < s->cap; i++)
        live += s->table[i] != NULL && s->table[i]->holders != 0;
    uint32_t cap = s->cap == 0 ? MIN_TABLE : s->cap;
    while (4 * (live + 1) > cap) {
        rp_assert(cap < UINT32_MAX / 2);
        cap *= 2;
    }
    rp_cellset **table = rp_calloc("rp.allpairs.cellsets.table", cap, sizeof *table);
    for (uint32_t i = 0; i < s->cap; i++) {
        rp_cellset *set = s->table[i];
        if (set != NULL && set->holders == 0)
            drop(s, set);
        else if (set != NULL)
            insert(table, cap, set);
    }
    rp_free(s->table);
    s->table = table;
    s->cap = cap;
}

rp_cellset *cellsets_add(rp_cellsets *s, const uint64_t *cells, uint32_t n, uint64_t hash)
{
    rp_assert(n >= 2 && n <= CELLSET_MAX);
    make_room(s);
    rp_cellset *set = slab_get(&s->slabs[n]);
    set->holders = 0;
    set->n = n;
    set->hash = hash;
    set->number = number_take(s);
    s->by_number[set->number] = set;
    rp_memcpy(set->cells, cells, n * sizeof *cells);
    insert(s->table, s->cap, set);
    s->count++;
    return set;
}

void cellsets_fini(rp_cellsets *s)
{
    for (uint32_t i = 0; i < s->cap; i++)
        if (s->table[i] != NULL)
            drop(s, s->table[i]);
    rp_free(s->table);
    rp_free(s->by_number);
    rp_free(s->free_numbers);
    for (uint32_t n = 0; n <= CELLSET_MAX; n++)
        slab_fini(&s->slabs[n]);
    cellsets_init(s, s->drop, s->drop_ctx);
}
