/* rp_locksets.h — the locks each thread holds, and interned locksets as
 * rp_allpairs tags, for the relations whose races also need disjoint
 * locksets: SDP and WDP (seed 001 §4.1: "an SDP-race / WDP-race is a pair
 * of conflicting accesses, unordered by the relation, whose locksets are
 * disjoint").
 *
 * A lockset is a sorted array of (lock, mode) pairs; mode is exclusive
 * (mutex, write-locked rwlock) or shared (read-locked rwlock).  Two
 * accesses are protected from each other iff they hold a common lock and
 * at least one of them holds it exclusively (two readers of an rwlock hold
 * it at the same time, so it protects nothing between them).  Holds nest:
 * a lock counts as held until as many releases as acquires were seen.
 *
 * Tags: every distinct lockset gets a dense number on first use (0 = the
 * empty set) and keeps it for the life of the table, so a tag is a small
 * integer that rp_allpairs stores per access.  locksets_disjoint is the
 * pair filter; locksets_may_evict the eviction rule that keeps one partner
 * per racy access online (rp_allpairs.h): an access may evict an earlier
 * one only if whatever it is protected against, the earlier one was too —
 * its locks are a subset of the earlier access's, each held at least as
 * strongly.
 *
 * Cost: an acquire or release O(held locks) plus one hash lookup; the
 * filter and the eviction rule O(size of the two sets).
 */
#ifndef RP_LOCKSETS_H
#define RP_LOCKSETS_H

#include "rp_event.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct rp_locksets rp_locksets;

rp_locksets *locksets_create(void);
void locksets_destroy(rp_locksets *ls);

void locksets_acquire(rp_locksets *ls, rp_tid_t tid, uint64_t lock, bool shared);
/* A release of a lock the thread does not hold in that mode is ignored. */
void locksets_release(rp_locksets *ls, rp_tid_t tid, uint64_t lock, bool shared);

/* The tag of the set tid holds now. */
uint32_t locksets_tag(rp_locksets *ls, rp_tid_t tid);

/* Does the set tagged `tag` hold lock exclusively? */
bool locksets_holds_exclusive(const rp_locksets *ls, uint32_t tag, uint64_t lock);

/* rp_allpairs filter: true iff the two sets protect nothing (ctx = ls). */
bool locksets_disjoint(void *ctx, uint32_t first_tag, uint32_t second_tag);
/* rp_allpairs eviction rule: true iff new ⊆ old, mode for mode (ctx = ls). */
bool locksets_may_evict(void *ctx, uint32_t old_tag, uint32_t new_tag);

#endif
