/* rp_u64map.c — uint64 → pointer hash map (see rp_u64map.h). */
#include "rp_u64map.h"

#include "rp_shim.h"

static size_t slot_of(uint64_t key, size_t cap)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

void u64map_init(rp_u64map *m)
{
    m->entries = NULL;
    m->cap = 0;
    m->count = 0;
}

void u64map_free(rp_u64map *m)
{
    rp_free(m->entries);
    u64map_init(m);
}

void u64map_free_with_values(rp_u64map *m)
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->entries[i].value != NULL)
            rp_free(m->entries[i].value);
    u64map_free(m);
}

void *u64map_get(const rp_u64map *m, uint64_t key)
{
    if (m->cap == 0)
        return NULL;
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        const rp_u64map_entry *e = &m->entries[i];
        if (e->value == NULL)
            return NULL;
        if (e->key == key)
            return e->value;
    }
}

static rp_u64map_entry *find_entry(rp_u64map *m, uint64_t key)
{
    for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        rp_u64map_entry *e = &m->entries[i];
        if (e->value == NULL || e->key == key)
            return e;
    }
}

static void grow(rp_u64map *m)
{
    rp_u64map old = *m;
    m->cap = old.cap == 0 ? 16 : old.cap * 2;
    m->entries = rp_calloc("rp.u64map", m->cap, sizeof(rp_u64map_entry));
    for (size_t i = 0; i < old.cap; i++)
        if (old.entries[i].value != NULL)
            *find_entry(m, old.entries[i].key) = old.entries[i];
    rp_free(old.entries);
}

void u64map_put(rp_u64map *m, uint64_t key, void *value)
{
    rp_assert(value != NULL);
    if (2 * (m->count + 1) > m->cap)
        grow(m);
    rp_u64map_entry *e = find_entry(m, key);
    if (e->value == NULL)
        m->count++;
    e->key = key;
    e->value = value;
}

void *u64map_remove(rp_u64map *m, uint64_t key)
{
    if (m->cap == 0)
        return NULL;
    rp_u64map_entry *e = find_entry(m, key);
    void *value = e->value;
    if (value == NULL)
        return NULL;
    size_t mask = m->cap - 1, hole = (size_t)(e - m->entries);
    /* An entry further along the run may move into the hole unless its home
     * slot lies after the hole (cyclically): then a lookup starting there
     * would never pass the hole. */
    for (size_t i = (hole + 1) & mask; m->entries[i].value != NULL; i = (i + 1) & mask) {
        size_t home = slot_of(m->entries[i].key, m->cap);
        if (((i - home) & mask) >= ((i - hole) & mask)) {
            m->entries[hole] = m->entries[i];
            hole = i;
        }
    }
    m->entries[hole].key = 0;
    m->entries[hole].value = NULL;
    m->count--;
    return value;
}

void u64map_for_each(const rp_u64map *m, rp_u64map_visit_fn fn, void *ctx)
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->entries[i].value != NULL)
            fn(ctx, m->entries[i].key, m->entries[i].value);
}

static size_t remove_one(rp_u64map *m, uint64_t key, rp_u64map_visit_fn fn, void *ctx)
{
    void *value = u64map_remove(m, key);
    if (value == NULL)
        return 0;
    if (fn != NULL)
        fn(ctx, key, value);
    return 1;
}

/* A range of more than capacity / this many keys is removed by a scan. */
#define RANGE_SCAN_RATIO 16u

size_t u64map_remove_range(rp_u64map *m, uint64_t first, uint64_t count,
                           rp_u64map_visit_fn fn, void *ctx)
{
    size_t removed = 0;
    if (m->count == 0)
        return 0;
    if (count <= m->cap / RANGE_SCAN_RATIO) {
        for (uint64_t i = 0; i < count; i++)
            removed += remove_one(m, first + i, fn, ctx);
        return removed;
    }
    /* A range that is not small beside the table: scan the table instead,
     * in order, where each key looked up is a random probe (a cache miss
     * in a large table; most keys of a range are usually absent).  A
     * removal may shift a later entry into the slot just scanned, so the
     * slot is looked at again before moving on. */
    for (size_t i = 0; i < m->cap;) {
        const rp_u64map_entry *e = &m->entries[i];
        if (e->value != NULL && e->key - first < count)
            removed += remove_one(m, e->key, fn, ctx);
        else
            i++;
    }
    return removed;
}
