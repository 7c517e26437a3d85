/* test_blocked_clocks.c — the predictive detectors' differential tests
 * (rp_oracle.h) again with every vector clock in shared blocks
 * (rp_vc_flat_max = 0, rp_vc.h): the runs have 2–4 threads, so in the
 * tool their clocks stay flat, and a block written while another clock
 * still shares it would go unseen by the other tests. */
#include "rp_oracle.h"
#include "rp_vc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

static void run_blocked(const char *detector, uint64_t seed)
{
    uint32_t flat_max = rp_vc_flat_max;
    rp_vc_flat_max = 0;
    assert_int_equal(oracle_run_random(detector, seed, 5000), 0);
    rp_vc_flat_max = flat_max;
    assert_int_equal(vc_blocks_in_use(), 0);
}

static void test_shb_blocked(void **state)
{
    (void)state;
    run_blocked("shb", 1100007ull);
}

static void test_lockset_blocked(void **state)
{
    (void)state;
    run_blocked("lockset", 2100007ull);
}

static void test_wcp_blocked(void **state)
{
    (void)state;
    run_blocked("wcp", 3100007ull);
}

static void test_dc_blocked(void **state)
{
    (void)state;
    run_blocked("dc", 4100007ull);
}

static void test_wdc_blocked(void **state)
{
    (void)state;
    run_blocked("wdc", 5100007ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shb_blocked),
        cmocka_unit_test(test_lockset_blocked),
        cmocka_unit_test(test_wcp_blocked),
        cmocka_unit_test(test_dc_blocked),
        cmocka_unit_test(test_wdc_blocked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
