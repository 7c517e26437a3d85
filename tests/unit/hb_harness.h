/* hb_harness.h — helpers shared by the detector unit tests: run events
 * through the engine and collect the reported races; read files; find the
 * trace vectors directory.
 */
#ifndef HB_HARNESS_H
#define HB_HARNESS_H

#include "rp_engine.h"
#include "rp_trace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct race_log {
    rp_race *races;
    size_t count, cap;
} race_log;

/* rp_detector_env.report for an engine of one's own: appends the race to
 * the race_log that report_ctx points to. */
void harness_log_race(void *ctx, const rp_race *race);

/* Runs `events` through a fresh engine with `detectors`; every report is
 * appended to *log (caller frees log->races). */
void harness_run(const char *detectors, bool all_pairs, rp_event *events, size_t n,
                 race_log *log);

/* The same with the engine's filter of repeated accesses on (location mode,
 * rp_repeats.h), as the tool runs it; with sites_suffice (rp_detector.h)
 * too if asked.  Dropped events keep id 0, so ids are no longer positions:
 * *position_of[id - 1] is the index in `events` of the event numbered id
 * (caller frees). */
void harness_run_filtered(const char *detectors, bool sites_suffice, rp_event *events, size_t n,
                          race_log *log, size_t **position_of);

/* Sorted, deduplicated (first.id << 32 | second.id) keys of the log; returns
 * the count, *keys must be freed. */
size_t harness_pair_keys(const race_log *log, uint64_t **keys);

/* Whole file as a NUL-terminated buffer, or NULL. */
char *harness_read_file(const char *path, size_t *len);

/* $TRACES_DIR, else the compile-time TRACES_DIR. */
const char *harness_traces_dir(void);

/* The random tests' generator (xorshift64): seed rng_state, then rnd(n)
 * gives 0 .. n-1. */
extern uint64_t rng_state;
uint32_t rnd(uint32_t n);

/* Builds an event by hand (id is assigned by the engine). */
rp_event harness_event(rp_event_kind kind, rp_tid_t tid, uint64_t obj, uint32_t size);

#endif
