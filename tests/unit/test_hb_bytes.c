/* test_hb_bytes.c — byte granularity of the hb detector: races are decided
 * per byte, never per word or per granule, and accesses may span granules.
 * Every case runs in location mode and in all-pairs mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hb_harness.h"

#include <stdlib.h>

#define WORD 0x1000u

#define W(t, a, s) harness_event(RP_EV_WRITE, t, a, s)
#define R(t, a, s) harness_event(RP_EV_READ, t, a, s)

/* Runs the events in both modes; both must report `expected` races; the
 * location-mode log is returned in *log (caller frees). */
static void run_both(rp_event *ev, size_t n, size_t expected, race_log *log)
{
    race_log all = { NULL, 0, 0 };
    harness_run("hb", true, ev, n, &all);
    assert_int_equal(all.count, expected);
    free(all.races);
    log->races = NULL;
    log->count = log->cap = 0;
    harness_run("hb", false, ev, n, log);
    assert_int_equal(log->count, expected);
}

static void test_different_bytes_of_one_word_do_not_race(void **state)
{
    (void)state;
    rp_event ev[] = { W(0, WORD, 1), W(1, WORD + 1, 1), W(2, WORD + 2, 2), R(1, WORD + 4, 2),
                      W(0, WORD + 7, 1) };
    race_log log;
    run_both(ev, 5, 0, &log);
    free(log.races);
}

static void test_overlapping_bytes_race_on_the_shared_part(void **state)
{
    (void)state;
    rp_event ev[] = { W(0, WORD, 4), W(1, WORD + 2, 4) };
    race_log log;
    run_both(ev, 2, 1, &log);
    assert_int_equal(log.races[0].addr, WORD + 2);
    assert_int_equal(log.races[0].size, 2);
    assert_int_equal(log.races[0].first.tid, 0);
    assert_int_equal(log.races[0].second.tid, 1);
    assert_true(log.races[0].first.is_write);
    free(log.races);
}

static void test_reads_never_race_with_reads(void **state)
{
    (void)state;
    rp_event ev[] = { R(0, WORD, 8), R(1, WORD, 8), R(2, WORD + 3, 1) };
    race_log log;
    run_both(ev, 3, 0, &log);
    free(log.races);
}

static void test_access_spanning_two_granules(void **state)
{
    (void)state;
    rp_event ev[] = { W(0, WORD + 6, 4), R(1, WORD + 4, 2), R(1, WORD + 10, 6),
                      R(1, WORD + 8, 1) };
    race_log log;
    run_both(ev, 4, 1, &log);
    assert_int_equal(log.races[0].first.id, 1);
    assert_int_equal(log.races[0].second.id, 4);
    assert_int_equal(log.races[0].addr, WORD + 8);
    assert_int_equal(log.races[0].size, 1);
    free(log.races);
}

static void test_wide_accesses_give_one_report_per_pair(void **state)
{
    (void)state;
    rp_event ev[] = { W(0, WORD + 4, 512), W(1, WORD, 16), R(1, WORD + 300, 1) };
    race_log log;
    run_both(ev, 3, 2, &log);
    assert_int_equal(log.races[0].second.id, 2);
    assert_int_equal(log.races[0].addr, WORD + 4);
    assert_int_equal(log.races[0].size, 12);
    assert_int_equal(log.races[0].first.addr, WORD + 4);
    assert_int_equal(log.races[1].second.id, 3);
    assert_int_equal(log.races[1].addr, WORD + 300);
    free(log.races);
}

static void test_lock_orders_and_forget_clears(void **state)
{
    (void)state;
    rp_event ev[] = {
        W(0, WORD, 8),
        harness_event(RP_EV_RELEASE, 0, 7, 0),
        harness_event(RP_EV_ACQUIRE, 1, 7, 0),
        W(1, WORD, 8),
        harness_event(RP_EV_FORGET, 1, WORD, 4),
        W(2, WORD, 4),
        W(2, WORD + 4, 1),
    };
    race_log all = { NULL, 0, 0 };
    harness_run("hb", true, ev, 7, &all);
    assert_int_equal(all.count, 2);
    assert_int_equal(all.races[0].first.id, 1);
    assert_int_equal(all.races[1].first.id, 4);
    for (size_t i = 0; i < all.count; i++) {
        assert_int_equal(all.races[i].second.id, 7);
        assert_int_equal(all.races[i].addr, WORD + 4);
    }
    free(all.races);
    race_log log = { NULL, 0, 0 };
    harness_run("hb", false, ev, 7, &log);
    assert_int_equal(log.count, 1);
    assert_int_equal(log.races[0].first.id, 4);
    assert_int_equal(log.races[0].second.id, 7);
    free(log.races);
}

static void test_same_epoch_repeats_report_once(void **state)
{
    (void)state;
    rp_event ev[] = { W(0, WORD, 8), W(0, WORD, 8), R(0, WORD, 4), W(1, WORD, 8) };
    race_log all = { NULL, 0, 0 };
    harness_run("hb", true, ev, 4, &all);
    assert_int_equal(all.count, 3);
    free(all.races);
    /* The tool's location mode drops the repeats (rp_repeats.h): one
     * report, the first write against thread 1's. */
    race_log log = { NULL, 0, 0 };
    size_t *position_of;
    harness_run_filtered("hb", false, ev, 4, &log, &position_of);
    assert_int_equal(log.count, 1);
    assert_int_equal(position_of[log.races[0].first.id - 1], 0);
    assert_int_equal(position_of[log.races[0].second.id - 1], 3);
    free(position_of);
    free(log.races);
}

/* Two instances of one instruction in one epoch share a cell (twins,
 * rp_allpairs.h): the cell keeps the bytes of both and names the latest;
 * each racy byte is reported against an access of the twins' size. */
static void test_twins_share_a_cell(void **state)
{
    (void)state;
    rp_event ev[] = { W(0, WORD, 1), W(0, WORD + 1, 1), W(1, WORD, 1), W(1, WORD + 1, 1) };
    race_log log = { NULL, 0, 0 };
    harness_run("hb", false, ev, 4, &log);
    assert_int_equal(log.count, 2);
    assert_int_equal(log.races[0].first.id, 2);
    assert_int_equal(log.races[0].addr, WORD);
    assert_int_equal(log.races[0].first.size, 1);
    assert_int_equal(log.races[1].addr, WORD + 1);
    assert_int_equal(log.races[1].first.id, 2);
    free(log.races);
    /* Another site keeps them apart (so would a release between them: a new
     * epoch). */
    ev[1].site = 7;
    log.races = NULL;
    log.count = log.cap = 0;
    harness_run("hb", false, ev, 4, &log);
    assert_int_equal(log.count, 2);
    assert_int_equal(log.races[0].first.id, 1);
    assert_int_equal(log.races[0].first.size, 1);
    free(log.races);
    race_log all = { NULL, 0, 0 };
    ev[1].site = 0;
    harness_run("hb", true, ev, 4, &all);
    assert_int_equal(all.count, 2);       /* all-pairs mode: exact events */
    assert_int_equal(all.races[0].first.id, 1);
    free(all.races);
}

/* Events far apart in the stream (more than a cell's 24-bit offset from
 * its context's base, rp_cellctx.h): the cells still name the right
 * events, twins included. */
static void test_cells_name_events_far_apart(void **state)
{
    (void)state;
    rp_event ev[] = { W(0, WORD, 1), W(0, WORD + 1, 1), W(0, WORD + 8, 1),
                      W(1, WORD + 8, 1), W(1, WORD, 2) };
    uint64_t gap[] = { 0, (uint64_t)1 << 24, (uint64_t)3 << 30, 5, (uint64_t)1 << 25 };
    race_log log = { NULL, 0, 0 };
    rp_detector_env env = { .report = harness_log_race, .report_ctx = &log };
    rp_engine *eng = rp_engine_create("hb", &env, NULL);
    for (size_t i = 0; i < 5; i++) {
        eng->n_events += gap[i];
        rp_engine_event(eng, &ev[i]);
    }
    rp_engine_finish(eng);
    rp_engine_destroy(eng);
    assert_int_equal(log.count, 2);
    assert_int_equal(log.races[0].first.id, ev[2].id);
    assert_int_equal(log.races[0].second.id, ev[3].id);
    assert_int_equal(log.races[1].first.id, ev[1].id);     /* the twins' latest */
    assert_int_equal(log.races[1].first.size, 1);
    assert_int_equal(log.races[1].addr, WORD);
    assert_int_equal(log.races[1].size, 2);
    assert_int_equal(log.races[1].second.id, ev[4].id);
    free(log.races);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_different_bytes_of_one_word_do_not_race),
        cmocka_unit_test(test_overlapping_bytes_race_on_the_shared_part),
        cmocka_unit_test(test_reads_never_race_with_reads),
        cmocka_unit_test(test_access_spanning_two_granules),
        cmocka_unit_test(test_wide_accesses_give_one_report_per_pair),
        cmocka_unit_test(test_lock_orders_and_forget_clears),
        cmocka_unit_test(test_same_epoch_repeats_report_once),
        cmocka_unit_test(test_twins_share_a_cell),
        cmocka_unit_test(test_cells_name_events_far_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
