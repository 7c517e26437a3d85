/* rp_trace.h — reader of the text trace format (docs/trace-format.md,
 * shared/traces/README.md).
 *
 * A trace is parsed from a memory buffer (the caller reads the file) into an
 * array of rp_event ready for rp_engine_event():
 *   - variables become distinct 8-byte-aligned addresses (rp_trace_var_addr),
 *     each access of size 1, so no two variables share a shadow granule;
 *   - locks and threads become dense ids in order of first appearance
 *     (a thread appears as the actor of an event or as fork/join argument);
 *   - site = id = the 1-based position of the event (headers not counted).
 * The name tables are kept so output can print names, and every
 * `# expect REL: pairs ; TAG` line is kept with its pairs sorted.
 *
 * The reader checks well-formedness: locks are non-reentrant and released
 * only by their holder; no thread acts after it was joined; fork only a
 * thread that has not started (threads that are never forked exist from the
 * start); join only a known thread, once; no thread forks or joins itself.
 * Errors come back as (line, message); the reader never aborts.
 */
#ifndef RP_TRACE_H
#define RP_TRACE_H

#include "rp_event.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_TRACE_VAR_BASE 0x10000u
#define RP_TRACE_MESSAGE_MAX 160
/* Largest thread number and pair position accepted. */
#define RP_TRACE_NUMBER_MAX 999999999u

typedef struct rp_trace_pair {
    uint32_t first;     /* 1-based positions, first < second */
    uint32_t second;
} rp_trace_pair;

typedef struct rp_trace_expect {
    char *relation;
    char *tag;
    rp_trace_pair *pairs;   /* sorted, no duplicates */
    uint32_t n_pairs;
    unsigned line;
} rp_trace_expect;

typedef struct rp_trace {
    rp_event *events;
    uint32_t n_events;
    char **var_names;       /* index = variable number */
    uint32_t n_vars;
    char **lock_names;      /* index = rp_event.obj of acq/rel */
    uint32_t n_locks;
    char **thread_names;    /* index = rp_tid_t; "T<n>" */
    uint32_t n_threads;
    rp_trace_expect *expects;
    uint32_t n_expects;
} rp_trace;

typedef struct rp_trace_error {
    unsigned line;          /* 1-based line of the buffer */
    char message[RP_TRACE_MESSAGE_MAX];
} rp_trace_error;

/* Parses text[0 .. len).  On success fills *trace (free with rp_trace_free)
 * and returns true; on error fills *err, leaves *trace empty, returns false. */
bool rp_trace_parse(const char *text, size_t len, rp_trace *trace, rp_trace_error *err);
void rp_trace_free(rp_trace *trace);

static inline uint64_t rp_trace_var_addr(uint32_t var)
{
    return RP_TRACE_VAR_BASE + 8 * (uint64_t)var;
}

/* Name of the variable at addr, or NULL if addr is not a variable's. */
const char *rp_trace_var_name(const rp_trace *trace, uint64_t addr);

/* The expect line of a relation, or NULL. */
const rp_trace_expect *rp_trace_find_expect(const rp_trace *trace, const char *relation);

#endif
