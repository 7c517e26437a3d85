/* test_wcp_random.c — differential test of the "wcp" detector: on 10,000
 * random small traces (fixed seed) its all-pairs output must equal the
 * closure-based implementation of its relation in rp_oracle.c, and its
 * online output must be a subset with a partner for every racy access. */
#include "rp_oracle.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void test_wcp_equals_its_closure(void **state)
{
    (void)state;
    assert_int_equal(oracle_run_random("wcp", 3000003ull, 10000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wcp_equals_its_closure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
