/* rp_predict.h — random small traces and the brute-force set of
 * predictable races (classic definition, seeds 000/002/003: a pair is
 * predictable iff after some correct reordering both accesses are the next
 * events of their threads; thread order, fork/join, lock semantics and hard
 * edges kept, every read keeps its last writer byte-wise, a forget counts
 * as a write; pairs with a forget of every shared byte between them are
 * not candidates, as in rp_offline.h).  Test code only: used by test_m2_random and test_osr_random.
 *
 * predict_run sends `count` random traces (2–4 threads, 0–2 locks, 1–3
 * variables over 4 bytes, accesses of 1 or 2 bytes, fork/join, hard edges,
 * forgets, shared acquires in half of the traces) through a detector in
 * all-pairs mode and checks that every reported pair is predictable and
 * confirmed (its witness passed rp_witness's validator); with
 * `complete_two_threads` it also checks that on two-thread traces without
 * shared acquires the detector reports every predictable pair.
 */
#ifndef RP_PREDICT_H
#define RP_PREDICT_H

#include "rp_event.h"

#include <stdbool.h>
#include <stdint.h>

#define PREDICT_MAXE 12

typedef struct predict_totals {
    unsigned traces, two_thread, reported, predictable, confirmed, observed, failures;
} predict_totals;

void predict_run(const char *detector, uint64_t seed, unsigned count, bool complete_two_threads,
                 predict_totals *tot);

/* The generator and the brute force on their own: predict_seed, then
 * predict_trace fills ev[0 .. n) (n returned, at most PREDICT_MAXE;
 * `shared`: with shared acquires); predict_oracle computes the
 * predictable pairs of a trace, predict_pair(a, b) (indices, a < b) reads
 * them until the next predict_oracle. */
void predict_seed(uint64_t seed);
uint32_t predict_trace(rp_event *ev, bool shared);
void predict_oracle(const rp_event *ev, uint32_t n);
bool predict_pair(uint32_t a, uint32_t b);

#endif
