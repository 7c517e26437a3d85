/* det_m2.c — M2 (Pavlogiannis POPL'20, seed 003 §4–5, research digest
 * §9 errata and §11).
 *
 * What it reports: the pairs of conflicting accesses Alg. 6 finds, taken
 * literally (both choices of i, lexicographic loop order; the vectors'
 * `m2` relation).  Sound (every pair is a predictable race), complete for
 * two threads (it then finds every predictable race); for three or more
 * threads RCone's item 4 may pull the second access into the cone and
 * miss a race (s003-own-3t-incomplete misses 5-9).  Every pair carries a
 * witness checked by the shared validator (rp_witness.h) and is confirmed
 * only if it passes.
 *
 * Algorithm, per access e1 and other thread p (rp_offline.h lists the
 * conflicting accesses e2 of p, earlier and later, in program order):
 *   X = RCone(e1, p), a cone of rp_trcone.h (one prefix length per thread,
 *   closed under thread order, fork/join, reads-from, hard edges) plus
 *   item 4: an open acquire of a third thread (not p(e1), not p) brings
 *   its release's closure.  For each e2 not in X:
 *     X ∪= RCone(e2, p(e1))           (cones grow along program order)
 *     e1 ∈ X: stop, for every later e2 as well;
 *     no open acquire in X: race (Lemma 5.1), witness X in trace order.
 *       Alg. 6 does not check e2 ∉ X here (erratum 6): when e2 fell into
 *       X that witness is invalid, and the pair (reported, as Alg. 6 does)
 *       gets the sync-preserving witness of rp_spclosure.h instead;
 *     a lock both accesses hold: no race (the full check would find two
 *       open acquires of one lock: the candidate filter of §6.1);
 *     else a cheap witness first: the optimistic order of X (G^Opt of
 *       OSR, tc_linearize in rp_trcone.h: conflicting accesses and closed
 *       critical sections keep their trace order, open acquires go after
 *       their lock's releases); when it validates the pair is a race —
 *       for two threads exactly RaceDecision's answer, since RaceDecision
 *       is complete there and X is the event set of every witness;
 *     else RaceDecision (Alg. 5) on X: the weakest order respecting the
 *       trace (thread order, fork/join, sends, reads-from, every release
 *       of a lock before its open acquire), closed under observation
 *       closure (a read of an initial value goes before every write of its
 *       bytes: erratum 2) and lock closure of distinct critical sections;
 *       for each i in {1, 2} the conflicting pairs outside p(e_i) that are
 *       still unordered are ordered in trace order, smallest pair first,
 *       re-closing each time; then the max–min linearisation (Alg. 1,
 *       smallest trace position first among ready events) is the witness.
 *   The order is a dense reachability matrix over X, so the full check
 *   runs only on cones of at most M2_DENSE_MAX events; larger ones are
 *   counted as unchecked and said at finish — never silently.
 * Cost: O(T) per cone step (clocks), O(|X|) per Lemma-5.1 race (witness
 * and validation), O(|X| log |X|) per optimistic witness, O(|X|^3 / 64)
 * per full check; O(N^2) pairs at worst.
 */
#include "rp_detector.h"
#include "rp_offline.h"
#include "rp_shim.h"
#include "rp_sort.h"
#include "rp_spclosure.h"
#include "rp_trcone.h"
#include "rp_u64map.h"
#include "rp_witness.h"

#define M2_DENSE_MAX 1024u

typedef struct m2_detector {
    rp_detector_env env;
    rp_offline_log log;
    uint32_t unchecked, unconfirmed;
} m2_detector;

/* The order over X: row u = events reachable from u (strictly after). */
typedef struct order {
    uint64_t *bits;
    uint32_t m, words;
} order;

typedef struct m2_scan {
    const rp_tcfacts *f;
    uint32_t *X;
    uint32_t *loc;          /* log index -> position in xev */
    uint32_t *xev;          /* X in trace order */
    uint32_t m;
    order q, qi, qp;
    rp_wcheck *chk;
    rp_spc *spc;
    rp_witness w;
    rp_tcwin win;           /* scratch of tc_fast_witness */
    rp_conflicts *conf;
    rp_cursor cur;
    uint32_t unchecked, unconfirmed;
    uint32_t from;          /* pairs within log[0 .. from) were analysed */
} m2_scan;

static void m2_event(void *self, const rp_event *e)
{
    m2_detector *d = self;
    offline_log_append(&d->log, e);
}

/* ---- cones ------------------------------------------------------------------- */

/* RCone item 4 for the focal threads p1, p2: to a fixpoint. */
static void rcone_close(const rp_tcfacts *f, uint32_t *X, rp_tid_t p1, rp_tid_t p2)
{
    bool grew = true;
    while (grew) {
        grew = false;
        for (uint32_t t = 0; t < f->n_threads && !grew; t++) {
            if (t == p1 || t == p2)
                continue;
            for (uint32_t k = tc_held(f, t, X[t]); k != TC_NONE && !grew; k = f->node_next[k]) {
                uint32_t r = f->match[f->node_acq[k]];
                if (r != TC_NONE)
                    grew = tc_join(f, X, r);
            }
        }
    }
}

static bool common_lock(const rp_tcfacts *f, uint32_t a, uint32_t b)
{
    rp_tid_t ta = f->log[a].tid, tb = f->log[b].tid;
    for (uint32_t i = tc_held(f, ta, f->tpos[a]); i != TC_NONE; i = f->node_next[i])
        for (uint32_t j = tc_held(f, tb, f->tpos[b]); j != TC_NONE; j = f->node_next[j])
            if (f->lock_id[f->node_acq[i]] == f->lock_id[f->node_acq[j]])
                return true;
    return false;
}

/* ---- the dense order ----------------------------------------------------- */

static void order_reset(order *o, uint32_t m)
{
    o->m = m;
    o->words = (m + 63) / 64;
    o->bits = rp_realloc("rp.m2.order", o->bits, ((size_t)m * o->words + 1) * sizeof *o->bits);
    rp_memset(o->bits, 0, (size_t)m * o->words * sizeof *o->bits);
}

static void order_copy(order *dst, const order *src)
{
    order_reset(dst, src->m);
    rp_memcpy(dst->bits, src->bits, (size_t)src->m * src->words * sizeof *src->bits);
}

static bool lt(const order *o, uint32_t a, uint32_t b)
{
    return (o->bits[(size_t)a * o->words + b / 64] >> (b % 64)) & 1;
}

/* a < b and its transitive consequences: -1 on a cycle, 0 if already
 * there, 1 if added. */
static int order_add(order *o, uint32_t a, uint32_t b)
{
    if (a == b || lt(o, b, a))
        return -1;
    if (lt(o, a, b))
        return 0;
    const uint64_t *down = o->bits + (size_t)b * o->words;
    for (uint32_t u = 0; u < o->m; u++) {
        if (u != a && !lt(o, u, a))
            continue;
        uint64_t *row = o->bits + (size_t)u * o->words;
        for (uint32_t k = 0; k < o->words; k++)
            row[k] |= down[k];
        row[b / 64] |= 1ull << (b % 64);
    }
    return 1;
}

static bool unordered(const order *o, uint32_t a, uint32_t b)
{
    return !lt(o, a, b) && !lt(o, b, a);
}

/* ---- RaceDecision (Alg. 5) -------------------------------------------------- */

static bool writes(const rp_event *e)
{
    return e->kind == RP_EV_WRITE || e->kind == RP_EV_FORGET;
}

static bool data_event(const rp_event *e)
{
    return e->kind == RP_EV_READ || writes(e);
}

static bool overlap(const rp_event *a, const rp_event *b)
{
    return a->obj < b->obj + b->size && b->obj < a->obj + a->size;
}

static bool is_lock_event(const rp_event *e)
{
    return e->kind == RP_EV_ACQUIRE || e->kind == RP_EV_ACQUIRE_SHARED ||
           e->kind == RP_EV_RELEASE || e->kind == RP_EV_RELEASE_SHARED;
}

/* the paper's extended conflict: data conflict, or two events of one lock */
static bool conflict_ext(const rp_tcfacts *f, uint32_t a, uint32_t b)
{
    const rp_event *ea = &f->log[a], *eb = &f->log[b];
    if (data_event(ea) && data_event(eb))
        return overlap(ea, eb) && (writes(ea) || writes(eb));
    return is_lock_event(ea) && is_lock_event(eb) && f->lock_id[a] == f->lock_id[b];
}

static bool is_acquire(const rp_event *e)
{
    return e->kind == RP_EV_ACQUIRE || e->kind == RP_EV_ACQUIRE_SHARED;
}

/* R_t(X) without the open-acquire rule: every direct edge goes forward in
 * trace order, so one backward sweep gives reachability. */
static void respects(m2_scan *s)
{
    const rp_tcfacts *f = s->f;
    const rp_event *log = f->log;
    order *o = &s->q;
    uint32_t m = s->m;
    rp_u64vec edges = { NULL, 0, 0 };
    uint32_t *last = rp_malloc("rp.m2", (f->n_threads + 1) * sizeof(uint32_t));
    for (uint32_t t = 0; t < f->n_threads; t++)
        last[t] = TC_NONE;
    for (uint32_t p = 0; p < m; p++) {
        uint32_t i = s->xev[p];
        const rp_event *e = &log[i];
        if (last[e->tid] != TC_NONE)
            u64vec_push(&edges, (uint64_t)last[e->tid] << 32 | p);
        last[e->tid] = p;
        if (f->tpos[i] == 0 && f->fork_at[e->tid] != TC_NONE)
            u64vec_push(&edges, (uint64_t)s->loc[f->fork_at[e->tid]] << 32 | p);
        if (e->kind == RP_EV_JOIN) {
            uint32_t len = tc_thread_len(f, (uint32_t)e->obj);
            if (len != 0)
                u64vec_push(&edges, (uint64_t)s->loc[tc_thread_event(f, (uint32_t)e->obj, len - 1)] << 32 | p);
        } else if (e->kind == RP_EV_SYNC_RECV) {
            for (uint32_t q = 0; q < p; q++)
                if (log[s->xev[q]].kind == RP_EV_SYNC_SEND && log[s->xev[q]].obj == e->obj)
                    u64vec_push(&edges, (uint64_t)q << 32 | p);
        } else if (e->kind == RP_EV_READ) {
            for (uint32_t k = 0; k < e->size; k++) {
                uint32_t w = f->writers[f->writer_off[i] + k];
                if (w != TC_NONE)
                    u64vec_push(&edges, (uint64_t)s->loc[w] << 32 | p);
            }
        }
    }
    /* sweep sources from the last one: rows of later events are final */
    sort_u64(edges.v, edges.n);
    for (uint32_t k = edges.n; k-- > 0;) {
        uint32_t p = (uint32_t)(edges.v[k] >> 32), q = (uint32_t)edges.v[k];
        uint64_t *row = o->bits + (size_t)p * o->words;
        const uint64_t *down = o->bits + (size_t)q * o->words;
        for (uint32_t j = 0; j < o->words; j++)
            row[j] |= down[j];
        row[q / 64] |= 1ull << (q % 64);
    }
    u64vec_free(&edges);
    rp_free(last);
}

/* Every release of a lock in X before the lock's open acquire. */
static bool open_acquire_rule(m2_scan *s)
{
    const rp_tcfacts *f = s->f;
    for (uint32_t t = 0; t < f->n_threads; t++)
        for (uint32_t k = tc_held(f, t, s->X[t]); k != TC_NONE; k = f->node_next[k]) {
            uint32_t a = f->node_acq[k], l = f->lock_id[a];
            for (uint32_t p = 0; p < s->m; p++) {
                const rp_event *e = &f->log[s->xev[p]];
                if (is_lock_event(e) && !is_acquire(e) && f->lock_id[s->xev[p]] == l &&
                    order_add(&s->q, p, s->loc[a]) < 0)
                    return false;
            }
        }
    return true;
}

/* Observation closure and lock closure to a fixpoint; false on a cycle. */
static bool close_order(m2_scan *s, order *o)
{
    const rp_tcfacts *f = s->f;
    const rp_event *log = f->log;
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t r = 0; r < s->m; r++) {
            uint32_t ir = s->xev[r];
            if (log[ir].kind != RP_EV_READ)
                continue;
            for (uint32_t x = 0; x < s->m; x++) {
                uint32_t ix = s->xev[x];
                if (!writes(&log[ix]) || !overlap(&log[ir], &log[ix]))
                    continue;
                for (uint32_t k = 0; k < log[ir].size; k++) {
                    uint64_t byte = log[ir].obj + k;
                    if (byte < log[ix].obj || byte >= log[ix].obj + log[ix].size)
                        continue;
                    uint32_t w = f->writers[f->writer_off[ir] + k];
                    int res = 0;
                    if (w == ix)
                        continue;
                    if (w == TC_NONE) {
                        res = order_add(o, r, x);       /* initial value */
                    } else {
                        if (lt(o, x, r))
                            res = order_add(o, x, s->loc[w]);
                        if (res >= 0 && lt(o, s->loc[w], x)) {
                            int res2 = order_add(o, r, x);
                            res = res2 < 0 ? -1 : (res | res2);
                        }
                    }
                    if (res < 0)
                        return false;
                    changed |= res > 0;
                }
            }
        }
        for (uint32_t a1 = 0; a1 < s->m; a1++) {
            uint32_t i1 = s->xev[a1], r1 = f->match[i1];
            if (!is_acquire(&log[i1]) || r1 == TC_NONE || !tc_in(f, s->X, r1))
                continue;
            for (uint32_t a2 = 0; a2 < s->m; a2++) {
                uint32_t i2 = s->xev[a2], r2 = f->match[i2];
                if (a2 == a1 || !is_acquire(&log[i2]) || r2 == TC_NONE || !tc_in(f, s->X, r2) ||
                    f->lock_id[i1] != f->lock_id[i2] || !lt(o, a1, s->loc[r2]))
                    continue;
                int res = order_add(o, s->loc[r1], a2);
                if (res < 0)
                    return false;
                changed |= res > 0;
            }
        }
    }
    return true;
}

/* Alg. 5's loop for the choice of thread pi: order the unordered
 * conflicting pairs outside pi, smallest (a, b) first. */
static bool order_rest(m2_scan *s, order *o, rp_tid_t pi)
{
    const rp_tcfacts *f = s->f;
    for (;;) {
        uint32_t ca = TC_NONE, cb = TC_NONE;
        for (uint32_t a = 0; a < s->m && ca == TC_NONE; a++) {
            if (f->log[s->xev[a]].tid == pi)
                continue;
            for (uint32_t b = a + 1; b < s->m; b++)
                if (f->log[s->xev[b]].tid != pi && conflict_ext(f, s->xev[a], s->xev[b]) &&
                    unordered(o, a, b)) {
                    ca = a;
                    cb = b;
                    break;
                }
        }
        if (ca == TC_NONE)
            return true;
        if (order_add(o, ca, cb) < 0 || !close_order(s, o))
            return false;
    }
}

/* Alg. 1: pi's events as early as possible, then any linearisation
 * (smallest trace position first). */
static bool max_min(m2_scan *s, const order *qi, order *qp, rp_tid_t pi, rp_witness *w)
{
    const rp_tcfacts *f = s->f;
    order_copy(qp, qi);
    for (uint32_t a = 0; a < s->m; a++) {
        if (f->log[s->xev[a]].tid != pi)
            continue;
        for (uint32_t b = 0; b < s->m; b++)
            if (f->log[s->xev[b]].tid != pi && unordered(qp, a, b) && order_add(qp, a, b) < 0)
                return false;
    }
    uint32_t *indeg = rp_calloc("rp.m2", (size_t)s->m + 1, sizeof(uint32_t));
    bool *done = rp_calloc("rp.m2", (size_t)s->m + 1, sizeof(bool));
    for (uint32_t a = 0; a < s->m; a++)
        for (uint32_t b = 0; b < s->m; b++)
            indeg[b] += lt(qp, a, b);
    for (uint32_t out = 0; out < s->m; out++) {
        uint32_t p = 0;
        while (p < s->m && (done[p] || indeg[p] != 0))
            p++;
        if (p == s->m)
            break;
        done[p] = true;
        witness_push(w, s->xev[p]);
        for (uint32_t b = 0; b < s->m; b++)
            indeg[b] -= lt(qp, p, b);
    }
    rp_free(indeg);
    rp_free(done);
    return w->n == s->m;
}

static void new_witness(rp_witness *w, uint32_t a, uint32_t b)
{
    witness_clear(w);
    w->e1 = a < b ? a : b;
    w->e2 = a < b ? b : a;
}

/* Returns 1 with a validated witness, 0 if no race, -1 race whose
 * witness failed. */
static int race_decision(m2_scan *s, uint32_t e1, uint32_t e2)
{
    const rp_tcfacts *f = s->f;
    uint32_t open;
    if (tc_in(f, s->X, e1) || tc_in(f, s->X, e2) || tc_open_acquires(f, s->X, &open))
        return 0;
    /* a cheap witness first: the optimistic order of X, validated without
     * a replay of X when tc_fast_witness can */
    int fast = tc_fast_witness(f, s->X, e1 < e2 ? e1 : e2, e1 < e2 ? e2 : e1, s->chk, &s->win,
                               &s->w);
    if (fast > 0)
        return 1;
    new_witness(&s->w, e1, e2);
    if (fast == 0 && tc_linearize(f, s->X, 0, s->loc, &s->w) &&
        witness_check(s->chk, &s->w, NULL))
        return 1;
    uint32_t end = tc_end(f, s->X);
    s->m = 0;
    for (uint32_t i = 0; i < end; i++)
        if (tc_in(f, s->X, i)) {
            if (s->m == M2_DENSE_MAX) {
                s->unchecked++;
                return 0;
            }
            s->loc[i] = s->m;
            s->xev[s->m++] = i;
        }
    order_reset(&s->q, s->m);
    respects(s);
    if (!open_acquire_rule(s) || !close_order(s, &s->q))
        return 0;
    int result = 0;
    for (int c = 0; c < 2 && result <= 0; c++) {
        rp_tid_t pi = f->log[c == 0 ? e1 : e2].tid;
        order_copy(&s->qi, &s->q);
        if (!order_rest(s, &s->qi, pi))
            continue;
        new_witness(&s->w, e1, e2);
        if (max_min(s, &s->qi, &s->qp, pi, &s->w) && witness_check(s->chk, &s->w, NULL))
            result = 1;
        else
            result = -1;
    }
    return result;
}

/* ---- Alg. 6 ------------------------------------------------------------------ */

static void lemma51(m2_scan *s, uint32_t e1, uint32_t e2, rp_u64vec *races)
{
    const rp_tcfacts *f = s->f;
    if (tc_cone_is_witness(f, s->X, e1 < e2 ? e1 : e2, e1 < e2 ? e2 : e1)) {
        offline_add_race(races, e1 < e2 ? e1 : e2, e1 < e2 ? e2 : e1, true);
        return;                 /* X in trace order, validated without a replay */
    }
    new_witness(&s->w, e1, e2);
    uint32_t end = tc_end(f, s->X);
    for (uint32_t i = 0; i < end; i++)
        if (tc_in(f, s->X, i))
            witness_push(&s->w, i);
    bool ok = witness_check(s->chk, &s->w, NULL);
    if (!ok) {          /* e2 fell into X (erratum 6): another witness */
        uint32_t a = s->w.e1, b = s->w.e2;
        ok = witness_for_pair(s->spc, a, b, &s->w) && witness_check(s->chk, &s->w, NULL);
    }
    s->unconfirmed += !ok;
    offline_add_race(races, e1 < e2 ? e1 : e2, e1 < e2 ? e2 : e1, ok);
}

/* One e2 of thread p (program order) against e1, X grown so far. */
static void check_candidate(m2_scan *s, uint32_t e1, uint32_t e2, rp_u64vec *races)
{
    const rp_tcfacts *f = s->f;
    uint32_t open;
    tc_open_acquires(f, s->X, &open);
    if (open == 0) {
        lemma51(s, e1, e2, races);
    } else if (!common_lock(f, e1, e2)) {
        int r = race_decision(s, e1, e2);
        if (r != 0)
            offline_add_race(races, e1 < e2 ? e1 : e2, e1 < e2 ? e2 : e1, r > 0);
        s->unconfirmed += r < 0;
    }
}

/* The conflicting accesses e2 of thread p, earlier and later, in program
 * order, growing one X from RCone(e1, p); stops when e1 falls in. */
static void scan_thread(m2_scan *s, uint32_t e1, rp_tid_t p, rp_u64vec *races)
{
    const rp_tcfacts *f = s->f;
    rp_tid_t p1 = f->log[e1].tid;
    bool started = false;
    cursor_start(&s->cur, s->conf, e1, p, true);
    if (e1 < s->from)
        cursor_skip_to(&s->cur, s->from);
    for (uint32_t e2; (e2 = cursor_next(&s->cur)) != UINT32_MAX;) {
        if (!started) {
            rp_memset(s->X, 0, f->n_threads * sizeof *s->X);
            tc_join(f, s->X, e1);
            rcone_close(f, s->X, p1, p);
            started = true;
        }
        if (tc_in(f, s->X, e2)) {
            /* X holds a prefix of p: skip the rest of it at once */
            cursor_skip_to(&s->cur, s->X[p] < tc_thread_len(f, p)
                                        ? tc_thread_event(f, p, s->X[p]) : UINT32_MAX);
            continue;
        }
        tc_join(f, s->X, e2);
        rcone_close(f, s->X, p1, p);
        if (tc_in(f, s->X, e1))
            break;
        check_candidate(s, e1, e2, races);
    }
}

static void m2_analyse(void *ctx, const rp_event *log, uint32_t n, uint32_t from)
{
    m2_detector *d = ctx;
    rp_tcfacts f;
    rp_u64vec races = { NULL, 0, 0 };
    m2_scan s;
    tc_build(&f, log, n);
    rp_memset(&s, 0, sizeof s);
    s.f = &f;
    s.from = from;
    s.X = rp_calloc("rp.m2", (size_t)f.n_threads + 1, sizeof(uint32_t));
    s.loc = rp_malloc("rp.m2", ((size_t)n + 1) * sizeof(uint32_t));
    s.xev = rp_malloc("rp.m2", ((size_t)M2_DENSE_MAX + 1) * sizeof(uint32_t));
    s.chk = wcheck_create(log, n);
    s.spc = spc_create(log, n);
    witness_init(&s.w);
    tc_win_init(&s.win, &f);
    s.conf = conflicts_create(log, n);
    cursor_init(&s.cur);
    for (uint32_t a = 0; a < n; a++)
        for (rp_tid_t p = 0; rp_event_is_access(&log[a]) && p < f.n_threads; p++)
            if (p != log[a].tid)
                scan_thread(&s, a, p, &races);
    d->unchecked += s.unchecked;
    d->unconfirmed += s.unconfirmed;
    offline_report(&d->env, "m2", log, n, from, &races);
    conflicts_destroy(s.conf);
    cursor_free(&s.cur);
    tc_win_free(&s.win);
    witness_free(&s.w);
    spc_destroy(s.spc);
    wcheck_destroy(s.chk);
    rp_free(s.q.bits);
    rp_free(s.qi.bits);
    rp_free(s.qp.bits);
    rp_free(s.X);
    rp_free(s.loc);
    rp_free(s.xev);
    tc_free(&f);
    u64vec_free(&races);
}

static void m2_finish(void *self)
{
    m2_detector *d = self;
    offline_log_finish(&d->log, "m2");
    if (d->unchecked != 0)
        rp_message("m2: %u candidate pairs needed the full race check on a cone of more than "
                   "%u events and were not checked\n", d->unchecked, M2_DENSE_MAX);
    if (d->unconfirmed != 0)
        rp_message("m2: %u reported pairs have no validated witness (unconfirmed)\n",
                   d->unconfirmed);
}

static void *m2_create(const rp_detector_env *env)
{
    m2_detector *d = rp_calloc("rp.m2", 1, sizeof *d);
    d->env = *env;
    offline_log_init(&d->log, m2_analyse, d);
    return d;
}

static void m2_destroy(void *self)
{
    m2_detector *d = self;
    if (d == NULL)
        return;
    offline_log_free(&d->log);
    rp_free(d);
}

static rp_tid_t m2_last_writer(void *self, uint64_t addr)
{
    const m2_detector *d = self;
    return offline_log_last_writer(&d->log, addr);
}

const rp_detector_ops rp_det_m2 = {
    .name = "m2",
    .summary = "M2 (POPL'20): sound, complete for two threads; every pair with a validated witness; offline",
    .needs_branches = false,
    .create = m2_create,
    .destroy = m2_destroy,
    .read = m2_event,
    .write = m2_event,
    .acquire = m2_event,
    .release = m2_event,
    .acquire_shared = m2_event,
    .release_shared = m2_event,
    .fork = m2_event,
    .join = m2_event,
    .sync_send = m2_event,
    .sync_recv = m2_event,
    .forget = m2_event,
    .last_writer = m2_last_writer,
    .finish = m2_finish,
};
