/* rp_oracle.h — differential testing of the predictive detectors against
 * closure-based implementations of their relations (test code only).
 *
 * A random small trace (2–4 threads, 0–2 locks, 1–3 variables, fork/join
 * sometimes, critical sections sometimes left open at the end) is built,
 * the relation is computed from its definition with boolean matrices
 * iterated to a fixpoint, and its race pairs are compared with what the
 * detector reports in all-pairs mode through the engine.  Online mode must
 * report only pairs of the relation and at least one earlier partner for
 * every access that is the later event of a pair.  The relations
 * (definitions as in the reference scripts in shared/research):
 *   shb      seed 000 Def 3.3/3.6: SHB-unordered pairs + WRD pairs
 *   lockset  disjoint locksets and not ordered by PO/fork/join
 *   wcp      rules (a), (b), (c) with HB (seed 004 reference: sections of
 *            the same thread may conflict), race check WCP ∪ PO/fork/join
 *   dc       rules (a), (b), PO/fork/join, transitive
 *   wdc      dc without rule (b)
 */
#ifndef RP_ORACLE_H
#define RP_ORACLE_H

#include <stdint.h>

/* Runs `count` random traces from `seed` through detector `name` and its
 * oracle; prints every mismatching trace; returns the number of mismatches. */
unsigned oracle_run_random(const char *name, uint64_t seed, unsigned count);

#endif
