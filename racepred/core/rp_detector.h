/* rp_detector.h — what every detector implements, and what it reports.
 *
 * One detector = one module (det_<name>.c) exporting one `rp_detector_ops`.
 * The engine (rp_engine.h) feeds it the event stream, one callback per event
 * kind; a callback the detector does not need may be NULL.  Races go back
 * through the `report` function of the environment, either while the event
 * that completes them is being processed (online: the front end can still
 * take that thread's stack) or from `finish` (post-processing at the end of
 * the stream).
 *
 * Adding a detector: write det_<name>.c, add its ops to the table in
 * rp_detectors.c.  Nothing else changes.
 */
#ifndef RP_DETECTOR_H
#define RP_DETECTOR_H

#include "rp_event.h"

#include <stdbool.h>

/* One access as a detector remembers it (an earlier event it can pair). */
typedef struct rp_access {
    uint64_t id;
    uint64_t addr;
    uint64_t site;
    rp_tid_t tid;
    uint32_t size;
    bool is_write;
} rp_access;

/* A race: two conflicting accesses, `first` earlier in the stream. */
typedef struct rp_race {
    const char *detector;   /* name of the detector that predicted it */
    rp_access first;
    rp_access second;
    uint64_t addr;          /* first byte both accesses touch */
    uint32_t size;          /* number of bytes, from addr, both touch */
    bool observed;          /* the two accesses are unordered by HB */
    bool confirmed;         /* a witness reordering that makes them adjacent
                             * was built and passed the validator
                             * (rp_witness.h) */
    /* Set by the engine when it confirmed the race with its event window
     * (rp_window.h): what the report prints about the witness.  Valid
     * during the report callback only; NULL otherwise. */
    const struct rp_witness_desc *witness;
} rp_race;

typedef void (*rp_race_fn)(void *ctx, const rp_race *race);

/* What a detector's critical-section histories hold (rp_csrules.h). */
typedef struct rp_history_stats {
    uint64_t sections;         /* sections kept now */
    uint64_t peak_sections;    /* the most sections kept at once */
    uint64_t bytes;            /* (lock, byte) entries kept now */
} rp_history_stats;

typedef struct rp_detector_env {
    rp_race_fn report;
    void *report_ctx;
    /* Report every race pair of the relation (seed 000's technique), not
     * only one earlier partner per racy access.  Costs memory linear in the
     * number of accesses: for offline analysis and tests. */
    bool all_pairs;
    /* Events of the engine's window for confirming predicted races online
     * (rp_window.h); 0: no window (racepred-analyze confirms offline). */
    uint32_t window;
    /* Let the engine drop repeated accesses before the detectors see them
     * (rp_repeats.h); honoured in location mode when every enabled
     * detector is repeat_safe. */
    bool skip_repeats;
    /* Races need their earlier access only by site, thread, kind and
     * bytes, not by event: no witness is looked for and no stack is found
     * by event id.  Race-pair cells may then name the latest access of
     * their site, thread and epoch, and granules share equal cells
     * (rp_cellsets.h).  The engine passes it on to detectors only when it
     * keeps no window. */
    bool sites_suffice;
    /* A read that races with the latest write of its bytes is ordered
     * after that write (SHB's reads-from edge, seed 000, under-approximated:
     * after the writer's events up to the first access of the write's
     * context, rp_allpairs.h): races that only follow from an earlier
     * race, through the data it published, are not reported.  Location
     * mode, detectors that report HB-observed races. */
    bool racy_reads_order;
} rp_detector_env;

/* rp_detector_ops.last_writer: no write remembered. */
#define RP_NO_WRITER UINT32_MAX

typedef struct rp_detector_ops {
    const char *name;
    const char *summary;    /* one line for --help and docs */
    bool needs_branches;    /* front ends skip RP_EV_BRANCH unless set */
    bool predictive;        /* may report unconfirmed races with observed =
                             * false: the engine then keeps an event window
                             * and tries a witness for each (rp_window.h) */
    bool repeat_safe;       /* its verdict on an access depends only on the
                             * thread's clocks (which only its non-access
                             * events move), the bytes and the access kind:
                             * the engine may drop repeats (rp_repeats.h) */
    bool covers_hb;         /* in location mode it reports every race hb
                             * reports, observed (its order is contained
                             * in HB, it evicts by that order alone and
                             * filters no pair, and observed says HB-
                             * unordered): with merged reports the engine
                             * runs it instead of hb beside it (rp_engine.h) */

    void *(*create)(const rp_detector_env *env);
    void (*destroy)(void *self);

    void (*read)(void *self, const rp_event *e);
    void (*write)(void *self, const rp_event *e);
    void (*acquire)(void *self, const rp_event *e);
    void (*release)(void *self, const rp_event *e);
    void (*acquire_shared)(void *self, const rp_event *e);
    void (*release_shared)(void *self, const rp_event *e);
    void (*fork)(void *self, const rp_event *e);
    void (*join)(void *self, const rp_event *e);
    void (*branch)(void *self, const rp_event *e);
    void (*sync_send)(void *self, const rp_event *e);
    void (*sync_recv)(void *self, const rp_event *e);
    void (*forget)(void *self, const rp_event *e);

    /* Thread tid has run its last event (it exited).  Not an event of the
     * stream: the front end says so when it knows (rp_engine_thread_end),
     * trace files do not.  tid may still be joined later, so its clocks
     * stay; what ends is its part in what every live thread must consume
     * before a detector may drop it (rp_csrules.h).  May be NULL. */
    void (*thread_end)(void *self, rp_tid_t tid);

    /* Thread tid has ended and no later event names it: it was joined
     * (the engine says so after the join) or it was detached (the front
     * end says so, rp_engine_thread_gone).  Its clocks and what else the
     * detector keeps for it may go.  Not an event of the stream.  May be
     * NULL. */
    void (*thread_gone)(void *self, rp_tid_t tid);

    /* The thread of the latest write of the byte at addr the detector
     * remembers, or RP_NO_WRITER (rp_allpairs.h).  May be NULL. */
    rp_tid_t (*last_writer)(void *self, uint64_t addr);

    /* Adds what the detector's critical-section histories hold to
     * *stats.  May be NULL (none kept). */
    void (*kept)(void *self, rp_history_stats *stats);

    /* End of the stream: post-processing, remaining reports. */
    void (*finish)(void *self);
} rp_detector_ops;

/* The registry (rp_detectors.c). */
const rp_detector_ops *rp_detector_find(const char *name);
unsigned rp_detector_count(void);
const rp_detector_ops *rp_detector_at(unsigned i);

#endif
