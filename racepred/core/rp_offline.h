/* rp_offline.h — what the offline, all-pairs detectors (syncp, m2, osr)
 * share: the event log, the enumeration of candidate pairs, and the sorted
 * reports with their happens-before `observed` bit.
 *
 * The log keeps the events in trace order (rp_witness.h names events by
 * their 0-based index in it) up to offline_max_events() real events
 * (default RP_OFFLINE_MAX_EVENTS, the tool's --offline-events;
 * racepred-analyze, which holds the whole trace anyway, raises it to the
 * limit).  A full log is analysed and cut (rp_segment.h): the detector's
 * `analyse` runs on the log as a trace of its own and reports the pairs
 * whose second access is new (index >= from), the oldest events leave
 * memory, and at finish the rest is analysed and, if the log was ever
 * cut, a summary line says how many pairs went unchecked.
 *
 * Candidates: two accesses conflict when they are in different threads,
 * share a byte that no forget refreshed between them, and at least one is
 * a write.  A cursor (below) walks, for one access a and one other
 * thread, the accesses of that thread that conflict with it in program
 * order: the scan order of the incremental algorithms (syncp, Alg. 6 of
 * M2, Alg. 3 of OSR).
 *
 * Reports: a detector collects its pairs (first < second, each once or
 * more, confirmed or not) and offline_report sorts them, merges duplicates
 * (confirmed wins), computes `observed` (the pair is unordered by HB: one
 * vector-clock pass with the clocks of det_hb.c) and reports them in
 * (first, second) order: every pair in all-pairs mode, else the latest
 * first access per second access.
 */
#ifndef RP_OFFLINE_H
#define RP_OFFLINE_H

#include "rp_detector.h"

#include <stdbool.h>
#include <stdint.h>

/* 2^22 events = 160 MiB of log, plus the indexes an analysis builds. */
#define RP_OFFLINE_MAX_EVENTS (1u << 22)
/* Lower limit of the bound: a segment must hold a few critical sections. */
#define RP_OFFLINE_MIN_EVENTS 16u
/* Upper limit of the bound: event indexes are 32-bit. */
#define RP_OFFLINE_MAX_EVENTS_LIMIT (1u << 31)

/* The bound of logs created afterwards (clamped to MIN .. LIMIT). */
void offline_set_max_events(uint32_t max);
uint32_t offline_max_events(void);

/* Analyses log[0 .. n) as a whole trace and reports the pairs whose
 * second access is at index from or later (offline_report does that). */
typedef void (*rp_offline_analyse_fn)(void *ctx, const rp_event *log, uint32_t n,
                                      uint32_t from);

typedef struct rp_offline_log {
    rp_event *ev;
    uint32_t n, cap;
    uint32_t max;           /* real events in memory at most (the bound when
                               the first event came) */
    uint32_t real;          /* real events in ev; the others are synthetic
                               (id 0, rp_segment.h) */
    uint32_t from;          /* ev[from ..] not analysed yet */
    uint64_t analysed;      /* real events that were new in an analysis */
    rp_offline_analyse_fn analyse;
    void *ctx;
    struct rp_segments *seg;    /* from the first cut on */
} rp_offline_log;

void offline_log_init(rp_offline_log *log, rp_offline_analyse_fn analyse, void *ctx);
/* Appends e; a full log is analysed and cut first. */
void offline_log_append(rp_offline_log *log, const rp_event *e);
/* Analyses the rest; if the log was cut, prints the summary line
 * "NAME: ... N candidate pairs unchecked ...". */
void offline_log_finish(rp_offline_log *log, const char *name);
void offline_log_free(rp_offline_log *log);

/* The thread of the latest write of the byte at addr still in the log's
 * memory, or RP_NO_WRITER (none, or forgotten since). */
rp_tid_t offline_log_last_writer(const rp_offline_log *log, uint64_t addr);
/* Candidate pairs no segment held, summed over every log this process
 * finished (the summary lines' counts). */
uint64_t offline_unchecked_total(void);

/* Called with each log (and its `from`) just before an analysis, or NULL:
 * lets the tests check the segments and their witnesses. */
typedef void (*rp_offline_observer)(void *ctx, const rp_event *log, uint32_t n, uint32_t from);
void offline_set_observer(rp_offline_observer fn, void *ctx);

typedef struct rp_u64vec {
    uint64_t *v;
    uint32_t n, cap;
} rp_u64vec;

void u64vec_push(rp_u64vec *vec, uint64_t value);
void u64vec_free(rp_u64vec *vec);

/* Per byte: its accesses and forgets in trace order, and per thread. */
typedef struct rp_conflicts rp_conflicts;

rp_conflicts *conflicts_create(const rp_event *log, uint32_t n);
void conflicts_destroy(rp_conflicts *c);
/* A cursor over the candidates b of one access a in one other thread t:
 * the later (earlier_too: and earlier) accesses of t conflicting with a
 * (sharing a byte no forget refreshed in between, at least one a write),
 * in program order, each once; cursor_next returns UINT32_MAX after the
 * last.  Lazy, so a scan
 * that stops early (syncp, osr) pays only for what it looked at:
 * O(size · log) to start, O(size) per candidate. */
typedef struct rp_cursor {
    const rp_conflicts *c;
    const uint64_t *list;
    uint32_t *pos;          /* per byte of a: pos, then end, then limit */
    uint32_t n, cap;
    rp_tid_t t;
} rp_cursor;

void cursor_init(rp_cursor *cur);
void cursor_free(rp_cursor *cur);
void cursor_start(rp_cursor *cur, const rp_conflicts *c, uint32_t a, rp_tid_t t,
                  bool earlier_too);
uint32_t cursor_next(rp_cursor *cur);
/* Skips the candidates before log index `from` (O(size · log)). */
void cursor_skip_to(rp_cursor *cur, uint32_t from);

/* Pairs found: (second << 32 | first << 1 | confirmed). */
static inline void offline_add_race(rp_u64vec *races, uint32_t first, uint32_t second,
                                    bool confirmed)
{
    u64vec_push(races, (uint64_t)second << 32 | (uint64_t)first << 1 | (confirmed ? 1 : 0));
}

/* Reports the races whose second access is at index `from` or later
 * (consumed: sorted in place) through env->report. */
void offline_report(const rp_detector_env *env, const char *name, const rp_event *log,
                    uint32_t n, uint32_t from, rp_u64vec *races);

#endif
