/* test_vc.c — vector clocks and epochs (racepred/core/rp_vc.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
