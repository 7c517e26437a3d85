/* rp_trcone.h — cones: event sets closed under thread order, fork/join,
 * reads-from and hard edges, kept as ONE prefix length per thread (seed
 * 003 §11.3, seed 004 §11.1).  The facts M2 (det_m2.c) and OSR
 * (det_osr.c) grow their candidate sets from, and the engine window's
 * witnesses by reversal (tc_reversal_witness, rp_window.h).
 *
 * TRClosure(e) is the smallest set holding e that is closed under
 *   - thread order (a prefix of every thread),
 *   - fork (a forked thread's first event brings the fork), join (a join
 *     brings every event of the joined thread),
 *   - reads-from (a read brings the observed last writer of each of its
 *     bytes; a forget counts as a write),
 *   - hard edges (a sync_recv brings every earlier sync_send on its obj).
 * One vector-clock pass over the log (no lock edges) computes it as a
 * vector of prefix lengths: the "pre" clock of every access (the closure
 * of its predecessors, TRClosure(prev(e)) of the papers) and the clock of
 * every release (TRClosure(rel), used when a closure takes the release of
 * an open acquire).  Unions of closed sets are closed, so every set built
 * by joining these clocks is closed and stays a prefix vector: membership
 * is one compare.
 *
 * Open acquires of a cone: the acquires of thread t inside the prefix
 * whose release is not are exactly the locks t holds after its prefix;
 * tc_held(t, len) lists them (a persistent list per position), so no
 * per-(lock, thread) pointer needs resetting between scans.
 *
 * Memory: n_threads words per access and per release (O(N·T), the
 * dominant cost, as in RAPID's OSR), plus a few words per event.
 */
#ifndef RP_TRCONE_H
#define RP_TRCONE_H

#include "rp_event.h"
#include "rp_witness.h"

#include <stdbool.h>
#include <stdint.h>

#define TC_NONE UINT32_MAX

typedef struct rp_tcfacts {
    const rp_event *log;
    uint32_t n, n_threads, n_locks;
    uint32_t *tpos;         /* per event: position in its thread */
    uint32_t *thread_off;   /* per thread + 1: start in thread_ev */
    uint32_t *thread_ev;    /* events grouped by thread, program order */
    uint32_t *fork_at;      /* per thread: its fork event or TC_NONE */
    uint32_t *match;        /* acquire <-> release, TC_NONE if unmatched */
    uint32_t *lock_id;      /* per lock event: dense lock id, else TC_NONE */
    uint32_t *writer_off;   /* per event + 1: start in writers */
    uint32_t *writers;      /* read: observed writer per byte, TC_NONE = initial */
    uint32_t *clocks;       /* per event (n_threads words each): the pre
                               clock of accesses and forgets, the clock
                               after the event for the others */
    uint32_t *held;         /* per event: held-list node after it, TC_NONE */
    uint32_t *node_acq, *node_next; /* held-list nodes */
    uint32_t n_nodes;
    uint32_t *rel_off;      /* per lock + 1: start in rels */
    uint64_t *rels;         /* releases of a lock: tid << 32 | tpos, sorted */
    uint32_t *acq_off, *xacq_off;   /* the same for acquires, exclusive ones */
    uint64_t *acqs, *xacqs;
    bool replays;           /* the log is a valid execution (rp_trcone.c) */
    uint64_t *touched;      /* bytes reads and writes touch, sorted: a
                               forget is applied to these only (rp_sort.h) */
    size_t n_touched;
} rp_tcfacts;

void tc_build(rp_tcfacts *f, const rp_event *log, uint32_t n);
void tc_free(rp_tcfacts *f);

static inline bool tc_in(const rp_tcfacts *f, const uint32_t *cone, uint32_t e)
{
    return f->tpos[e] < cone[f->log[e].tid];
}

static inline uint32_t tc_thread_event(const rp_tcfacts *f, uint32_t t, uint32_t k)
{
    return f->thread_ev[f->thread_off[t] + k];
}

static inline uint32_t tc_thread_len(const rp_tcfacts *f, uint32_t t)
{
    return f->thread_off[t + 1] - f->thread_off[t];
}

/* First held-list node of thread t after its first len events. */
static inline uint32_t tc_held(const rp_tcfacts *f, uint32_t t, uint32_t len)
{
    return len == 0 ? TC_NONE : f->held[tc_thread_event(f, t, len - 1)];
}

/* cone := cone ∪ clock of e (pre clock of an access, clock of a release);
 * true if it grew. */
bool tc_join(const rp_tcfacts *f, uint32_t *cone, uint32_t e);
/* e1 or e2 in the clock of release r. */
bool tc_clock_has(const rp_tcfacts *f, uint32_t r, uint32_t e);
/* The last release of lock l inside the cone, in trace order, or TC_NONE. */
uint32_t tc_last_release(const rp_tcfacts *f, const uint32_t *cone, uint32_t l);
/* Largest log index in the cone + 1 (0 if empty). */
uint32_t tc_end(const rp_tcfacts *f, const uint32_t *cone);
/* Number of open acquires in the cone; true if some lock has two (the cone
 * is then not lock-feasible). */
bool tc_open_acquires(const rp_tcfacts *f, const uint32_t *cone, uint32_t *count);

/* Whether the cone in trace order is a witness for (e1, e2) that the
 * validator (rp_witness.h) accepts, in O(T^2 + open acquires · T log N)
 * instead of a replay of the cone: the pair conflicts, e1 and e2 are the
 * next events of their threads, the closure (clock, and a read's writers)
 * of every thread's last event in the cone is inside it, and every open
 * acquire is the last acquire of its lock in the cone that it excludes.
 * Exact when the log itself is a valid execution (f->replays, checked once
 * at tc_build); false otherwise, so that callers fall back to building the
 * witness and replaying it.  A fast path, tested against the validator on
 * random traces (tests/unit/test_cone_witness.c). */
bool tc_cone_is_witness(const rp_tcfacts *f, const uint32_t *cone, uint32_t e1, uint32_t e2);

/* Windows for long witnesses (det_osr.c): the earliest open acquire of the
 * cone that precedes its lock's last release in the cone (the target of a
 * backward edge of G^Opt), or TC_NONE; before it, tc_linearize's order is
 * the trace order. */
uint32_t tc_first_reversed(const rp_tcfacts *f, const uint32_t *cone);
/* below := the events of the cone before log index p (a cone too). */
void tc_cone_below(const rp_tcfacts *f, const uint32_t *cone, uint32_t p, uint32_t *below);
/* The base in trace order replays validly (the checks of
 * tc_cone_is_witness without the pair's); false when unknown. */
bool tc_base_is_prefix(const rp_tcfacts *f, const uint32_t *base);
/* The acquires the cone leaves open, into *list (grown, *cap entries); n. */
uint32_t tc_open_list(const rp_tcfacts *f, const uint32_t *cone, uint32_t **list, uint32_t *cap);

/* Scratch of tc_fast_witness. */
typedef struct rp_tcwin {
    uint32_t *base;         /* the cone before the window */
    uint32_t *loc;          /* tc_linearize's scratch, n entries */
    uint32_t *open;         /* the base's open acquires */
    uint32_t cap_open;
} rp_tcwin;

void tc_win_init(rp_tcwin *win, const rp_tcfacts *f);
void tc_win_free(rp_tcwin *win);

/* The witness of a closed, lock-feasible cone for e1 < e2 — its G^Opt
 * order (tc_linearize) — decided without replaying the cone: with no
 * reversed acquire (tc_first_reversed) it is the trace order and
 * tc_cone_is_witness decides; else the cone before the first reversed
 * acquire is a base checked by tc_base_is_prefix and the window after it
 * is ordered and replayed by witness_check_after (w then holds the
 * window).  1: the validator accepts the whole order; -1: G^Opt has a
 * cycle; 0: not decided (callers build tc_linearize(.., 0, ..) and run
 * witness_check).  O(T^2 + open acquires · T log N + window log window). */
int tc_fast_witness(const rp_tcfacts *f, const uint32_t *cone, uint32_t e1, uint32_t e2,
                    rp_wcheck *chk, rp_tcwin *win, rp_witness *w);

/* Appends to w a topological order of G^Opt over the (lock-feasible) cone
 * (seed 004 §4: thread order, fork/join, sends -> recv, conflicting
 * accesses in trace order (per byte: last write -> next access, reads ->
 * next write), critical sections of a lock in trace order, the last
 * release of a lock -> its open acquire), smallest trace position first;
 * false if the graph has a cycle.  With no open acquire before its lock's
 * last release the order is the trace order.  Every order of this graph
 * is a correct reordering (Lemma 4.2); witness_check decides anyway.
 * Only the cone's events from log index `from` on are ordered (0: all);
 * the caller puts the earlier ones first, in trace order — the order and
 * the cycles are the same when no backward edge targets an event before
 * `from` (tc_first_reversed).  loc: scratch of n entries.
 * O(m log m) for the m events ordered. */
bool tc_linearize(const rp_tcfacts *f, const uint32_t *cone, uint32_t from, uint32_t *loc,
                  rp_witness *w);

/* OSR's witness for one pair (e1, e2) of a log whose first n_fixed events
 * are executed before everything else (the engine's window, rp_window.h:
 * acquires of the locks held where its sub-log starts).  S is the
 * TRClosure of prev(e1), prev(e2) and the fixed events, closed
 * optimistically (seed 004 Alg. 1: the release of every open acquire of S
 * joins S unless its TRClosure holds e1 or e2); the pair has a witness if
 * neither access is in S, every lock has at most one open acquire in S, no
 * fixed acquire stays open while another section of its lock is in S (it
 * would have to move after that section, and a fixed event cannot move),
 * and G^Opt_S is acyclic: w is then its order (tc_linearize), which keeps
 * the fixed events first.  False otherwise.  The order never reverses two
 * conflicting accesses (G^Opt keeps them in trace order, a read with no
 * writer in the log before every later write of its bytes); only open
 * critical sections move after others.  cone: n_threads entries, loc: n
 * entries of scratch.  Callers validate w (wcheck_set_fixed(n_fixed)).
 * Cost: every pass of the closure over the open acquires but the last
 * takes a release, so O(R · (T + H)) with R releases, T threads, H open
 * acquires; then tc_linearize's O(m log m + accessed bytes). */
bool tc_reversal_witness(const rp_tcfacts *f, uint32_t n_fixed, uint32_t e1, uint32_t e2,
                         uint32_t *cone, uint32_t *loc, rp_witness *w);

#endif
