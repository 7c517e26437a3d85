/* test_lockset_random.c — differential test of the "lockset" detector: on 10,000
 * random small traces (fixed seed) its all-pairs output must equal the
 * closure-based implementation of its relation in rp_oracle.c, and its
 * online output must be a subset with a partner for every racy access. */
#include "rp_oracle.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void test_lockset_equals_its_closure(void **state)
{
    (void)state;
    assert_int_equal(oracle_run_random("lockset", 2000003ull, 10000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lockset_equals_its_closure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
