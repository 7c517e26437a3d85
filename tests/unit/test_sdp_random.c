/* test_sdp_random.c — differential test of the "sdp" detector (seed 001):
 * on 10,000 random small traces with branch events (fixed seed) its
 * all-pairs output must equal the closure-based implementation of the SDP
 * relation in dep_oracle.c, and its online output must be a subset with a
 * partner for every racy access.  A mismatch prints the trace. */
#include "dep_oracle.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void test_sdp_equals_its_closure(void **state)
{
    (void)state;
    assert_int_equal(dep_oracle_run("sdp", 7000001ull, 10000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sdp_equals_its_closure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
