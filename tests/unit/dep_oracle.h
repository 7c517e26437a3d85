/* dep_oracle.h — differential testing of the dependence-aware detectors
 * "sdp" and "wdp" (seed 001) against closure-based implementations of
 * their relations, on random small traces with branch events (test code
 * only).
 *
 * A random trace has 2–4 threads, 0–2 locks, 1–3 variables, `br` events
 * (after accesses and on their own), fork/join sometimes, and critical
 * sections sometimes left open at the end.  The relation is computed from
 * its definition (shared/research/seed_001_ref.py) with boolean matrices
 * (one 32-bit row per event) iterated to a fixpoint:
 *   sdp  rules 1, 2, 4 as base edges (rule 4 with HB only; its s2 may be
 *        open, like rule 1's second section), closed under HB composition
 *        on both sides, transitivity and rule 3 (release–release, any two
 *        sections of the lock); race check SDP ∪ thread order;
 *   wdp  last writer's release → first `br` of the reader's thread after
 *        the read (distinct sections on one lock, the first released),
 *        thread order, transitivity and rule 3;
 * and for both a pair also needs disjoint locksets.  The detector's
 * all-pairs output must equal the relation's pairs; its online output must
 * be a subset with an earlier partner for every access that is the later
 * event of some pair.
 */
#ifndef DEP_ORACLE_H
#define DEP_ORACLE_H

#include <stdint.h>

/* Runs `count` random traces from `seed` through detector `name` ("sdp" or
 * "wdp") and its closure; prints every mismatching trace (the first five in
 * full); returns the number of mismatches. */
unsigned dep_oracle_run(const char *name, uint64_t seed, unsigned count);

#endif
