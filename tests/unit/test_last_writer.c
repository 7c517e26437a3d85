/* test_last_writer.c — rp_engine_last_writer: the thread of the latest
 * write of a byte, as the detectors' cells remember it.
 *
 * The front end asks it when a spin loop makes a plain variable a
 * synchronisation variable after the write that published it (rp_spin.h):
 * the writer then sends on the variable.  On random runs of three threads
 * (reads, writes of 1-8 bytes over two granules, locks, sync sends and
 * receives, forgets), for every detector (the online ones with and
 * without the filter of repeats), after every event every byte's answer must be the
 * thread of its latest write since it was last forgotten, or RP_NO_WRITER.
 * Every event has a site of its own: twins (rp_allpairs.h: one cell for
 * instances of one instruction) name their latest instance for all their
 * bytes, so among racing writes of one byte the answer may be an earlier
 * one, which this model does not describe.
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

#define RANDOM_RUNS 600
#define MAX_EVENTS 60
#define BASE 0x1000u
#define BYTES 16u

static void ignore_race(void *ctx, const rp_race *race)
{
    (void)ctx;
    (void)race;
}

/* The thread holding lock 1, or NO_HOLDER: the runs are valid traces
 * (the offline detectors check their witnesses against them). */
#define NO_HOLDER 3u
static rp_tid_t holder;

static rp_event random_event(void)
{
    rp_tid_t tid = rnd(3);
    uint32_t pick = rnd(20);
    if (pick < 14) {
        uint32_t size = 1u << rnd(4);
        uint64_t addr = BASE + rnd(BYTES - size + 1);
        return harness_event(rnd(2) ? RP_EV_WRITE : RP_EV_READ, tid, addr, size);
    }
    switch (pick) {
    case 14:
    case 15:
        if (holder == NO_HOLDER) {
            holder = tid;
            return harness_event(RP_EV_ACQUIRE, tid, 1, 0);
        }
        tid = holder;
        holder = NO_HOLDER;
        return harness_event(RP_EV_RELEASE, tid, 1, 0);
    case 16: return harness_event(RP_EV_SYNC_SEND, tid, 7, 0);
    case 17: return harness_event(RP_EV_SYNC_RECV, tid, 7, 0);
    case 18: return harness_event(RP_EV_FORGET, tid, BASE + rnd(BYTES), 1 + rnd(4));
    default: return harness_event(RP_EV_BRANCH, tid, 0, 0);
    }
}

/* The model: the thread of each byte's latest write, RP_NO_WRITER after
 * a forget. */
static void model_apply(rp_tid_t *writer, const rp_event *e)
{
    if (e->kind != RP_EV_WRITE && e->kind != RP_EV_FORGET)
        return;
    for (uint64_t a = e->obj; a < e->obj + e->size; a++)
        if (a - BASE < BYTES)
            writer[a - BASE] = e->kind == RP_EV_WRITE ? e->tid : RP_NO_WRITER;
}

static void check_detectors(const char *detectors, bool skip_repeats)
{
    for (unsigned run = 0; run < RANDOM_RUNS; run++) {
        rp_detector_env env = { .report = ignore_race, .skip_repeats = skip_repeats };
        rp_engine *eng = rp_engine_create(detectors, &env, NULL);
        rp_tid_t writer[BYTES];
        for (unsigned b = 0; b < BYTES; b++)
            writer[b] = RP_NO_WRITER;
        rng_state = 0x9E3779B97F4A7C15ull + run;
        holder = NO_HOLDER;
        unsigned n = 1 + rnd(MAX_EVENTS);
        for (unsigned i = 0; i < n; i++) {
            rp_event e = random_event();
            e.site = i + 1;
            rp_engine_event(eng, &e);
            model_apply(writer, &e);
            for (unsigned b = 0; b < BYTES; b++)
                if (rp_engine_last_writer(eng, BASE + b) != writer[b]) {
                    fail_msg("%s (filter %d), run %u, event %u, byte %u: %u, expected %u",
                             detectors, skip_repeats, run, i, b,
                             rp_engine_last_writer(eng, BASE + b), writer[b]);
                }
        }
        rp_engine_finish(eng);
        rp_engine_destroy(eng);
    }
}

static const char *const online[] = { "hb", "shb", "lockset", "wcp", "dc", "wdc", "sdp", "wdp",
                                      "hb,wcp" };

static void test_every_online_detector(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof online / sizeof online[0]; i++) {
        check_detectors(online[i], false);
        check_detectors(online[i], true);
    }
}

/* The offline detectors answer from their log in memory. */
static void test_offline_detectors(void **state)
{
    (void)state;
    check_detectors("syncp", false);
    check_detectors("m2", false);
    check_detectors("osr", false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_online_detector),
        cmocka_unit_test(test_offline_detectors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
