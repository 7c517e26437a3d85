/* rp_window.h — the bounded event window the engine keeps to confirm
 * predicted races online (docs/witness.md, "In the tool").
 *
 * The engine owns one window when some enabled detector is `predictive`
 * (rp_detector_ops): it may report races that this run did not show
 * (observed = false) and that the detector itself cannot confirm.  Every
 * event is then appended to a ring of the last `capacity` events, 24 bytes
 * each (object, site and kind, thread, size; the id is implicit), except
 * the repeated accesses the engine drops: a witness does not need the
 * reads, and the writes are summed up as one record per rewritten granule,
 * appended before another thread's event (rp_repeats.h says why both are
 * sound; tests/unit/test_window_filtered.c checks it).  With only
 * non-predictive detectors (hb alone) there is no window and no per-event
 * cost.
 *
 * When such a detector reports a pair (e1, e2) with !observed &&
 * !confirmed, rp_window_confirm tries to build a witness:
 *   1. both events must still be in the window (else "out of window");
 *   2. the sub-log is the window from a cut c to e2, c = max(window start,
 *      e1 - RP_WINDOW_MARGIN); its length must not exceed the per-candidate
 *      budget (the window capacity, at most RP_WINDOW_MAX_ATTEMPT events)
 *      and the run's total attempt budget must not be spent (else
 *      "budget");
 *   3. the run before c is the observed run: it is a valid prefix of every
 *      witness and counts as executed.  What it leaves behind that the
 *      sub-log cannot see is handled so:
 *        - locks held at c: the window tracks, as events leave the ring,
 *          which thread holds which lock (exclusive or shared) at its start
 *          and replays the lock events between the start and c; the
 *          sub-log begins with one synthetic acquire per held lock by its
 *          holder, and the closure is told that these acquires are already
 *          executed (spc_set_base): every witness contains them, so another
 *          thread's acquire of that lock brings the holder's release;
 *        - last writers before c: a read whose last writer precedes c sees
 *          no write of those bytes in the sub-log before it; a sync-
 *          preserving witness is a subsequence of the run in trace order,
 *          so no sub-log write can come between the read and its real
 *          writer: the read keeps it.  The same holds for sends before a
 *          recv and for forks before c (the thread simply exists);
 *        - fresh-memory marks larger than 4 KiB (thread stacks, mappings)
 *          are kept as mere program-order steps for the sync-preserving
 *          closure (its witness keeps the run's order, so they change no
 *          read), so that one attempt never walks megabytes of bytes;
 *   4. witness_for_pair (rp_spclosure.h) builds the sync-preserving
 *      witness; when none exists and the same closure without its lock
 *      rule leaves both accesses out (else no witness exists at all),
 *      tc_reversal_witness (rp_trcone.h) builds
 *      OSR's, which may run a critical section before one the run had
 *      first (seed 004), on a copy of the sub-log with dense thread
 *      numbers and its large forgets restored as writes.  With reversal
 *      the cut needs more care, which that construction and the validator
 *      give it: the synthetic acquires are a fixed start (no section of
 *      their lock may come before them: wcheck_set_fixed), and a read
 *      whose last writer precedes c is a read of the initial value in the
 *      sub-log, so no sub-log write of its bytes may precede it in the
 *      witness (G^Opt keeps it before every later write; the validator
 *      checks it).  The shared validator (rp_witness.h) must accept the
 *      witness (else "no witness");
 *   5. success: the race is confirmed and carries an rp_witness_desc, a
 *      fixed-size summary the front end prints (valid during the report
 *      callback; copy it to keep it).
 * Budgets: an attempt's sub-log has at most RP_WINDOW_MAX_ATTEMPT events;
 * the closure without the lock rule costs its length again; a reversal
 * attempt costs n * (T + 1) + (1 + F) * B work units (n
 * sub-log events, T threads in it, B bytes its accesses touch, F large
 * forgets), at most RP_WINDOW_MAX_REVERSAL, and needs as many words of
 * memory for the clocks of rp_trcone.h, freed after the attempt; both
 * kinds of work come out of one run budget, max(64 * capacity, 2^26)
 * (else "budget").
 * Attempts are deduplicated per code-location pair (sites of e1 and e2 and
 * their kinds): a confirmed pair reuses its description, a pair that
 * failed RP_WINDOW_RETRIES times is not tried again ("not retried").
 */
#ifndef RP_WINDOW_H
#define RP_WINDOW_H

#include "rp_detector.h"

#include <stdbool.h>
#include <stdint.h>

#define RP_WINDOW_DEFAULT (1u << 20)      /* events, 24 MiB */
#define RP_WINDOW_MIN (1u << 10)
#define RP_WINDOW_MAX (1u << 28)
#define RP_WINDOW_MARGIN 4096u            /* events kept before e1 */
#define RP_WINDOW_MAX_ATTEMPT (1u << 22)  /* sub-log events per attempt */
#define RP_WINDOW_MAX_REVERSAL (1u << 23) /* work units per reversal attempt */
#define RP_WINDOW_RETRIES 3
#define RP_WITNESS_STEPS_MAX 3

/* One event as the window stores it (24 bytes). */
typedef struct rp_wevent {
    uint64_t obj;
    uint64_t site_kind;     /* site << 8 | kind */
    rp_tid_t tid;
    uint32_t size;
} rp_wevent;

/* A key step of a witness: `tid`'s critical section on `lock` now runs
 * before `other_tid`'s, which the observed run had first.  Either the
 * witness keeps both sections in swapped order (`reversed`: the other
 * section is entered after this one's release, and is left open when the
 * other thread's racing access is inside it), or it drops the other
 * section (it follows the other thread's racing access, or nothing in the
 * witness needs it). */
typedef struct rp_witness_step {
    rp_tid_t tid, other_tid;
    uint64_t lock;
    bool reversed;
    uint64_t site, other_site;     /* a code location of each section: its
                                      first access, else the access before
                                      the acquire; 0 when none is known */
    bool site_inside, other_site_inside;
} rp_witness_step;

/* What a report prints about a validated witness. */
typedef struct rp_witness_desc {
    uint64_t cut;           /* the run before event `cut` is unchanged */
    uint64_t span;          /* observed events from cut to the second access */
    uint32_t kept;          /* of them, in the witness */
    uint32_t held_at_cut;   /* locks held at the cut */
    bool reordered;         /* not a subsequence of the run in its order */
    uint32_t n_steps;       /* steps[0 .. n_steps) */
    uint32_t more_steps;    /* further steps not listed */
    rp_witness_step steps[RP_WITNESS_STEPS_MAX];
} rp_witness_desc;

typedef enum rp_window_outcome {
    RP_WOUT_CONFIRMED,       /* new witness built and validated */
    RP_WOUT_CONFIRMED_SITES, /* an earlier witness for the same sites */
    RP_WOUT_OUT_OF_WINDOW,
    RP_WOUT_BUDGET,
    RP_WOUT_NO_WITNESS,      /* neither construction found a witness */
    RP_WOUT_INVALID,         /* the validator rejected a construction's
                                witness (should not happen) */
    RP_WOUT_NOT_RETRIED,     /* sites failed RP_WINDOW_RETRIES times */
    RP_WOUT_MISMATCH,        /* the event at the race's id is not its access */
    RP_WOUT_COUNT
} rp_window_outcome;

typedef struct rp_window rp_window;

rp_window *rp_window_create(uint32_t capacity);
void rp_window_destroy(rp_window *w);

/* Appends the event (its id must be the previous one + 1). */
void rp_window_append(rp_window *w, const rp_event *e);

/* Tries to confirm *race (see above); on success sets race->confirmed and
 * race->witness (pointing into the window, valid until the next call). */
rp_window_outcome rp_window_confirm(rp_window *w, rp_race *race);

/* Code locations a report should not name for a critical section (e.g.
 * the tool's own pthread wrappers): section sites skip them. */
void rp_window_set_site_filter(rp_window *w, bool (*skip)(uint64_t site));

/* Candidates per outcome so far; of the new witnesses, those that reorder
 * the run (reverse critical sections). */
uint64_t rp_window_count(const rp_window *w, rp_window_outcome o);
uint64_t rp_window_reversals(const rp_window *w);
/* Of the attempts without a witness, those an earlier attempt's closure
 * answered (rp_window.c, "pairs an earlier attempt rules out"). */
uint64_t rp_window_ruled_out(const rp_window *w);

/* Tuning and tests: events kept before e1 (RP_WINDOW_MARGIN by default);
 * whether to try witnesses by reversal when no sync-preserving one exists
 * (default yes). */
void rp_window_set_margin(rp_window *w, uint32_t margin);
void rp_window_set_reversal(rp_window *w, bool on);

/* Tests: keep the last new witness (RP_WOUT_CONFIRMED) as event ids.  It
 * is the run before *cut in its order, then ids[0 .. *n) in witness order
 * (the synthetic acquires left out: they stand for the run's own
 * acquires before the cut); valid until the next rp_window_confirm. */
void rp_window_keep_witness_ids(rp_window *w, bool keep);
const uint64_t *rp_window_witness_ids(const rp_window *w, uint64_t *cut, uint32_t *n);
uint32_t rp_window_capacity(const rp_window *w);
const char *rp_window_outcome_name(rp_window_outcome o);

#endif
