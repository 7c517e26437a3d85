/* rp_blockrep.h — accesses a superblock repeats, dropped when it is
 * instrumented.
 *
 * Valgrind switches threads only between superblocks, so within one no
 * other thread runs.  An access that reads or writes bytes an earlier
 * access of the same block surely made (unconditional, and a write when
 * the later one writes), with no event of the thread in between (no
 * atomic, spin read, branch event, libc announcement), is a repeat in the
 * sense of the engine's filter (rp_repeats.h): same thread, same span,
 * bytes covered.  The filter would drop it at run time after a helper
 * call and a shadow lookup; here it gets no call at all.  Only when the
 * engine filters repeats (every detector repeat-safe, location mode),
 * and only reads when a witness window needs the rewrites of dropped
 * writes listed.
 *
 * Addresses are compared as IR expressions: a temporary is its root (a
 * temporary the block computed otherwise, a guest register read since
 * its last write, or a constant) plus a constant offset, through the
 * block's Add64/Sub64 of constants and copies.
 */
#ifndef RP_BLOCKREP_H
#define RP_BLOCKREP_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

/* A new superblock, whose temporaries tyenv types; whether writes may be
 * dropped too. */
void rp_blockrep_start(const IRTypeEnv *tyenv, Bool writes_too);

/* Something happened that is an event of the thread: nothing before it
 * covers what comes after. */
void rp_blockrep_event(void);

/* Notes what statement st of the original block defines (a temporary's
 * address, a guest register written). */
void rp_blockrep_note(const IRStmt *st);

/* Whether the access repeats one the block surely made since its last
 * event; if not and `surely` (no guard), it is remembered. */
Bool rp_blockrep_repeats(const IRExpr *addr, Int size, Bool is_write, Bool surely);

/* Accesses dropped so far, once per translation (-v). */
extern ULong rp_blockrep_dropped_static;

#endif
