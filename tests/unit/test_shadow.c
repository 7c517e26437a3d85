/* test_shadow.c — sparse shadow memory (racepred/core/rp_shadow.h) and the
 * uint64 map under it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rp_shadow.h"
#include "rp_sort.h"
#include "rp_u64map.h"

#include <stdlib.h>
#include <string.h>

typedef struct test_slot {
    uint64_t value;
    uint8_t bytes;          /* bytes still "valid" */
} test_slot;

static void test_slots_start_zero_and_persist(void **state)
{
    (void)state;
    rp_shadow *s = shadow_create(sizeof(test_slot));
    test_slot *a = shadow_slot(s, 5);
    assert_int_equal(a->value, 0);
    a->value = 42;
    test_slot *far = shadow_slot(s, UINT64_MAX >> 3);
    far->value = 7;
    assert_ptr_equal(shadow_slot(s, 5), a);
    assert_int_equal(((test_slot *)shadow_slot(s, 5))->value, 42);
    assert_int_equal(((test_slot *)shadow_find(s, UINT64_MAX >> 3))->value, 7);
    assert_null(shadow_find(s, 1ull << 40));
    shadow_destroy(s);
}

static void test_neighbouring_granules_are_distinct(void **state)
{
    (void)state;
    rp_shadow *s = shadow_create(sizeof(test_slot));
    for (uint64_t g = 0; g < 3 * RP_SHADOW_CHUNK_GRANULES; g += 17)
        ((test_slot *)shadow_slot(s, g))->value = g + 1;
    for (uint64_t g = 0; g < 3 * RP_SHADOW_CHUNK_GRANULES; g += 17)
        assert_int_equal(((test_slot *)shadow_slot(s, g))->value, g + 1);
    shadow_destroy(s);
}

static void test_granule_mask(void **state)
{
    (void)state;
    assert_int_equal(shadow_granule_mask(0, 0, 8), 0xFF);
    assert_int_equal(shadow_granule_mask(0, 1, 2), 0x06);
    assert_int_equal(shadow_granule_mask(0, 6, 4), 0xC0);
    assert_int_equal(shadow_granule_mask(1, 6, 4), 0x03);
    assert_int_equal(shadow_granule_mask(2, 0, 512), 0xFF);
    assert_int_equal(shadow_granule_mask(UINT64_MAX >> 3, UINT64_MAX, 1), 0x80);
}

static void forget_bytes(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    unsigned *calls = ctx;
    test_slot *t = slot;
    (void)granule;
    t->bytes &= (uint8_t)~mask;
    (*calls)++;
}

static void test_clear_range_masks_edges(void **state)
{
    (void)state;
    rp_shadow *s = shadow_create(sizeof(test_slot));
    for (uint64_t g = 100; g < 110; g++)
        ((test_slot *)shadow_slot(s, g))->bytes = 0xFF;
    unsigned calls = 0;
    shadow_clear_range(s, 101 * 8 + 4, 8 * 3, forget_bytes, &calls);
    assert_int_equal(calls, 4);
    assert_int_equal(((test_slot *)shadow_slot(s, 100))->bytes, 0xFF);
    assert_int_equal(((test_slot *)shadow_slot(s, 101))->bytes, 0x0F);
    assert_int_equal(((test_slot *)shadow_slot(s, 102))->bytes, 0x00);
    assert_int_equal(((test_slot *)shadow_slot(s, 103))->bytes, 0x00);
    assert_int_equal(((test_slot *)shadow_slot(s, 104))->bytes, 0xF0);
    assert_int_equal(((test_slot *)shadow_slot(s, 105))->bytes, 0xFF);
    shadow_destroy(s);
}

static void test_clear_huge_range_visits_only_existing_chunks(void **state)
{
    (void)state;
    rp_shadow *s = shadow_create(sizeof(test_slot));
    ((test_slot *)shadow_slot(s, 3))->bytes = 0xFF;
    ((test_slot *)shadow_slot(s, 1ull << 50))->bytes = 0xFF;
    unsigned calls = 0;
    shadow_clear_range(s, 0, UINT64_MAX, forget_bytes, &calls);
    assert_int_equal(calls, 2 * RP_SHADOW_CHUNK_GRANULES);
    assert_int_equal(((test_slot *)shadow_slot(s, 3))->bytes, 0);
    assert_int_equal(((test_slot *)shadow_slot(s, 1ull << 50))->bytes, 0);
    calls = 0;
    shadow_clear_range(s, 1ull << 40, 8, forget_bytes, &calls);
    assert_int_equal(calls, 0);
    assert_null(shadow_find(s, 1ull << 37));
    shadow_destroy(s);
}

static void count_slot(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    uint64_t *sum = ctx;
    (void)granule;
    assert_int_equal(mask, 0xFF);
    *sum += ((test_slot *)slot)->value;
}

static void test_for_each(void **state)
{
    (void)state;
    rp_shadow *s = shadow_create(sizeof(test_slot));
    ((test_slot *)shadow_slot(s, 1))->value = 1;
    ((test_slot *)shadow_slot(s, 1ull << 30))->value = 10;
    ((test_slot *)shadow_slot(s, 1ull << 55))->value = 100;
    uint64_t sum = 0;
    shadow_for_each(s, count_slot, &sum);
    assert_int_equal(sum, 111);
    shadow_destroy(s);
}

static void test_u64map(void **state)
{
    (void)state;
    rp_u64map m;
    u64map_init(&m);
    static int values[1000];
    assert_null(u64map_get(&m, 0));
    for (uint64_t k = 0; k < 1000; k++)
        u64map_put(&m, k * 0x10000, &values[k]);
    for (uint64_t k = 0; k < 1000; k++)
        assert_ptr_equal(u64map_get(&m, k * 0x10000), &values[k]);
    assert_null(u64map_get(&m, 1));
    u64map_put(&m, 0, &values[5]);
    assert_ptr_equal(u64map_get(&m, 0), &values[5]);
    assert_int_equal(m.count, 1000);
    u64map_free(&m);
}

/* Removal against a reference array, with keys that collide in the table. */
static void test_u64map_remove(void **state)
{
    (void)state;
    enum { KEYS = 600 };
    static int values[KEYS];
    bool present[KEYS] = { false };
    rp_u64map m;
    u64map_init(&m);
    uint64_t rng = 12345;
    for (unsigned step = 0; step < 20000; step++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        unsigned k = (unsigned)(rng >> 33) % KEYS;
        uint64_t key = (uint64_t)k << 20;
        if ((rng >> 20) & 1) {
            u64map_put(&m, key, &values[k]);
            present[k] = true;
        } else {
            assert_ptr_equal(u64map_remove(&m, key), present[k] ? &values[k] : NULL);
            present[k] = false;
        }
        if (step % 997 == 0) {
            size_t count = 0;
            for (unsigned i = 0; i < KEYS; i++) {
                assert_ptr_equal(u64map_get(&m, (uint64_t)i << 20), present[i] ? &values[i] : NULL);
                count += present[i];
            }
            assert_int_equal(m.count, count);
        }
    }
    u64map_free(&m);
}

static void count_release(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    unsigned *released = ctx;
    (void)granule;
    assert_int_equal(mask, 0xFF);
    *released += ((test_slot *)slot)->value != 0;
}

static void forget_value(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    (void)ctx;
    (void)granule;
    if (mask == 0xFF)
        ((test_slot *)slot)->value = 0;
}

/* A cleared range frees the chunks it covers whole, after releasing their
 * slots, and only clears the slots of the chunks it covers in part. */
static void test_clear_range_frees_covered_chunks(void **state)
{
    (void)state;
    unsigned released = 0;
    rp_shadow *s = shadow_create(sizeof(test_slot));
    shadow_set_release(s, count_release, &released);
    uint64_t base = 4 * RP_SHADOW_CHUNK_GRANULES;
    for (uint64_t g = base; g < base + 3 * RP_SHADOW_CHUNK_GRANULES; g += 100)
        ((test_slot *)shadow_slot(s, g))->value = 1;
    assert_int_equal(s->chunks.count, 3);
    /* From the middle of chunk 4 to the end of chunk 5: chunk 5 is freed. */
    uint64_t from = (base + RP_SHADOW_CHUNK_GRANULES / 2) << RP_SHADOW_GRANULE_BITS;
    uint64_t to = (base + 2 * RP_SHADOW_CHUNK_GRANULES) << RP_SHADOW_GRANULE_BITS;
    shadow_clear_range(s, from, to - from, forget_value, NULL);
    assert_int_equal(s->chunks.count, 2);
    unsigned in_chunk5 = 0;
    for (uint64_t g = base; g < base + 3 * RP_SHADOW_CHUNK_GRANULES; g += 100)
        in_chunk5 += g >> RP_SHADOW_CHUNK_BITS == 5;
    assert_int_equal(released, in_chunk5);
    assert_null(shadow_find(s, base + RP_SHADOW_CHUNK_GRANULES + 50));
    assert_int_equal(((test_slot *)shadow_find(s, base))->value, 1);
    /* A huge range takes the other path: everything goes. */
    shadow_clear_range(s, 0, UINT64_MAX, forget_value, NULL);
    assert_int_equal(s->chunks.count, 0);
    assert_null(shadow_find(s, base));
    ((test_slot *)shadow_slot(s, base))->value = 3;
    assert_int_equal(((test_slot *)shadow_find(s, base))->value, 3);
    shadow_destroy(s);
}

/* What release_small saw: each granule released once, in a 4-byte slot
 * holding the granule's own number. */
typedef struct small_release {
    size_t slot_size;
    unsigned released;
    bool wrong;
} small_release;

static void release_small(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    small_release *r = ctx;
    uint8_t *bytes = slot;
    bool zero = true;
    for (size_t b = 0; b < r->slot_size; b++)
        zero = zero && bytes[b] == 0;
    if (zero)
        return;
    uint32_t value = 0;
    memcpy(&value, slot, r->slot_size < sizeof value ? r->slot_size : sizeof value);
    r->wrong = r->wrong || mask != 0xFF
               || value != (uint32_t)(granule & (r->slot_size < 4 ? 0xFFFF : 0xFFFFFFFF));
    r->released++;
}

/* Slots of 2, 4 and 8 bytes (several to an 8-byte word, or one): a chunk
 * a clear covers whole releases exactly its non-zero slots, each once,
 * and comes back zero-filled from the spare pool. */
static void test_small_slots_released_once(void **state)
{
    (void)state;
    const size_t sizes[] = { 2, 4, 8 };
    for (unsigned k = 0; k < 3; k++) {
        small_release r = { sizes[k], 0, false };
        rp_shadow *s = shadow_create(sizes[k]);
        shadow_set_release(s, release_small, &r);
        uint64_t base = 3 * RP_SHADOW_CHUNK_GRANULES;
        unsigned set = 0;
        for (uint64_t g = base; g < base + RP_SHADOW_CHUNK_GRANULES; g += 1 + g % 3) {
            uint32_t value = (uint32_t)(g & (sizes[k] < 4 ? 0xFFFF : 0xFFFFFFFF));
            memcpy(shadow_slot(s, g), &value, sizes[k] < sizeof value ? sizes[k] : sizeof value);
            set++;
        }
        shadow_clear_range(s, base << RP_SHADOW_GRANULE_BITS, RP_SHADOW_CHUNK_BYTES,
                           forget_value, NULL);
        assert_false(r.wrong);
        assert_int_equal(r.released, set);
        assert_int_equal(s->chunks.count, 0);
        uint8_t *slots = shadow_slot(s, base);
        for (size_t b = 0; b < RP_SHADOW_CHUNK_GRANULES * sizes[k]; b++)
            assert_int_equal(slots[b], 0);
        shadow_destroy(s);
    }
}

/* A freed chunk goes to the spare pool and comes back zero-filled for
 * another part of the address space; the pool keeps at most
 * RP_SHADOW_SPARE_CHUNKS chunks. */
static void test_freed_chunks_come_back_zero(void **state)
{
    (void)state;
    rp_shadow *s = shadow_create(sizeof(test_slot));
    shadow_set_release(s, NULL, NULL);
    uint32_t n = RP_SHADOW_SPARE_CHUNKS + 3;
    for (uint64_t c = 0; c < n; c++)
        for (uint64_t g = 0; g < RP_SHADOW_CHUNK_GRANULES; g += 7)
            ((test_slot *)shadow_slot(s, (c << RP_SHADOW_CHUNK_BITS) + g))->value = 9;
    shadow_clear_range(s, 0, n * RP_SHADOW_CHUNK_BYTES, forget_value, NULL);
    assert_int_equal(s->chunks.count, 0);
    assert_int_equal(s->n_spare, RP_SHADOW_SPARE_CHUNKS);
    uint64_t far = (uint64_t)1000 << RP_SHADOW_CHUNK_BITS;
    for (uint64_t c = 0; c < n; c++)
        for (uint64_t g = 0; g < RP_SHADOW_CHUNK_GRANULES; g++)
            assert_int_equal(((test_slot *)shadow_slot(s, far + (c << RP_SHADOW_CHUNK_BITS) + g))->value, 0);
    assert_int_equal(s->n_spare, 0);
    shadow_destroy(s);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* sort_u64 against qsort: short and long arrays, keys sharing high bytes
 * (addresses), keys over the whole range, many duplicates. */
static void test_sort_matches_qsort(void **state)
{
    (void)state;
    static uint64_t keys[5000], want[5000];
    uint64_t rng = 99;
    const size_t sizes[] = { 0, 1, 2, 47, 48, 49, 300, 5000 };
    for (unsigned kind = 0; kind < 3; kind++)
        for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            for (size_t i = 0; i < n; i++) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                keys[i] = kind == 0 ? 0x7ff000000000ull + (rng >> 40)
                        : kind == 1 ? rng : (rng >> 61);
                want[i] = keys[i];
            }
            qsort(want, n, sizeof want[0], compare_u64);
            sort_u64(keys, n);
            if (n > 0)
                assert_memory_equal(keys, want, n * sizeof keys[0]);
        }
}

static void test_sort_unique(void **state)
{
    (void)state;
    uint64_t keys[] = { 5, 3, 9, 3, 1, 5, 5, 0, UINT64_MAX };
    size_t n = sort_unique_u64(keys, sizeof keys / sizeof keys[0]);
    uint64_t want[] = { 0, 1, 3, 5, 9, UINT64_MAX };
    assert_int_equal(n, 6);
    assert_memory_equal(keys, want, sizeof want);
    assert_int_equal(sort_unique_u64(keys, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slots_start_zero_and_persist),
        cmocka_unit_test(test_neighbouring_granules_are_distinct),
        cmocka_unit_test(test_granule_mask),
        cmocka_unit_test(test_clear_range_masks_edges),
        cmocka_unit_test(test_clear_huge_range_visits_only_existing_chunks),
        cmocka_unit_test(test_for_each),
        cmocka_unit_test(test_u64map),
        cmocka_unit_test(test_u64map_remove),
        cmocka_unit_test(test_clear_range_frees_covered_chunks),
        cmocka_unit_test(test_freed_chunks_come_back_zero),
        cmocka_unit_test(test_small_slots_released_once),
        cmocka_unit_test(test_sort_matches_qsort),
        cmocka_unit_test(test_sort_unique),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
