/* test_racy_reads.c — a racy read orders its thread after the write it
 * read (rp_detector_env.racy_reads_order, SHB's reads-from edge of seed
 * 000, under-approximated: rp_allpairs_read_from_fn).
 *
 * HB is sound only up to its first race (seed 000 §1): after a read that
 * races with a write, a reordering that keeps the read's value keeps the
 * write before it, so the data the writer published before the write is
 * ordered before everything the reader does next.  Hand-made runs check
 * that the race on the flag stays and the data's go (hb, wcp, dc, wdc:
 * the detectors that report HB-observed races), that the order reaches
 * the write and no further (not the rest of its epoch, also when every
 * access has one site and cells are shared, so that a cell names its
 * context's latest access), and that only the latest write counts.
 * Random runs (location mode, as in the tool) check that every race
 * reported is an HB race, that the run's first racy access is always
 * reported, and that every access SHB finds racy (all-pairs shb, which
 * has the reads-from edge of every read) is reported: the order is never
 * one SHB lacks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hb_harness.h"
#include "rp_detector.h"
#include "rp_engine.h"

#include <stdlib.h>
#include <string.h>

#define FLAG 0x2000u
#define DATA 0x1000u
#define OTHER 0x3000u
#define LOCK 0x9000u

#define MAX_EVENTS 64
#define RANDOM_RUNS 3000

static const char *const detectors[] = { "hb", "wcp", "dc", "wdc" };

/* How run() runs a detector. */
enum {
    ORDER = 1,          /* racy reads order their thread */
    SHARED = 2,         /* cells name their context's latest access (sites_suffice) */
    EVERY_ACCESS = 4    /* no filter of repeats */
};

/* Runs the events through `detector` in location mode with the filter of
 * repeats on unless EVERY_ACCESS.  Ids are positions + 1 only when
 * nothing was dropped: the hand-made runs repeat nothing. */
static void run(const char *detector, unsigned flags, rp_event *ev, size_t n, race_log *log)
{
    rp_detector_env env = { .report = harness_log_race, .report_ctx = log,
                            .skip_repeats = !(flags & EVERY_ACCESS),
                            .sites_suffice = (flags & SHARED) != 0,
                            .racy_reads_order = (flags & ORDER) != 0 };
    rp_engine *eng = rp_engine_create(detector, &env, NULL);
    assert_non_null(eng);
    for (size_t i = 0; i < n; i++) {
        ev[i].id = 0;
        rp_engine_event(eng, &ev[i]);
    }
    rp_engine_finish(eng);
    rp_engine_destroy(eng);
}

/* Whether the log has a race whose later access is event `second` (an id)
 * and, unless 0, whose earlier one is `first`. */
static bool has_race(const race_log *log, uint64_t first, uint64_t second)
{
    for (size_t i = 0; i < log->count; i++)
        if (log->races[i].second.id == second && (first == 0 || log->races[i].first.id == first))
            return true;
    return false;
}

/* The same among the observed races only (HB-unordered). */
static bool has_observed_race(const race_log *log, uint64_t second)
{
    for (size_t i = 0; i < log->count; i++)
        if (log->races[i].second.id == second && log->races[i].observed)
            return true;
    return false;
}

static rp_event at(rp_event_kind kind, rp_tid_t tid, uint64_t obj)
{
    return harness_event(kind, tid, obj, kind == RP_EV_READ || kind == RP_EV_WRITE ? 4 : 0);
}

/* T0 writes the data, then the flag; T1 reads the flag, then the data. */
static void test_flag_publishes(void **state)
{
    (void)state;
    for (size_t d = 0; d < sizeof detectors / sizeof detectors[0]; d++) {
        for (int order = 0; order <= 1; order++) {
            rp_event ev[] = { at(RP_EV_WRITE, 0, DATA), at(RP_EV_WRITE, 0, FLAG),
                              at(RP_EV_READ, 1, FLAG), at(RP_EV_READ, 1, DATA) };
            race_log log = { 0 };
            run(detectors[d], order, ev, 4, &log);
            assert_true(has_race(&log, 2, 3));
            assert_int_equal(has_race(&log, 1, 4), !order);
            assert_int_equal(log.count, order ? 1 : 2);
            free(log.races);
        }
    }
}

/* The order reaches the written flag's epoch: T0's write of the data
 * after a release is in a later epoch and still races with T1's read. */
static void test_order_stops_at_the_epoch(void **state)
{
    (void)state;
    for (size_t d = 0; d < sizeof detectors / sizeof detectors[0]; d++) {
        rp_event ev[] = { at(RP_EV_WRITE, 0, FLAG), at(RP_EV_ACQUIRE, 0, LOCK),
                          at(RP_EV_RELEASE, 0, LOCK), at(RP_EV_WRITE, 0, DATA),
                          at(RP_EV_READ, 1, FLAG), at(RP_EV_READ, 1, DATA) };
        race_log log = { 0 };
        run(detectors[d], ORDER, ev, 6, &log);
        assert_true(has_race(&log, 1, 5));
        assert_true(has_race(&log, 4, 6));
        free(log.races);
    }
}

/* The order reaches the flag's write, not the rest of its epoch: T0's
 * write of the data after it races with T1's read of the data, and T1's
 * write of the flag is ordered after T0's.  Every access has site 0, so
 * with shared cells both writes of T0 are one context, whose cells name
 * its latest access (the data's): the order must stop at the context's
 * first access, and T1's write of the flag, which meets a cell naming the
 * data's write, is reported (an HB race SHB orders: the price of shared
 * cells, which only --detector=hb alone uses). */
static void test_order_stops_at_the_write(void **state)
{
    (void)state;
    for (size_t d = 0; d < sizeof detectors / sizeof detectors[0]; d++) {
        for (unsigned shared = 0; shared <= SHARED; shared += SHARED) {
            rp_event ev[] = { at(RP_EV_WRITE, 0, FLAG), at(RP_EV_WRITE, 0, DATA),
                              at(RP_EV_READ, 1, FLAG), at(RP_EV_READ, 1, DATA),
                              at(RP_EV_WRITE, 1, FLAG) };
            race_log log = { 0 };
            run(detectors[d], ORDER | shared, ev, 5, &log);
            assert_true(has_race(&log, 0, 3));
            assert_true(has_race(&log, 0, 4));
            assert_int_equal(has_race(&log, 0, 5), shared != 0);
            free(log.races);
        }
    }
}

/* Only the latest write of the bytes read counts: T2 wrote the flag after
 * T0, so T1's racy read orders it after T2, not after T0, whose write of
 * the data still races with T1's read of it. */
static void test_latest_write_only(void **state)
{
    (void)state;
    for (size_t d = 0; d < sizeof detectors / sizeof detectors[0]; d++) {
        rp_event ev[] = { at(RP_EV_WRITE, 0, DATA), at(RP_EV_WRITE, 0, FLAG),
                          at(RP_EV_WRITE, 2, OTHER), at(RP_EV_WRITE, 2, FLAG),
                          at(RP_EV_READ, 1, FLAG), at(RP_EV_READ, 1, DATA),
                          at(RP_EV_READ, 1, OTHER) };
        race_log log = { 0 };
        run(detectors[d], ORDER, ev, 7, &log);
        assert_true(has_race(&log, 0, 5));
        assert_true(has_race(&log, 1, 6));
        assert_false(has_race(&log, 0, 7));
        free(log.races);
    }
}

/* A read ordered after the latest write (through a lock) adds nothing:
 * T0's earlier, racy write of the data stays a race.  (The predictive
 * detectors may predict the flag's race: T2's critical section touches
 * nothing, so it orders nothing for them.) */
static void test_ordered_read_adds_nothing(void **state)
{
    (void)state;
    for (size_t d = 0; d < sizeof detectors / sizeof detectors[0]; d++) {
        rp_event ev[] = { at(RP_EV_WRITE, 0, DATA), at(RP_EV_WRITE, 2, FLAG),
                          at(RP_EV_ACQUIRE, 2, LOCK), at(RP_EV_RELEASE, 2, LOCK),
                          at(RP_EV_ACQUIRE, 1, LOCK), at(RP_EV_READ, 1, FLAG),
                          at(RP_EV_READ, 1, DATA), at(RP_EV_RELEASE, 1, LOCK) };
        race_log log = { 0 };
        run(detectors[d], ORDER, ev, 8, &log);
        assert_false(has_observed_race(&log, 6));
        assert_true(has_race(&log, 1, 7));
        free(log.races);
    }
}

/* ---- random runs ------------------------------------------------------------ */

/* Up to MAX_EVENTS events of two or three threads on four granules, some
 * writes under one of two locks; site = position + 1, so that reports
 * name positions whatever the filter dropped. */
static size_t random_run(rp_event *ev)
{
    size_t n = 0;
    unsigned threads = 2 + rnd(2);
    while (n < MAX_EVENTS - 2) {
        rp_tid_t tid = rnd(threads);
        unsigned what = rnd(10);
        if (what == 0) {
            uint64_t lock = LOCK + rnd(2);
            ev[n++] = at(RP_EV_ACQUIRE, tid, lock);
            ev[n++] = at(RP_EV_WRITE, tid, DATA + 8 * rnd(4));
            ev[n++] = at(RP_EV_RELEASE, tid, lock);
        } else {
            ev[n++] = at(what < 5 ? RP_EV_READ : RP_EV_WRITE, tid, DATA + 8 * rnd(4));
        }
    }
    for (size_t i = 0; i < n; i++)
        ev[i].site = i + 1;
    return n;
}

/* Whether all-pairs HB has a race of the access at `second_site` with an
 * access of thread `first_tid`. */
static bool hb_race(const race_log *all, uint64_t second_site, rp_tid_t first_tid)
{
    for (size_t k = 0; k < all->count; k++)
        if (all->races[k].second.site == second_site && all->races[k].first.tid == first_tid)
            return true;
    return false;
}

/* Every access all-pairs SHB finds racy is reported by `detector` run
 * on every access (ids are positions + 1 in both): the order racy reads
 * add is SHB's, and a cell it evicts stands for a race SHB does not have
 * either.  With `few_sites`, the accesses share four sites, so that with
 * shared cells a context has many accesses and its cells name the latest. */
static void assert_shb_races_reported(const char *detector, unsigned flags, const rp_event *ev,
                                      size_t n, const race_log *shb, bool few_sites)
{
    rp_event copy[MAX_EVENTS];
    race_log log = { 0 };
    memcpy(copy, ev, n * sizeof *ev);
    for (size_t i = 0; few_sites && i < n; i++)
        copy[i].site = 1 + i % 4;
    run(detector, flags | EVERY_ACCESS, copy, n, &log);
    for (size_t i = 0; i < shb->count; i++)
        assert_true(has_race(&log, 0, shb->races[i].second.id));
    free(log.races);
}

/* Every observed race reported is an HB race of its later access with an
 * access of its earlier access's thread (all-pairs hb on the same run),
 * and the run's first access that races under HB is reported: until it,
 * no read raced, and the clocks are HB's; with shared cells too. */
static void test_random_runs(void **state)
{
    (void)state;
    rng_state = 0x5eed5eedULL;
    for (unsigned r = 0; r < RANDOM_RUNS; r++) {
        rp_event ev[MAX_EVENTS], copy[MAX_EVENTS];
        size_t n = random_run(ev);
        race_log all = { 0 }, shb = { 0 };
        memcpy(copy, ev, n * sizeof *ev);
        harness_run("hb", true, copy, n, &all);
        memcpy(copy, ev, n * sizeof *ev);
        harness_run("shb", true, copy, n, &shb);
        uint64_t first_racy = UINT64_MAX;
        for (size_t i = 0; i < all.count; i++)
            if (all.races[i].second.site < first_racy)
                first_racy = all.races[i].second.site;
        for (size_t d = 0; d < sizeof detectors / sizeof detectors[0]; d++) {
            for (unsigned shared = 0; shared <= SHARED; shared += SHARED) {
                race_log log = { 0 };
                bool reported = false;
                memcpy(copy, ev, n * sizeof *ev);
                run(detectors[d], ORDER | shared, copy, n, &log);
                for (size_t i = 0; i < log.count; i++) {
                    if (!log.races[i].observed)
                        continue;
                    assert_true(hb_race(&all, log.races[i].second.site, log.races[i].first.tid));
                    reported |= log.races[i].second.site == first_racy;
                }
                assert_int_equal(reported, first_racy != UINT64_MAX);
                assert_shb_races_reported(detectors[d], ORDER | shared, ev, n, &shb, false);
                assert_shb_races_reported(detectors[d], ORDER | shared, ev, n, &shb, true);
                free(log.races);
            }
        }
        free(all.races);
        free(shb.races);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flag_publishes),
        cmocka_unit_test(test_order_stops_at_the_epoch),
        cmocka_unit_test(test_order_stops_at_the_write),
        cmocka_unit_test(test_latest_write_only),
        cmocka_unit_test(test_ordered_read_adds_nothing),
        cmocka_unit_test(test_random_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
