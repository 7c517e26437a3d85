/* rp_spclosure.h — witnesses by the sync-preserving closure (Mathur,
 * Pavlogiannis, Viswanathan POPL'21; seed 004 §3, research digest), for
 * the syncp detector and for confirming any detector's predicted pair.
 *
 * For a candidate pair (e1, e2) of a log (rp_witness.h), S is the smallest
 * set of events that contains the program-order predecessors of e1 and e2
 * and is closed under
 *   - program order (S holds a prefix of every thread),
 *   - fork: a forked thread's first event brings its fork,
 *   - join: a join brings every event of the joined thread,
 *   - reads-from: a read brings the observed last writer of each of its
 *     bytes (a forget counts as a write),
 *   - hard edges: a sync_recv brings every sync_send on its object that
 *     precedes it in the log,
 *   - locks (sync preservation): of two acquires of a lock in S, the
 *     earlier one's release is in S (for rwlocks: unless both are shared).
 * (e1, e2) is a sync-preserving race iff neither e1 nor e2 is in S; S in
 * trace order is then a witness (every read keeps its writer because its
 * writer is in S and S is a trace-order subsequence; critical sections keep
 * their order and at most the last one per lock stays open).  When an
 * acquire in S needs its release and the log has none, no sync-preserving
 * witness exists.
 *
 * S is kept as one prefix length per thread (the "cone" of seed 003), grown
 * by a worklist that visits each event of S once: one closure costs
 * O(|S| + reads' bytes + recvs' sends + acquires of the locks involved).
 * Every event S gains precedes, in the log, an event already in S, so S
 * stays below e2 and only e1 can fall into it.
 *
 * Monotonicity: the closure for (e1, e2') contains the one for (e1, e2)
 * when e2' follows e2 in program order, so syncp scans the candidates e2
 * of one thread in program order growing ONE closure (spc_begin /
 * spc_extend), and stops the scan when e1 falls into it.
 *
 * The facts the closure uses (positions, writers, sends, matching
 * releases) are computed here, independently of the validator's.
 */
#ifndef RP_SPCLOSURE_H
#define RP_SPCLOSURE_H

#include "rp_event.h"
#include "rp_witness.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct rp_spc rp_spc;

/* The log must outlive the closure state and is not copied. */
rp_spc *spc_create(const rp_event *log, uint32_t n);
void spc_destroy(rp_spc *spc);

typedef enum rp_spc_result {
    RP_SPC_RACE,        /* neither access in the closure: witness exists */
    RP_SPC_FIRST_IN,    /* e1 in the closure (or no closure exists): no
                           later e2' of this thread can race with e1 */
    RP_SPC_SECOND_IN    /* e2 in the closure */
} rp_spc_result;

/* The first n_base events of the log are already executed (e.g. synthetic
 * acquires of the locks held where a window of the run starts): every
 * closure started afterwards contains them.  Default 0. */
void spc_set_base(rp_spc *spc, uint32_t n_base);

/* Without the lock rule (off: closures started afterwards keep only
 * program order, fork/join, reads-from and hard edges — TRClosure of seed
 * 004): when that closure already holds e1 or e2, no witness exists at
 * all, with or without reversed sections.  A cheap test before costlier
 * constructions (rp_window.c).  Default on. */
void spc_set_lock_rule(rp_spc *spc, bool on);

/* Starts a scan for pairs (first, x): the closure of first's predecessors. */
void spc_begin(rp_spc *spc, uint32_t first);
/* Adds second's predecessors (second after first, in another thread, and
 * after the previous `second` of this scan if in the same thread). */
rp_spc_result spc_extend(rp_spc *spc, uint32_t second);
/* Incremental use (det_syncp.c): the closure of first's predecessors
 * grows with first along its thread, so spc_advance moves `first` to a
 * later event of the same thread without starting over; spc_save /
 * spc_restore bracket one scan of spc_extend calls, which then costs what
 * the scan added to the saved closure (undo log of the locks it changed),
 * not the whole closure. */
void spc_advance(rp_spc *spc, uint32_t first);
/* No closure exists (a needed release is missing): nor for a later first. */
bool spc_dead(const rp_spc *spc);
void spc_save(rp_spc *spc);
void spc_restore(rp_spc *spc);
/* The closure as one prefix length per thread (valid until the next call). */
const uint32_t *spc_cone(const rp_spc *spc);
/* The number of threads the log names (the cone's length), and the log
 * index of thread t's last event in the closure (UINT32_MAX: none). */
uint32_t spc_threads(const rp_spc *spc);
uint32_t spc_cone_last(const rp_spc *spc, uint32_t t);

/* The current closure in trace order as the witness for (first, second).
 * Only after spc_extend returned RP_SPC_RACE. */
void spc_witness(const rp_spc *spc, uint32_t second, rp_witness *w);

/* The generic entry point: builds the sync-preserving witness for any
 * conflicting pair e1 < e2 (e.g. predicted by shb, wcp, dc, wdc, lockset).
 * Returns false (w cleared) when the closure contains e1 or e2.  Callers
 * confirm a pair only if witness_check also accepts w. */
bool witness_for_pair(rp_spc *spc, uint32_t e1, uint32_t e2, rp_witness *w);

#endif
