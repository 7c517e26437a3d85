/* det_osr.c — optimistic synchronisation-reversal races ("osr"; Shi,
 * Mathur, Pavlogiannis ICSE'24, seed 004 §4–5, research digest §11).
 *
 * What it reports: pairs (e1, e2) of conflicting accesses whose
 * optimistically lock-closed set S = OLClosure(e1, e2) contains neither
 * access, holds at most one open acquire per lock, and whose optimistic
 * reordering graph G^Opt_S is acyclic.  Such a pair has a correct
 * reordering that may move the (single) open critical section of a lock
 * after the others: OSR can reverse critical sections, never two
 * conflicting accesses.  Sound: every pair is reported with its witness,
 * confirmed only if the shared validator (rp_witness.h) accepts it;
 * complete for the class (Def. 1 + Lemmas 4.1–4.4), incomparable with
 * syncp and m2.  OFFLINE: a release that comes after both accesses in the
 * log may be taken (the vector s004-online-vs-offline expects 1-11).
 *
 * Algorithm (Alg. 1, 3, 4 with the digest's errata):
 *   S is a cone (rp_trcone.h: one prefix length per thread, closed under
 *   thread order, fork/join, reads-from and hard edges).  For an access a
 *   and another thread, the later conflicting accesses b of that thread
 *   are scanned in program order (rp_offline.h) growing ONE S
 *   (monotonicity, Lemma 4.3): S ∪= pre(b), then the closure takes, for
 *   every open acquire of S (the locks a thread holds at the end of its
 *   prefix — the per-(lock, thread) acquire pointer of the paper), its
 *   release's TRClosure unless that contains a or b; to a fixpoint.
 *   a ∈ S ends the scan (it stays in S); b ∈ S skips b — the explicit
 *   check Alg. 1 omits.  More than one open acquire of a lock (shared
 *   ones counted too, conservatively): no race.
 *   Fast path: the only edges of G^Opt_S against trace order go from
 *   lastRel(S, l) to an open acquire of l that precedes it.  With none, S
 *   in trace order is the witness, checked by the cone fast path of
 *   rp_trcone.h in O(T^2) (no replay).  Otherwise S before the first such
 *   acquire stays in trace order too (a base checked the same way) and
 *   only the rest of S, the window, is ordered and replayed
 *   (witness_check_after): the cost of a pair no longer grows with the
 *   log.  When a fast check cannot decide, G^Opt_S is built sparsely
 *   (tc_linearize, rp_trcone.h)
 *   (thread order, fork/join, sends, per byte last-writer and
 *   reads-since-write edges, per lock release -> next acquire, lastRel ->
 *   open acquire) and topologically sorted, smallest trace position first:
 *   the order is the witness, a cycle means no race.  (The paper's
 *   abstract lock graph decides acyclicity in O(L^2) with range-minimum
 *   tables but builds no witness; the window's order decides and is the
 *   witness, so it is not used — see docs/detectors/osr.md.)
 * Candidates come from a lazy per-thread cursor (rp_offline.h), so a scan
 * that stops early does not pay for the rest of the variable's accesses.
 * Cost: O(T) per closure step, O(T^2 + window log window) per reported
 * pair, O(N^2) in the worst case overall; memory O(N·T) clocks.
 */
#include "rp_detector.h"
#include "rp_offline.h"
#include "rp_shim.h"
#include "rp_trcone.h"
#include "rp_witness.h"

typedef struct osr_detector {
    rp_detector_env env;
    rp_offline_log log;
    uint32_t unconfirmed;
} osr_detector;

typedef struct osr_scan {
    const rp_tcfacts *f;
    uint32_t *S;
    rp_tcwin win;           /* scratch of the witnesses */
    rp_wcheck *chk;
    rp_witness w;
    uint32_t unconfirmed;
    rp_conflicts *conf;
    rp_cursor cur;
    uint32_t from;          /* second accesses before it were analysed */
} osr_scan;

static void osr_event(void *self, const rp_event *e)
{
    osr_detector *d = self;
    offline_log_append(&d->log, e);
}

/* Algorithm 1: takes the release of every open acquire unless its
 * TRClosure holds e1 or e2. */
static void ol_close(const rp_tcfacts *f, uint32_t *S, uint32_t e1, uint32_t e2)
{
    bool grew = true;
    while (grew) {
        grew = false;
        for (uint32_t t = 0; t < f->n_threads && !grew; t++)
            for (uint32_t k = tc_held(f, t, S[t]); k != TC_NONE && !grew; k = f->node_next[k]) {
                uint32_t r = f->match[f->node_acq[k]];
                if (r != TC_NONE && !tc_clock_has(f, r, e1) && !tc_clock_has(f, r, e2))
                    grew = tc_join(f, S, r);
            }
    }
}

static bool has_backward_edge(const rp_tcfacts *f, const uint32_t *S)
{
    for (uint32_t t = 0; t < f->n_threads; t++)
        for (uint32_t k = tc_held(f, t, S[t]); k != TC_NONE; k = f->node_next[k]) {
            uint32_t a = f->node_acq[k], last = tc_last_release(f, S, f->lock_id[a]);
            if (last != TC_NONE && a < last)
                return true;
        }
    return false;
}

static void witness_trace_order(const rp_tcfacts *f, const uint32_t *S, rp_witness *w)
{
    uint32_t end = tc_end(f, S);
    for (uint32_t i = 0; i < end; i++)
        if (tc_in(f, S, i))
            witness_push(w, i);
}

/* ---- the scan --------------------------------------------------------------- */

/* (a, b): S already holds OLClosure(a, b).  Adds the race if there is one:
 * the witness is G^Opt_S's order, validated by tc_fast_witness without a
 * replay of S when it can, else built in full and replayed. */
static void check_pair(osr_scan *s, uint32_t a, uint32_t b, rp_u64vec *races)
{
    const rp_tcfacts *f = s->f;
    uint32_t open;
    if (tc_open_acquires(f, s->S, &open))
        return;                                 /* not lock-feasible */
    int fast = tc_fast_witness(f, s->S, a, b, s->chk, &s->win, &s->w);
    if (fast != 0) {
        if (fast > 0)
            offline_add_race(races, a, b, true);
        return;                                 /* < 0: G^Opt_S has a cycle */
    }
    witness_clear(&s->w);
    s->w.e1 = a;
    s->w.e2 = b;
    if (open == 0 || !has_backward_edge(f, s->S))
        witness_trace_order(f, s->S, &s->w);
    else if (!tc_linearize(f, s->S, 0, s->win.loc, &s->w))
        return;                                 /* G^Opt_S has a cycle */
    bool ok = witness_check(s->chk, &s->w, NULL);
    if (!ok)
        s->unconfirmed++;
    offline_add_race(races, a, b, ok);
}

/* The candidates b of a in thread t, in program order, growing one S. */
static void scan_thread(osr_scan *s, uint32_t a, rp_tid_t t, rp_u64vec *races)
{
    const rp_tcfacts *f = s->f;
    bool started = false;
    cursor_start(&s->cur, s->conf, a, t, false);
    if (a < s->from)
        cursor_skip_to(&s->cur, s->from);
    for (uint32_t b; (b = cursor_next(&s->cur)) != UINT32_MAX;) {
        if (!started) {
            rp_memset(s->S, 0, f->n_threads * sizeof *s->S);
            tc_join(f, s->S, a);
            started = true;
        }
        tc_join(f, s->S, b);
        ol_close(f, s->S, a, b);
        if (tc_in(f, s->S, a))
            break;                              /* and for every later b */
        if (!tc_in(f, s->S, b))
            check_pair(s, a, b, races);
    }
}

static void osr_analyse(void *ctx, const rp_event *log, uint32_t n, uint32_t from)
{
    osr_detector *d = ctx;
    rp_tcfacts f;
    rp_u64vec races = { NULL, 0, 0 };
    tc_build(&f, log, n);
    osr_scan s;
    rp_memset(&s, 0, sizeof s);
    s.f = &f;
    s.from = from;
    s.S = rp_calloc("rp.osr", (size_t)f.n_threads + 1, sizeof(uint32_t));
    tc_win_init(&s.win, &f);
    s.chk = wcheck_create(log, n);
    s.conf = conflicts_create(log, n);
    cursor_init(&s.cur);
    witness_init(&s.w);
    for (uint32_t a = 0; a < n; a++)
        for (rp_tid_t t = 0; rp_event_is_access(&log[a]) && t < f.n_threads; t++)
            if (t != log[a].tid)
                scan_thread(&s, a, t, &races);
    d->unconfirmed += s.unconfirmed;
    offline_report(&d->env, "osr", log, n, from, &races);
    conflicts_destroy(s.conf);
    cursor_free(&s.cur);
    witness_free(&s.w);
    wcheck_destroy(s.chk);
    rp_free(s.S);
    tc_win_free(&s.win);
    tc_free(&f);
    u64vec_free(&races);
}

static void osr_finish(void *self)
{
    osr_detector *d = self;
    offline_log_finish(&d->log, "osr");
    if (d->unconfirmed != 0)
        rp_message("osr: internal error: %u witnesses failed validation (reported unconfirmed)\n",
                   d->unconfirmed);
}

static void *osr_create(const rp_detector_env *env)
{
    osr_detector *d = rp_calloc("rp.osr", 1, sizeof *d);
    d->env = *env;
    offline_log_init(&d->log, osr_analyse, d);
    return d;
}

static void osr_destroy(void *self)
{
    osr_detector *d = self;
    if (d == NULL)
        return;
    offline_log_free(&d->log);
    rp_free(d);
}

static rp_tid_t osr_last_writer(void *self, uint64_t addr)
{
    const osr_detector *d = self;
    return offline_log_last_writer(&d->log, addr);
}

const rp_detector_ops rp_det_osr = {
    .name = "osr",
    .summary = "optimistic sync-reversal races (ICSE'24), every pair with a validated witness; offline",
    .needs_branches = false,
    .create = osr_create,
    .destroy = osr_destroy,
    .read = osr_event,
    .write = osr_event,
    .acquire = osr_event,
    .release = osr_event,
    .acquire_shared = osr_event,
    .release_shared = osr_event,
    .fork = osr_event,
    .join = osr_event,
    .sync_send = osr_event,
    .sync_recv = osr_event,
    .forget = osr_event,
    .last_writer = osr_last_writer,
    .finish = osr_finish,
};
