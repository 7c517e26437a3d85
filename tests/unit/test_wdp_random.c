/* test_wdp_random.c — differential test of the "wdp" detector (seed 001):
 * on 10,000 random small traces with branch events (fixed seed) its
 * all-pairs output must equal the closure-based implementation of the WDP
 * relation in dep_oracle.c, and its online output must be a subset with a
 * partner for every racy access.  A mismatch prints the trace. */
#include "dep_oracle.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void test_wdp_equals_its_closure(void **state)
{
    (void)state;
    assert_int_equal(dep_oracle_run("wdp", 7000003ull, 10000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wdp_equals_its_closure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
