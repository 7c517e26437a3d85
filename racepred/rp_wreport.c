/* rp_wreport.c — witness lines of race reports (rp_wreport.h). */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_options.h"

#include "rp_wreport.h"

/* "at 0x...: fn (file.c:12)" / "after ..." for a section's code location.
 * In XML mode VG_(describe_IP) writes a <frame> element, which an
 * <auxwhat> line cannot hold: the same text is then put together from
 * the function name and the line. */
static void where(HChar *buf, SizeT size, ULong site, Bool inside)
{
    DiEpoch ep = VG_(current_DiEpoch)();
    const HChar *how = inside ? "at" : "after";
    const HChar *name, *file, *dir;
    HChar fn[128];
    UInt line;
    Addr ip;

    if (site == 0) {
        VG_(snprintf)(buf, size, "(no access known)");
        return;
    }
    /* The tool's sites keep the instruction address in bits 0-47
     * (rp_site.h). */
    ip = (Addr)(site & 0xFFFFFFFFFFFFULL);
    if (!VG_(clo_xml)) {
        VG_(snprintf)(buf, size, "%s %s", how, VG_(describe_IP)(ep, ip, NULL));
        return;
    }
    VG_(snprintf)(fn, sizeof fn, "%s", VG_(get_fnname)(ep, ip, &name) ? name : "???");
    if (VG_(get_filename_linenum)(ep, ip, &file, &dir, &line))
        VG_(snprintf)(buf, size, "%s 0x%lX: %s (%s:%u)", how, ip, fn, file, line);
    else
        VG_(snprintf)(buf, size, "%s 0x%lX: %s", how, ip, fn);
}

/* sep: between the two halves (a newline and indent in text).  A
 * reversed step keeps both sections, in the opposite order to the run; the
 * other kind leaves the later-running one out of the witness. */
static void step_text(const rp_witness_step *s, HChar *buf, SizeT size,
                      const HChar *sep)
{
    HChar mine[256], other[256];

    where(mine, sizeof mine, s->site, s->site_inside);
    where(other, sizeof other, s->other_site, s->other_site_inside);
    if (s->reversed)
        VG_(snprintf)(buf, size,
                      "thread #%u's critical section on lock %#llx %s%smoved before "
                      "thread #%u's %s, which the run had first",
                      s->tid + 1, (ULong)s->lock, mine, sep, s->other_tid + 1, other);
    else
        VG_(snprintf)(buf, size,
                      "thread #%u's critical section on lock %#llx %s%srunning before "
                      "thread #%u's %s",
                      s->tid + 1, (ULong)s->lock, mine, sep, s->other_tid + 1, other);
}

static void head_text(const rp_witness_desc *d, HChar *buf, SizeT size)
{
    const HChar *order = d->reordered ? ", reordered" : " in the same order";

    if (d->cut <= 1)
        VG_(snprintf)(buf, size,
                      "Witness (validated): %u of this run's first %llu events"
                      "%s%s", d->kept, (ULong)d->span, order,
                      d->n_steps > 0 ? ", with" : ";");
    else
        VG_(snprintf)(buf, size,
                      "Witness (validated): this run up to event %llu, then %u "
                      "of its next %llu events%s%s",
                      (ULong)d->cut - 1, d->kept, (ULong)d->span, order,
                      d->n_steps > 0 ? ", with" : ";");
}

static const HChar *final_text(void)
{
    return "then the two accesses are adjacent";
}

void rp_wreport_text(const rp_witness_desc *d)
{
    HChar line[700];
    UInt k;

    head_text(d, line, sizeof line);
    VG_(umsg)(" %s\n", line);
    for (k = 0; k < d->n_steps; k++) {
        step_text(&d->steps[k], line, sizeof line, "\n     ");
        VG_(umsg)("   %s%s\n", line,
                  k + 1 == d->n_steps && d->more_steps == 0 ? ";" : ",");
    }
    if (d->more_steps > 0)
        VG_(umsg)("   and %u more critical sections moved;\n", d->more_steps);
    VG_(umsg)(" %s\n", final_text());
}

void rp_wreport_xml(const rp_witness_desc *d)
{
    HChar line[700];
    UInt k;

    head_text(d, line, sizeof line);
    VG_(printf_xml)("  <auxwhat>%pS</auxwhat>\n", line);
    for (k = 0; k < d->n_steps; k++) {
        step_text(&d->steps[k], line, sizeof line, " ");
        VG_(printf_xml)("  <auxwhat>%pS</auxwhat>\n", line);
    }
    if (d->more_steps > 0)
        VG_(printf_xml)("  <auxwhat>and %u more critical sections moved</auxwhat>\n",
                        d->more_steps);
    VG_(printf_xml)("  <auxwhat>%s</auxwhat>\n", final_text());
}

Bool rp_wreport_step(const rp_witness_desc *d, UInt k, HChar *buf, SizeT size)
{
    if (k < d->n_steps) {
        step_text(&d->steps[k], buf, size, " ");
        return True;
    }
    if (k == d->n_steps) {
        VG_(snprintf)(buf, size, "%s", final_text());
        return True;
    }
    return False;
}

void rp_wreport_summary(const rp_window *w)
{
    ULong n[RP_WOUT_COUNT];
    ULong confirmed, unconfirmed;
    UInt o;

    if (w == NULL)
        return;
    for (o = 0; o < RP_WOUT_COUNT; o++)
        n[o] = rp_window_count(w, (rp_window_outcome)o);
    confirmed = n[RP_WOUT_CONFIRMED] + n[RP_WOUT_CONFIRMED_SITES];
    unconfirmed = 0;
    for (o = RP_WOUT_OUT_OF_WINDOW; o < RP_WOUT_COUNT; o++)
        unconfirmed += n[o];
    if (VG_(clo_verbosity) <= 1
        && n[RP_WOUT_OUT_OF_WINDOW] + n[RP_WOUT_BUDGET] == 0)
        return;
    if (VG_(clo_xml))
        return;
    VG_(umsg)("racepred: witnesses (window of %u events): %llu predicted race "
              "candidates confirmed (%llu with a new witness, of them %llu "
              "reversing critical sections; %llu by an earlier witness of the "
              "same code locations), %llu unconfirmed\n",
              rp_window_capacity(w), confirmed, n[RP_WOUT_CONFIRMED],
              (ULong)rp_window_reversals(w), n[RP_WOUT_CONFIRMED_SITES], unconfirmed);
    if (unconfirmed > 0)
        VG_(umsg)("racepred:   unconfirmed: %llu out of window (dropped), %llu over "
                  "the budget (dropped), %llu without a witness (%llu of them ruled "
                  "out by an earlier attempt), %llu not retried, %llu other\n",
                  n[RP_WOUT_OUT_OF_WINDOW], n[RP_WOUT_BUDGET], n[RP_WOUT_NO_WITNESS],
                  (ULong)rp_window_ruled_out(w), n[RP_WOUT_NOT_RETRIED],
                  n[RP_WOUT_INVALID] + n[RP_WOUT_MISMATCH]);
}

void rp_wreport_dropped(const rp_cs_limits *limits)
{
    if (limits->missed_sections > 0)
        VG_(umsg)("racepred: the bound on critical-section histories dropped %llu "
                  "sections (--cs-sections=%u), %llu times one was needed: "
                  "wcp/dc/wdp/sdp ordered less than they could, predicted races may "
                  "include more unconfirmed ones\n",
                  (ULong)limits->dropped_sections, limits->max_sections,
                  (ULong)limits->missed_sections);
    else if (limits->dropped_sections > 0 && VG_(clo_verbosity) > 1)
        VG_(umsg)("racepred: the bound on critical-section histories dropped %llu "
                  "sections (--cs-sections=%u), none was needed later\n",
                  (ULong)limits->dropped_sections, limits->max_sections);
    if (limits->dropped_bytes > 0)
        VG_(umsg)("racepred: the bound on lock-protected bytes dropped %llu "
                  "(lock, byte) pairs (--cs-bytes=%llu): the detectors ordered less "
                  "than they could, predicted races may include more unconfirmed "
                  "ones\n", (ULong)limits->dropped_bytes, (ULong)limits->max_bytes);
    if (limits->full_logs > 0)
        VG_(umsg)("racepred: the bound on an open critical section's log "
                  "(--cs-bytes=%llu distinct accesses) left later accesses out "
                  "of %llu sections: the detectors ordered less than they could, "
                  "predicted races may include more unconfirmed ones\n",
                  (ULong)limits->max_bytes, (ULong)limits->full_logs);
}

void rp_wreport_kept(const rp_engine *eng)
{
    rp_history_stats kept;

    if (VG_(clo_verbosity) <= 1 || VG_(clo_xml))
        return;
    rp_engine_kept(eng, &kept);
    VG_(umsg)("racepred: critical-section histories: at most %llu sections at once; "
              "at the end %llu sections, %llu (lock, byte) pairs\n",
              (ULong)kept.peak_sections, (ULong)kept.sections, (ULong)kept.bytes);
}

/* Valgrind's preloads (ours wraps pthread_mutex_lock & co) are not where a
 * user looks for a critical section. */
static bool skip_site(uint64_t site)
{
    DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(),
                                        (Addr)(site & 0xFFFFFFFFFFFFULL));
    const HChar *name = di != NULL ? VG_(DebugInfo_get_filename)(di) : NULL;

    return name != NULL && VG_(strstr)(name, "vgpreload_") != NULL;
}

void rp_wreport_init(rp_window *w)
{
    if (w != NULL)
        rp_window_set_site_filter(w, skip_site);
}
