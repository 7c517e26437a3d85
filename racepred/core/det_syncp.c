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
 * Offline algorithm: every event is logged (rp_offline.h: up to
 * RP_OFFLINE_MAX_EVENTS; later events are dropped and the drop is reported).  At finish, per access a,
 * the later accesses that conflict with it are gathered from per-byte
 * access lists (a forget of the byte ends the list walk) and grouped by
 * thread; for each thread the candidates are tried in program order with
 * one growing closure (monotonicity), stopping when a falls into it.
 * Cost: O(N) per (access, other thread) in the worst case, O(N^2 T)
 * overall; memory ~100 bytes per logged event.  Location mode (all_pairs
 * off) computes the same set and reports, per second access, its latest
 * partner only.
 */
#include "rp_detector.h"
#include "rp_offline.h"
#include "rp_shim.h"
#include "rp_spclosure.h"
#include "rp_witness.h"

typedef struct syncp_detector {
    rp_detector_env env;
    rp_offline_log log;
} syncp_detector;

static void syncp_event(void *self, const rp_event *e)
{
    syncp_detector *d = self;
    offline_log_append(&d->log, e);
}

/* Tries every candidate of a; appends the confirmed pairs to races. */
static uint32_t check_access(rp_spc *spc, rp_wcheck *chk, rp_witness *w, const rp_u64vec *cand,
                             uint32_t a, rp_u64vec *races)
{
    uint32_t unconfirmed = 0;
    for (uint32_t k = 0; k < cand->n;) {
        uint32_t tid = (uint32_t)(cand->v[k] >> 32);
        spc_begin(spc, a);
        for (; k < cand->n && (uint32_t)(cand->v[k] >> 32) == tid; k++) {
            uint32_t b = (uint32_t)cand->v[k];
            rp_spc_result r = spc_extend(spc, b);
            if (r == RP_SPC_FIRST_IN)
                break;
            if (r != RP_SPC_RACE)
                continue;
            spc_witness(spc, b, w);
            if (witness_check(chk, w, NULL))
                offline_add_race(races, a, b, true);
            else
                unconfirmed++;
        }
        while (k < cand->n && (uint32_t)(cand->v[k] >> 32) == tid)
            k++;
    }
    return unconfirmed;
}

static void syncp_finish(void *self)
{
    syncp_detector *d = self;
    const rp_event *log = d->log.ev;
    uint32_t n = d->log.n, unconfirmed = 0;
    rp_u64vec cand = { NULL, 0, 0 }, races = { NULL, 0, 0 };
    rp_witness w;
    offline_log_warn(&d->log, "syncp");
    rp_spc *spc = spc_create(log, n);
    rp_wcheck *chk = wcheck_create(log, n);
    rp_conflicts *conf = conflicts_create(log, n);
    witness_init(&w);
    for (uint32_t a = 0; a < n; a++) {
        if (!rp_event_is_access(&log[a]))
            continue;
        conflicts_gather(conf, a, false, &cand);
        unconfirmed += check_access(spc, chk, &w, &cand, a, &races);
    }
    if (unconfirmed != 0)
        rp_message("syncp: internal error: %u closure witnesses failed validation "
                   "(pairs not reported)\n", unconfirmed);
    offline_report(&d->env, "syncp", log, n, &races);
    conflicts_destroy(conf);
    witness_free(&w);
    wcheck_destroy(chk);
    spc_destroy(spc);
    u64vec_free(&cand);
    u64vec_free(&races);
}

static void *syncp_create(const rp_detector_env *env)
{
    syncp_detector *d = rp_calloc("rp.syncp", 1, sizeof *d);
    d->env = *env;
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
    .finish = syncp_finish,
};
