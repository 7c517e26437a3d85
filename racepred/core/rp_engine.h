/* rp_engine.h — runs a set of detectors over one event stream.
 *
 * The engine numbers events (rp_event.id), fans each one out to every
 * enabled detector, and forwards their races to one report function.  Front
 * ends build an rp_event and call rp_engine_event(); that is all they know
 * about detectors.
 *
 * Races: with a window (a predictive detector runs and env->window != 0)
 * the engine tries a witness for every race neither observed nor
 * confirmed before forwarding it.  By default each detector's races are
 * forwarded as it reports them (racepred-analyze lists them per
 * detector).  With rp_engine_merge_reports, the races of one event (or of
 * the end of the stream) are forwarded once per code-location pair (both
 * sites and access kinds): the report of the strongest status (observed,
 * then confirmed, then neither — each candidate of the pair is tried for a
 * witness until one is confirmed), and rp_engine_found_by names every
 * detector that reported the pair.
 */
#ifndef RP_ENGINE_H
#define RP_ENGINE_H

#include "rp_detector.h"
#include "rp_repeats.h"

typedef struct rp_engine rp_engine;
typedef void (*rp_event_fn)(void *self, const rp_event *e);
typedef struct rp_engine_detector rp_engine_detector;

/* Visible only so that rp_engine_event can be inline: with one detector
 * (the usual case in the tool) an event costs the id increment and one
 * indirect call, from the front end's helper straight into the detector. */
struct rp_engine {
    uint64_t n_events;
    bool single;                       /* exactly one detector */
    void *single_self;
    rp_event_fn single_fn[RP_EV_KIND_COUNT];   /* never NULL when single */
    rp_engine_detector *detectors;
    unsigned n_detectors;
    bool needs_branches;
    /* The event window for witnesses (rp_window.h), only when a predictive
     * detector runs; then `single` is false, so that the inline path of a
     * lone non-predictive detector (hb) pays nothing for it. */
    struct rp_window *window;
    struct rp_engine_reports *reports;
    /* The filter of repeated accesses (rp_repeats.h), or NULL: only in
     * location mode, when env->skip_repeats and every detector is
     * repeat_safe. */
    rp_repeats *repeats;
};

/* `detectors` is a comma-separated list of names ("hb", "hb,wcp").  On an
 * unknown or duplicate name returns NULL and points *bad_name at a copy of
 * the offending name (owned by the caller, free with rp_free). */
rp_engine *rp_engine_create(const char *detectors, const rp_detector_env *env,
                            char **bad_name);
void rp_engine_destroy(rp_engine *eng);

/* Checks a detector list without creating anything; same contract. */
bool rp_engine_check_list(const char *detectors, char **bad_name);

/* True when some enabled detector wants RP_EV_BRANCH events. */
bool rp_engine_needs_branches(const rp_engine *eng);

/* Dispatches e (id already assigned) to several detectors. */
void rp_engine_dispatch(rp_engine *eng, rp_event *e);

/* The filter's rewritten granules become window records (rp_repeats.h). */
void rp_engine_flush_rewrites(rp_engine *eng);

/* Lists a rewritten granule (rp_repeats.h), flushing the list before if
 * it is another thread's and after if it is full. */
void rp_engine_list_rewrite(rp_engine *eng, rp_tid_t tid, rp_repeat_slot *s, uint64_t addr);

/* A write the filter dropped as a repeat; s is its slot.  With a window
 * its granule is listed as rewritten, once until the next flush. */
static inline void rp_engine_dropped_write(rp_engine *eng, rp_tid_t tid, rp_repeat_slot *s,
                                           uint64_t addr)
{
    if (eng->window != NULL && (s->stamp & RP_REPEATS_REWRITTEN) == 0)
        rp_engine_list_rewrite(eng, tid, s, addr);
}

/* The filter's test for an access over two granules or more (out of
 * line). */
bool rp_engine_drop_granules(rp_engine *eng, rp_tid_t tid, uint64_t addr, uint32_t size,
                             bool is_write, bool mark);

/* Whether the filter (eng->repeats, not NULL) drops this access as a
 * repeat; a dropped write is marked rewritten when `mark` (the front end
 * does not mark the writes a thread asked to ignore). */
static inline bool rp_engine_drop_repeat(rp_engine *eng, rp_tid_t tid, uint64_t addr,
                                         uint32_t size, bool is_write, bool mark)
{
    rp_repeat_slot *s = repeats_repeat_slot(eng->repeats, tid, addr, size, is_write);
    if (s != NULL) {
        if (is_write && mark)
            rp_engine_dropped_write(eng, tid, s, addr);
        return true;
    }
    if ((addr & (RP_SHADOW_GRANULE_SIZE - 1)) + size <= RP_SHADOW_GRANULE_SIZE)
        return false;
    return rp_engine_drop_granules(eng, tid, addr, size, is_write, mark);
}

/* Thread tid has ended and no later event will name it (see
 * rp_detector_ops.thread_gone): every detector's thread_gone.  The engine
 * calls it itself after a join; the front end for a detached thread. */
void rp_engine_thread_gone(rp_engine *eng, rp_tid_t tid);

/* rp_engine_event for an event the filter keeps: an access that
 * rp_engine_drop_repeat has just not dropped (the front end asks before it
 * builds the event), or any event once rp_engine_event has asked. */
static inline void rp_engine_kept_event(rp_engine *eng, rp_event *e)
{
    if (eng->repeats != NULL) {
        if (repeats_flush_due(eng->repeats, e))
            rp_engine_flush_rewrites(eng);
        repeats_note(eng->repeats, e);
    }
    e->id = ++eng->n_events;
    if (eng->single && e->kind < RP_EV_KIND_COUNT)
        eng->single_fn[e->kind](eng->single_self, e);
    else
        rp_engine_dispatch(eng, e);
    if (e->kind == RP_EV_JOIN)
        rp_engine_thread_gone(eng, (rp_tid_t)e->obj);
}

/* Assigns e->id (next position) and dispatches, unless e is a repeated
 * access or receive the filter drops (then it gets no id). */
static inline void rp_engine_event(rp_engine *eng, rp_event *e)
{
    if (eng->repeats != NULL) {
        if (e->kind <= RP_EV_WRITE
            && rp_engine_drop_repeat(eng, e->tid, e->obj, e->size, e->kind == RP_EV_WRITE,
                                     true))
            return;
        if (e->kind == RP_EV_SYNC_RECV && repeats_recv_is_repeat(eng->repeats, e))
            return;
    }
    rp_engine_kept_event(eng, e);
}

/* Thread tid has exited (see rp_detector_ops.thread_end): every
 * detector's thread_end.  Between two events, in stream order. */
void rp_engine_thread_end(rp_engine *eng, rp_tid_t tid);

/* The thread of the latest write of the byte at addr, as the first
 * detector that remembers writes knows it, or RP_NO_WRITER. */
rp_tid_t rp_engine_last_writer(const rp_engine *eng, uint64_t addr);

/* Calls fn for the parts of [addr, addr + size) where some access may
 * have reached the detectors since the memory was last fresh (a forget):
 * whole 64 KiB chunks as the filter of repeats saw them, or the whole
 * range without the filter.  A write of the rest can only race with
 * later accesses. */
void rp_engine_seen_parts(const rp_engine *eng, uint64_t addr, uint64_t size, rp_range_fn fn,
                          void *ctx);

/* What the detectors' critical-section histories hold, summed over the
 * detectors (rp_detector_ops.kept; peaks are each detector's own). */
void rp_engine_kept(const rp_engine *eng, rp_history_stats *stats);

/* End of stream: every detector's finish(). */
void rp_engine_finish(rp_engine *eng);

uint64_t rp_engine_event_count(const rp_engine *eng);

/* Accesses the filter of repeats dropped (0 without the filter). */
uint64_t rp_engine_repeats_dropped(const rp_engine *eng);

/* Receives the filter dropped (0 without the filter); the front end's own
 * drops of repeated polls (rp_atomics.h) are not among them. */
uint64_t rp_engine_recvs_dropped(const rp_engine *eng);

/* The witness window, or NULL when no enabled detector is predictive or
 * env->window was 0 (rp_window.h: capacity, outcome counts). */
struct rp_window *rp_engine_window(const rp_engine *eng);

/* One report per code-location pair and event across the detectors (see
 * above); call before the first event.  In location mode hb then does not
 * run beside a detector that covers it (rp_detector_ops.covers_hb: wcp,
 * dc, wdc): that detector's observed races are reported as found by hb
 * too, and each access is checked once instead of twice. */
void rp_engine_merge_reports(rp_engine *eng);

/* During the report function: the detectors that reported this race's
 * code-location pair, bit i for rp_detector_at(i). */
uint32_t rp_engine_found_by(const rp_engine *eng);

#endif
