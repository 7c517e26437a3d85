/* rp_history.h — --history-level=none|approx|full: how much of the earlier
 * access of a race the report can show (Helgrind's option, Helgrind's
 * names).
 *
 *   approx (default)  the earlier access's instruction, as a one-frame
 *                     stack: the detectors keep it in the access's site
 *                     (rp_site.h) at no extra cost.
 *   full              the earlier access's full stack: its exact
 *                     instruction as frame 0, and the callers the thread
 *                     had when it made the access.
 *   none              no earlier location at all (the report says so).
 *
 * How "full" stays cheap (the delta scheme of Helgrind's
 * --delta-stacktrace): the callers of the running code change only at
 * calls and returns.  The instrumentation stores 1 into rp_history_stale
 * at every exit of a superblock that is not a plain jump (call, return,
 * system call...), and a thread switch sets it too.  The access helpers
 * of full mode test the flag; only when it is set do they unwind the
 * stack (Valgrind's unwinder, --num-callers frames), drop its innermost
 * frame, intern the callers as an ExeContext and, if they differ from
 * the thread's previous ones, append (event id, callers) to the thread's
 * history log.  Accesses in a loop without calls cost one byte load.
 * At report time the earlier access's event id (which every detector
 * keeps) finds the last log entry at or before it: those are its callers.
 *
 * Memory: 16 bytes per change of callers between accesses, per thread;
 * each thread keeps its last RP_HISTORY_LOG_MAX entries (a ring), older
 * accesses fall back to the one-frame stack of approx.
 */
#ifndef RP_HISTORY_H
#define RP_HISTORY_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "rp_event.h"

typedef enum {
    RP_HISTORY_NONE,
    RP_HISTORY_APPROX,
    RP_HISTORY_FULL
} rp_history_level;

extern rp_history_level rp_history;

/* Set (to 1) by the instrumented code at calls and returns, and at
 * thread switches; cleared when the running thread's callers are noted. */
extern UChar rp_history_stale;

#define RP_HISTORY_LOG_MAX (1u << 20)

/* Parses the option value; False if it is not one of the three names. */
Bool rp_history_set(const HChar *value);

/* Full mode, from the access helpers when rp_history_stale is set: notes
 * the running thread's callers for the access about to become event
 * `next_id`. */
void rp_history_note(ULong next_id);

/* Full mode: the full stack of the access of thread `tid` that was event
 * `id` at instruction `ip`, or NULL when it is no longer in the log. */
ExeContext *rp_history_stack(rp_tid_t tid, ULong id, Addr ip);

#endif
