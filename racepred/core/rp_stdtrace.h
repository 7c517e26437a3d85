/* rp_stdtrace.h — reader of RAPID's STD trace format (github umangm/rapid,
 * the traces of the M2, SyncP and OSR evaluations), for racepred-analyze.
 *
 *   T0|w(V1)|4          thread | operation(object) | location
 *
 * Operations: r(V), w(V), acq(L), rel(L), fork(T), join(T).  One event per
 * line; blank lines and lines starting with '#' are skipped but counted;
 * the location field is optional and ignored (races are named by event
 * positions, as for text traces).  Names may hold any character except
 * '|', '(', ')' and blanks.
 *
 * Each line is translated into the text format (rp_trace.h) line for
 * line and parsed by rp_trace_parse, so both formats get the same event
 * stream and the same well-formedness checks, and errors keep the STD
 * file's line numbers.  Thread names that are all of the form T<number>
 * are kept; otherwise threads become T0, T1, ... in order of first
 * appearance.  Variable and lock names the text format cannot hold are
 * renamed for the parse and restored in the tables afterwards, so output
 * prints the STD names.
 */
#ifndef RP_STDTRACE_H
#define RP_STDTRACE_H

#include "rp_trace.h"

#include <stdbool.h>
#include <stddef.h>

/* True if the first line that is neither blank nor a '#' comment contains
 * a '|' (text-format event lines never do). */
bool rp_std_detect(const char *text, size_t len);

/* As rp_trace_parse, for STD text. */
bool rp_std_parse(const char *text, size_t len, rp_trace *trace, rp_trace_error *err);

#endif
