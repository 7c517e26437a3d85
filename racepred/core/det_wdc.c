/* det_wdc.c — the weak-doesn't-commute detector ("wdc"), Roemer et al.
 * PLDI'20 (SmartTrack; seed 001 §2 "WDC").
 *
 * What it reports: conflicting accesses unordered by WDC = DC without the
 * release–release rule (b): conflicting critical sections (rule a),
 * program order, fork/join and sync send → receive, transitively.  It
 * reports every DC race and possibly more; unsound like DC (needs
 * vindication), cheaper: no per-lock history of critical sections.
 * The analysis is det_dc.c's with rule (b) switched off; see there for the
 * clocks, the rwlock choice and the cost.
 */
#include "det_dc.h"
#include "rp_allpairs.h"

#include <stddef.h>

static void *wdc_create(const rp_detector_env *env)
{
    return dc_create_relation(env, false);
}

const rp_detector_ops rp_det_wdc = {
    .name = "wdc",
    .summary = "weak doesn't-commute (SmartTrack, PLDI'20): DC without the release-release "
               "rule; unsound without vindication",
    .needs_branches = false,
    .repeat_safe = true,
    .covers_hb = true,
    .predictive = true,
    .create = wdc_create,
    .destroy = dc_destroy,
    .read = dc_access,
    .write = dc_access,
    .acquire = dc_acquire,
    .release = dc_release,
    .acquire_shared = dc_acquire_shared,
    .release_shared = dc_release_shared,
    .fork = dc_fork,
    .join = dc_join,
    .branch = NULL,
    .sync_send = dc_sync_send,
    .sync_recv = dc_sync_recv,
    .forget = dc_forget,
    .last_writer = allpairs_detector_last_writer,
    .finish = dc_finish,
    .thread_end = dc_thread_end,
    .thread_gone = dc_thread_gone,
    .kept = dc_kept,
};
