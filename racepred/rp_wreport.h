/* rp_wreport.h — how a race report shows its witness (the engine's
 * rp_witness_desc, core/rp_window.h): a few lines after the two accesses
 * in text, <auxwhat> lines in XML (protocol 4 has no witness element), and
 * the SARIF codeFlow steps.
 *
 * Text (addresses of code as Valgrind prints them, lock by address):
 *
 *    Witness (validated): this run up to event 1204, then 3 of its next 9
 *    events in the same order, with
 *      thread #2's critical section on lock 0x10c0a0 at 0x1091F4: t2 (hide.c:25)
 *        running before thread #1's at 0x109130: t1 (hide.c:14);
 *    then the two accesses are adjacent
 */
#ifndef RP_WREPORT_H
#define RP_WREPORT_H

#include "pub_tool_basics.h"
#include "rp_csrules.h"
#include "rp_engine.h"
#include "rp_window.h"

/* Sets up the window's reporting needs (which code locations not to name);
 * w may be NULL. */
void rp_wreport_init(rp_window *w);

/* The report's witness lines, to VG_(umsg). */
void rp_wreport_text(const rp_witness_desc *d);

/* The same as <auxwhat> elements, to VG_(printf_xml). */
void rp_wreport_xml(const rp_witness_desc *d);

/* One step of the witness as one line of text without a newline, for
 * SARIF's threadFlowLocations: step k < d->n_steps, or k == d->n_steps for
 * the final "accesses adjacent" step.  Returns False past the last. */
Bool rp_wreport_step(const rp_witness_desc *d, UInt k, HChar *buf, SizeT size);

/* Summary of the window's outcomes at exit: with -v, and always when a
 * bound (window, budget) lost a candidate. */
void rp_wreport_summary(const rp_window *w);

/* Says what the bounds on critical-section histories dropped, if anything
 * (never silently: the relation was weaker than without them). */
void rp_wreport_dropped(const rp_cs_limits *limits);

/* With -v: what the detectors' critical-section histories held at most,
 * and hold at the end (rp_engine_kept). */
void rp_wreport_kept(const rp_engine *eng);

#endif
