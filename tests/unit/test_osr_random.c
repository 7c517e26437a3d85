/* test_osr_random.c — the "osr" detector on 12,000 random small traces
 * (fixed seed, rp_predict.h): every reported pair is predictable by brute
 * force and confirmed (its witness passed the shared validator). */
#include "rp_predict.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

static void test_osr_sound(void **state)
{
    predict_totals t;
    (void)state;
    predict_run("osr", 6000007ull, 12000, false, &t);
    fprintf(stderr, "osr: %u traces (%u two-thread checked for completeness), %u predictable "
            "pairs, %u reported, %u confirmed, %u HB-unordered, %u failing traces\n",
            t.traces, t.two_thread, t.predictable, t.reported, t.confirmed, t.observed,
            t.failures);
    assert_true(t.reported > 0);
    assert_int_equal(t.failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_osr_sound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
