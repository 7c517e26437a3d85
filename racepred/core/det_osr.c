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
 *   in trace order is the witness.  Otherwise G^Opt_S is built sparsely
 *   (tc_linearize, rp_trcone.h)
 *   (thread order, fork/join, sends, per byte last-writer and
 *   reads-since-write edges, per lock release -> next acquire, lastRel ->
 *   open acquire) and topologically sorted, smallest trace position first:
 *   the order is the witness, a cycle means no race.  (The paper's
 *   abstract lock graph decides acyclicity in O(L^2) with range-minimum
 *   tables; it cannot build the witness, which costs O(|S|) anyway, so it
 *   is not used — see docs/detectors/osr.md.)
 * Cost: O(T) per closure step, O(|S| log |S|) per reported pair (witness
 * and validation), O(N^2) in the worst case overall; memory O(N·T) clocks.
 */
#include "rp_detector.h"
#include "rp_offline.h"
#include "rp_shim.h"
#include "rp_trcone.h"
#include "rp_witness.h"

typedef struct osr_detector {
    rp_detector_env env;
    rp_offline_log log;
} osr_detector;

typedef struct osr_scan {
    const rp_tcfacts *f;
    uint32_t *S;
    uint32_t *loc;          /* log index -> position in S (graph) */
    rp_wcheck *chk;
    rp_witness w;
    uint32_t unconfirmed;
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

/* (a, b): S already holds OLClosure(a, b).  Adds the race if there is one. */
static void check_pair(osr_scan *s, uint32_t a, uint32_t b, rp_u64vec *races)
{
    const rp_tcfacts *f = s->f;
    uint32_t open;
    if (tc_open_acquires(f, s->S, &open))
        return;                                 /* not lock-feasible */
    witness_clear(&s->w);
    s->w.e1 = a;
    s->w.e2 = b;
    if (open == 0 || !has_backward_edge(f, s->S))
        witness_trace_order(f, s->S, &s->w);
    else if (!tc_linearize(f, s->S, s->loc, &s->w))
        return;                                 /* G^Opt_S has a cycle */
    bool ok = witness_check(s->chk, &s->w, NULL);
    if (!ok)
        s->unconfirmed++;
    offline_add_race(races, a, b, ok);
}

static void scan_access(osr_scan *s, const rp_u64vec *cand, uint32_t a, rp_u64vec *races)
{
    const rp_tcfacts *f = s->f;
    for (uint32_t k = 0; k < cand->n;) {
        uint32_t tid = (uint32_t)(cand->v[k] >> 32);
        rp_memset(s->S, 0, f->n_threads * sizeof *s->S);
        tc_join(f, s->S, a);
        for (; k < cand->n && (uint32_t)(cand->v[k] >> 32) == tid; k++) {
            uint32_t b = (uint32_t)cand->v[k];
            tc_join(f, s->S, b);
            ol_close(f, s->S, a, b);
            if (tc_in(f, s->S, a))
                break;                          /* and for every later b */
            if (!tc_in(f, s->S, b))
                check_pair(s, a, b, races);
        }
        while (k < cand->n && (uint32_t)(cand->v[k] >> 32) == tid)
            k++;
    }
}

static void osr_finish(void *self)
{
    osr_detector *d = self;
    const rp_event *log = d->log.ev;
    uint32_t n = d->log.n;
    rp_tcfacts f;
    rp_u64vec cand = { NULL, 0, 0 }, races = { NULL, 0, 0 };
    offline_log_warn(&d->log, "osr");
    tc_build(&f, log, n);
    osr_scan s = { &f, rp_calloc("rp.osr", (size_t)f.n_threads + 1, sizeof(uint32_t)),
                   rp_malloc("rp.osr", ((size_t)n + 1) * sizeof(uint32_t)),
                   wcheck_create(log, n), { 0, 0, NULL, 0, 0 }, 0 };
    witness_init(&s.w);
    rp_conflicts *conf = conflicts_create(log, n);
    for (uint32_t a = 0; a < n; a++) {
        if (!rp_event_is_access(&log[a]))
            continue;
        conflicts_gather(conf, a, false, &cand);
        scan_access(&s, &cand, a, &races);
    }
    if (s.unconfirmed != 0)
        rp_message("osr: internal error: %u witnesses failed validation (reported unconfirmed)\n",
                   s.unconfirmed);
    offline_report(&d->env, "osr", log, n, &races);
    conflicts_destroy(conf);
    witness_free(&s.w);
    wcheck_destroy(s.chk);
    rp_free(s.S);
    rp_free(s.loc);
    tc_free(&f);
    u64vec_free(&cand);
    u64vec_free(&races);
}

static void *osr_create(const rp_detector_env *env)
{
    osr_detector *d = rp_calloc("rp.osr", 1, sizeof *d);
    d->env = *env;
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
    .finish = osr_finish,
};
