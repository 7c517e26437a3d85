/* fuzz_common.h — what the three libFuzzer targets (fuzz_text.c,
 * fuzz_std.c, fuzz_bin.c) share: running a reader's output through the
 * detectors, so that detectors are fuzzed on well-formed streams too.
 *
 * Every event goes to an engine running hb (the tool's default); the first
 * FUZZ_OFFLINE_CAP events also go to a second engine running one offline
 * or predictive detector, picked from the input's bytes so that the corpus
 * covers all of them (their cost is super-linear: the cap keeps one input
 * in the millisecond range).  Reports are checked for consistency (ids
 * within the stream, first before second, different threads).
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include "rp_engine.h"
#include "rp_shim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define FUZZ_OFFLINE_CAP 256u

typedef struct fuzz_run {
    rp_engine *hb, *other;
    rp_detector_env env_hb, env_other;
    uint64_t n_events, n_other;
    uint64_t n_races;
} fuzz_run;

static void fuzz_check_race(void *ctx, const rp_race *race)
{
    fuzz_run *run = ctx;
    run->n_races++;
    /* A race pairs two events already seen, in stream order. */
    if (race->first.id == 0 || race->second.id > run->n_events
        || race->first.id >= race->second.id)
        abort();
}

/* The detector of the second engine, from a hash of the input. */
static const char *fuzz_pick_detector(const uint8_t *data, size_t len)
{
    static const char *const names[] = { "syncp", "m2", "osr", "wcp", "dc",
                                         "wdc", "shb", "lockset", "sdp", "wdp" };
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len && i < 64; i++)
        h = (h ^ data[i]) * 16777619u;
    const char *name = names[h % (sizeof names / sizeof names[0])];
    return rp_detector_find(name) != NULL ? name : "syncp";
}

static void fuzz_start(fuzz_run *run, const uint8_t *data, size_t len)
{
    run->n_events = run->n_other = run->n_races = 0;
    bool all_pairs = len > 0 && (data[len - 1] & 1);
    run->env_hb = (rp_detector_env){ fuzz_check_race, run, all_pairs, 0 };
    /* The tool's window (engine-side confirmation) for predictive ones. */
    run->env_other = (rp_detector_env){ fuzz_check_race, run, all_pairs,
                                        len > 1 && (data[len - 2] & 1) ? 64 : 0 };
    run->hb = rp_engine_create("hb", &run->env_hb, NULL);
    run->other = rp_engine_create(fuzz_pick_detector(data, len), &run->env_other, NULL);
    if (run->hb == NULL || run->other == NULL)
        abort();
}

static void fuzz_event(fuzz_run *run, const rp_event *e)
{
    rp_event copy = *e;
    run->n_events++;
    rp_engine_event(run->hb, &copy);
    if (run->n_other < FUZZ_OFFLINE_CAP) {
        copy = *e;
        run->n_other++;
        rp_engine_event(run->other, &copy);
    }
}

/* finish: false when the stream was cut by a reader error (the analyser
 * then does not finish either). */
static void fuzz_end(fuzz_run *run, bool finish)
{
    if (finish) {
        rp_engine_finish(run->hb);
        rp_engine_finish(run->other);
    }
    rp_engine_destroy(run->hb);
    rp_engine_destroy(run->other);
}

#endif
