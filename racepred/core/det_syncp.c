/* det_syncp.c — sync-preserving races ("syncp"; Mathur, Pavlogiannis,
 * Viswanathan POPL'21, seed 004 §3).
 *
 * What it reports: pairs (e1, e2) of conflicting accesses (different
 * threads, shared bytes not refreshed by a forget in between, at least one
 * write) for which a correct reordering exists that keeps the relative
 * order of every two critical sections on the same lock and ends with e1
 * and e2 both enabled.  Sound for every pair: each one is reported only
 * after its witness (the closure of rp_spclosure.h in trace order) passed
 * the shared validator (rp_witness.h).  `observed` = the pair is unordered
 * by happens-before (computed by one HB vector-clock pass at the end).
 *
 * Offline algorithm: every event is logged (rp_offline.h); the log is
 * analysed when it reaches offline_max_events() (then cut, rp_segment.h)
 * and at finish, each time only for pairs whose second access is new.
 * An analysis runs, per thread t in program order, the closure of the
 * predecessors of t's current access a is kept and only grown as a
 * advances (spc_advance: it is monotone in a).  For each other thread u,
 * the later accesses of u that conflict with a come from a lazy cursor
 * (rp_offline.h) in program order and extend that closure (monotone in the
 * second access too) inside a save/restore bracket, so a scan costs what it
 * adds to the closure of a's predecessors, not the whole closure; it stops
 * when a falls in.  A pair's witness is the closure in trace order; it is
 * checked by the cone fast path of rp_trcone.h (O(T^2), exact on a log
 * that is itself a valid execution, tested against the validator) and
 * otherwise built and replayed by the validator.  Cost: per (access,
 * other thread) scan, the events it adds to the closure; O(N^2 T) in the
 * worst case, near-linear on logs whose threads synchronise often (a 10^6-
 * event generated trace: seconds, docs/performance.md).  Memory: the log,
 * the closure facts, and the cone facts (n_threads words per event).
 * Location mode (all_pairs off) computes the same set and reports, per
 * second access, its latest partner only.
 */
#include "rp_detector.h"
#include "rp_offline.h"
#include "rp_shim.h"
#include "rp_spclosure.h"
#include "rp_trcone.h"
#include "rp_witness.h"

typedef struct syncp_detector {
    rp_detector_env env;
    rp_offline_log log;
    uint32_t unconfirmed;
} syncp_detector;

static void syncp_event(void *self, const rp_event *e)
{
    syncp_detector *d = self;
    offline_log_append(&d->log, e);
}

typedef struct syncp_scan {
    const rp_event *log;
    rp_spc *spc;
    rp_tcfacts facts;
    rp_conflicts *conf;
    rp_cursor cur;
    rp_wcheck *chk;
    rp_witness w;
    uint32_t unconfirmed;
    rp_u64vec races;
    uint32_t from;          /* second accesses before it were analysed */
} syncp_scan;

/* The closure is a cone: checked in O(T^2) (rp_trcone.h), else built as a
 * witness and replayed by the validator. */
static bool confirm(syncp_scan *s, uint32_t a, uint32_t b)
{
    if (tc_cone_is_witness(&s->facts, spc_cone(s->spc), a, b))
        return true;
    spc_witness(s->spc, b, &s->w);
    return witness_check(s->chk, &s->w, NULL);
}

/* The candidates of a in thread t, in program order, growing one closure
 * from the saved closure of a's predecessors; stops when a falls in. */
static void scan_thread(syncp_scan *s, uint32_t a, rp_tid_t t)
{
    bool saved = false;
    cursor_start(&s->cur, s->conf, a, t, false);
    if (a < s->from)
        cursor_skip_to(&s->cur, s->from);
    for (uint32_t b; (b = cursor_next(&s->cur)) != UINT32_MAX;) {
        if (!saved) {
            spc_save(s->spc);
            saved = true;
        }
        rp_spc_result r = spc_extend(s->spc, b);
        if (r == RP_SPC_FIRST_IN)
            break;
        if (r != RP_SPC_RACE)
            continue;
        if (confirm(s, a, b))
            offline_add_race(&s->races, a, b, true);
        else
            s->unconfirmed++;
    }
    if (saved)
        spc_restore(s->spc);
}

/* The accesses of thread t in program order: the closure of their
 * predecessors only grows (spc_advance), so it is computed once per
 * thread, not once per access. */
static void scan_accesses_of(syncp_scan *s, rp_tid_t t)
{
    const rp_tcfacts *f = &s->facts;
    bool started = false;
    for (uint32_t k = 0; k < tc_thread_len(f, t); k++) {
        uint32_t a = tc_thread_event(f, t, k);
        if (!rp_event_is_access(&s->log[a]))
            continue;
        if (started) {
            spc_advance(s->spc, a);
        } else {
            spc_begin(s->spc, a);
            started = true;
        }
        if (spc_dead(s->spc))
            return;                 /* a missing release: no closure, now or later */
        for (rp_tid_t u = 0; u < f->n_threads; u++)
            if (u != t)
                scan_thread(s, a, u);
    }
}

static void syncp_analyse(void *ctx, const rp_event *log, uint32_t n, uint32_t from)
{
    syncp_detector *d = ctx;
    syncp_scan s;
    rp_memset(&s, 0, sizeof s);
    s.log = log;
    s.from = from;
    s.spc = spc_create(log, n);
    tc_build(&s.facts, log, n);
    s.chk = wcheck_create(log, n);
    s.conf = conflicts_create(log, n);
    cursor_init(&s.cur);
    witness_init(&s.w);
    for (rp_tid_t t = 0; t < s.facts.n_threads; t++)
        scan_accesses_of(&s, t);
    d->unconfirmed += s.unconfirmed;
    offline_report(&d->env, "syncp", log, n, from, &s.races);
    conflicts_destroy(s.conf);
    cursor_free(&s.cur);
    witness_free(&s.w);
    wcheck_destroy(s.chk);
    tc_free(&s.facts);
    spc_destroy(s.spc);
    u64vec_free(&s.races);
}

static void syncp_finish(void *self)
{
    syncp_detector *d = self;
    offline_log_finish(&d->log, "syncp");
    if (d->unconfirmed != 0)
        rp_message("syncp: internal error: %u closure witnesses failed validation "
                   "(pairs not reported)\n", d->unconfirmed);
}

static void *syncp_create(const rp_detector_env *env)
{
    syncp_detector *d = rp_calloc("rp.syncp", 1, sizeof *d);
    d->env = *env;
    offline_log_init(&d->log, syncp_analyse, d);
    return d;
}

static void syncp_destroy(void *self)
{
    syncp_detector *d = self;
    if (d == NULL)
        return;
    offline_log_free(&d->log);
    rp_free(d);
}

static rp_tid_t syncp_last_writer(void *self, uint64_t addr)
{
    const syncp_detector *d = self;
    return offline_log_last_writer(&d->log, addr);
}

const rp_detector_ops rp_det_syncp = {
    .name = "syncp",
    .summary = "sync-preserving races (POPL'21), every pair with a validated witness; offline",
    .needs_branches = false,
    .create = syncp_create,
    .destroy = syncp_destroy,
    .read = syncp_event,
    .write = syncp_event,
    .acquire = syncp_event,
    .release = syncp_event,
    .acquire_shared = syncp_event,
    .release_shared = syncp_event,
    .fork = syncp_event,
    .join = syncp_event,
    .sync_send = syncp_event,
    .sync_recv = syncp_event,
    .forget = syncp_event,
    .last_writer = syncp_last_writer,
    .finish = syncp_finish,
};
