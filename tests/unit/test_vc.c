/* test_vc.c — vector clocks and epochs (racepred/core/rp_vc.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>

#include "rp_vc.h"

static void test_fresh_clock_is_zero(void **state)
{
    (void)state;
    rp_vc v;
    vc_init(&v);
    assert_int_equal(vc_get(&v, 0), 0);
    assert_int_equal(vc_get(&v, 1000), 0);
    vc_free(&v);
}

static void test_set_get_inc_grow(void **state)
{
    (void)state;
    rp_vc v;
    vc_init(&v);
    vc_set(&v, 3, 7);
    assert_int_equal(vc_get(&v, 3), 7);
    assert_int_equal(vc_get(&v, 2), 0);
    vc_inc(&v, 100);
    assert_int_equal(vc_get(&v, 100), 1);
    assert_int_equal(vc_get(&v, 3), 7);
    for (uint32_t t = 0; t < 100; t++)
        assert_int_equal(vc_get(&v, t), t == 3 ? 7 : 0);
    vc_free(&v);
}

static void test_join_is_pointwise_max(void **state)
{
    (void)state;
    rp_vc a, b;
    vc_init(&a);
    vc_init(&b);
    vc_set(&a, 0, 5);
    vc_set(&a, 1, 1);
    vc_set(&b, 1, 4);
    vc_set(&b, 6, 2);
    vc_join(&a, &b);
    assert_int_equal(vc_get(&a, 0), 5);
    assert_int_equal(vc_get(&a, 1), 4);
    assert_int_equal(vc_get(&a, 6), 2);
    assert_int_equal(vc_get(&b, 0), 0);
    vc_free(&a);
    vc_free(&b);
}

static void test_leq(void **state)
{
    (void)state;
    rp_vc a, b;
    vc_init(&a);
    vc_init(&b);
    assert_true(vc_leq(&a, &b));
    vc_set(&a, 2, 1);
    assert_false(vc_leq(&a, &b));
    assert_true(vc_leq(&b, &a));
    vc_set(&b, 2, 1);
    assert_true(vc_leq(&a, &b));
    assert_true(vc_leq(&b, &a));
    vc_set(&b, 0, 3);
    vc_set(&a, 5, 1);
    assert_false(vc_leq(&a, &b));
    assert_false(vc_leq(&b, &a));
    vc_free(&a);
    vc_free(&b);
}

static void test_copy_and_clear(void **state)
{
    (void)state;
    rp_vc a, b;
    vc_init(&a);
    vc_init(&b);
    vc_set(&b, 9, 9);
    vc_set(&a, 1, 2);
    vc_copy(&b, &a);
    assert_int_equal(vc_get(&b, 9), 0);
    assert_int_equal(vc_get(&b, 1), 2);
    vc_set(&a, 1, 3);
    assert_int_equal(vc_get(&b, 1), 2);
    vc_copy(&b, &b);
    assert_int_equal(vc_get(&b, 1), 2);
    vc_clear(&b);
    assert_int_equal(vc_get(&b, 1), 0);
    vc_free(&a);
    vc_free(&b);
}

static void test_epochs(void **state)
{
    (void)state;
    rp_vc v, w;
    vc_init(&v);
    vc_init(&w);
    vc_set(&v, 2, 4);
    rp_epoch e = epoch_of(&v, 2);
    assert_int_equal(e.tid, 2);
    assert_int_equal(e.clock, 4);
    assert_false(epoch_leq_vc(e, &w));
    vc_set(&w, 2, 3);
    assert_false(epoch_leq_vc(e, &w));
    vc_set(&w, 2, 4);
    assert_true(epoch_leq_vc(e, &w));
    vc_set(&w, 2, 5);
    assert_true(epoch_leq_vc(e, &w));
    vc_free(&v);
    vc_free(&w);
}

/* Freed clock arrays are reused (rp_vc.c's pool): a clock built from
 * reused arrays must read 0 wherever it was not set, whatever the freed
 * clocks held, at every capacity the pool keeps and past it. */
static void test_reused_arrays_read_zero(void **state)
{
    (void)state;
    enum { N = 64 };
    rp_vc v[N];
    for (int round = 0; round < 3; round++) {
        for (uint32_t i = 0; i < N; i++) {
            vc_init(&v[i]);
            uint32_t top = (i * 37u + (uint32_t)round * 11u) % 700u;
            assert_int_equal(vc_get(&v[i], top), 0);
            assert_int_equal(vc_get(&v[i], top / 2), 0);
            vc_set(&v[i], top, 0xdeadbeefu);
            vc_set(&v[i], top / 2, 0xfeedu);
            for (uint32_t t = 0; t < top; t++)
                if (t != top / 2)
                    assert_int_equal(vc_get(&v[i], t), 0);
        }
        for (uint32_t i = 0; i < N; i++)
            vc_free(&v[i]);
    }
}


/* ---- long clocks in shared blocks (rp_vc.h) -------------------------------------- */

enum { MODEL_CLOCKS = 8, MODEL_TIDS = 2100 };

static uint64_t rng_state;

static uint32_t rng(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33) % n;
}

/* Every clock equals its model, entry by entry, and reads 0 past it. */
static void check_all(rp_vc *v, uint32_t model[][MODEL_TIDS])
{
    for (int c = 0; c < MODEL_CLOCKS; c++)
        for (uint32_t t = 0; t < MODEL_TIDS + 20; t++)
            assert_int_equal(vc_get(&v[c], t), t < MODEL_TIDS ? model[c][t] : 0);
}

static bool model_leq(const uint32_t *a, const uint32_t *b)
{
    for (uint32_t t = 0; t < MODEL_TIDS; t++)
        if (a[t] > b[t])
            return false;
    return true;
}

/* One random operation on the clocks and on their model. */
static void random_op(rp_vc *v, uint32_t model[][MODEL_TIDS])
{
    int a = (int)rng(MODEL_CLOCKS), b = (int)rng(MODEL_CLOCKS);
    /* Mostly the low tids, as a run's clocks: long runs of equal entries. */
    uint32_t tid = rng(4) == 0 ? rng(MODEL_TIDS) : rng(20);
    switch (rng(7)) {
    case 0:
        vc_set(&v[a], tid, model[a][tid] = rng(50));
        break;
    case 1:
        vc_inc(&v[a], tid);
        model[a][tid]++;
        break;
    case 2:
    case 3:
        vc_join(&v[a], &v[b]);
        for (uint32_t t = 0; t < MODEL_TIDS; t++)
            model[a][t] = model[a][t] > model[b][t] ? model[a][t] : model[b][t];
        break;
    case 4:
        vc_copy(&v[a], &v[b]);
        for (uint32_t t = 0; t < MODEL_TIDS; t++)
            model[a][t] = model[b][t];
        break;
    case 5:
        assert_int_equal(vc_leq(&v[a], &v[b]), model_leq(model[a], model[b]));
        break;
    default:
        if (rng(2) == 0)
            vc_clear(&v[a]);
        else
            vc_free(&v[a]);
        for (uint32_t t = 0; t < MODEL_TIDS; t++)
            model[a][t] = 0;
        break;
    }
}

/* Random sets, increments, joins, copies, clears and comparisons on
 * clocks that share pages and blocks (three pages at most), against plain
 * arrays: a write to a shared page or block that reached another clock,
 * or one freed while still held, shows as a wrong entry somewhere.  Clocks
 * flat up to 1,000 entries, then up to 8, then none flat. */
static void test_random_against_model(void **state)
{
    (void)state;
    static uint32_t model[MODEL_CLOCKS][MODEL_TIDS];
    const uint32_t flat_max[] = { 1000, 8, 0 };
    uint32_t flat_max_before = rp_vc_flat_max;
    for (unsigned k = 0; k < sizeof flat_max / sizeof flat_max[0]; k++) {
        rp_vc v[MODEL_CLOCKS];
        rp_vc_flat_max = flat_max[k];
        rng_state = 42 + k;
        for (int c = 0; c < MODEL_CLOCKS; c++) {
            vc_init(&v[c]);
            for (uint32_t t = 0; t < MODEL_TIDS; t++)
                model[c][t] = 0;
        }
        for (int i = 0; i < 8000; i++) {
            random_op(v, model);
            check_all(v, model);
        }
        for (int c = 0; c < MODEL_CLOCKS; c++)
            vc_free(&v[c]);
        assert_int_equal(vc_blocks_in_use(), 0);
    }
    rp_vc_flat_max = flat_max_before;
}

/* A lock's last release keeps a copy of its releaser's clock; with 4,000
 * threads seen, 1,000 such copies that differ in one entry share all but
 * one page and one block each. */
static void test_copies_share_blocks(void **state)
{
    (void)state;
    enum { THREADS = 4000, LOCKS = 1000 };
    rp_vc thread, lock[LOCKS];
    vc_init(&thread);
    for (uint32_t t = 0; t < THREADS; t++)
        vc_set(&thread, t, t + 1);
    for (int l = 0; l < LOCKS; l++) {
        vc_init(&lock[l]);
        vc_copy(&lock[l], &thread);
        vc_inc(&thread, 7);
        assert_int_equal(vc_get(&lock[l], 7), 8 + (uint32_t)l);
        assert_int_equal(vc_get(&lock[l], THREADS - 1), THREADS);
    }
    /* The thread's first page and block were copied at each increment,
     * everything else is shared. */
    uint64_t parts = vc_blocks_in_use();
    assert_true(parts >= THREADS / RP_VC_BLOCK);
    assert_true(parts <= THREADS / RP_VC_BLOCK + THREADS / RP_VC_BLOCK / RP_VC_PAGE + 2 * LOCKS + 2);
    /* A join into a block the source's dominates takes the source's, and
     * the page that then has the source's blocks is the source's: lock[0]'s
     * own block and page go. */
    vc_join(&lock[0], &lock[1]);
    assert_int_equal(vc_get(&lock[0], 7), 9);
    assert_int_equal(vc_blocks_in_use(), parts - 2);
    for (int l = 0; l < LOCKS; l++)
        vc_free(&lock[l]);
    vc_free(&thread);
    assert_int_equal(vc_blocks_in_use(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fresh_clock_is_zero),
        cmocka_unit_test(test_set_get_inc_grow),
        cmocka_unit_test(test_join_is_pointwise_max),
        cmocka_unit_test(test_leq),
        cmocka_unit_test(test_copy_and_clear),
        cmocka_unit_test(test_epochs),
        cmocka_unit_test(test_reused_arrays_read_zero),
        cmocka_unit_test(test_random_against_model),
        cmocka_unit_test(test_copies_share_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
