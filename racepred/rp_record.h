/* rp_record.h — --record-trace=FILE: the event stream, as the engine sees
 * it, written to a binary trace (core/rp_bintrace.h, docs/trace-format.md)
 * that racepred-analyze reads.
 *
 * Every event that reaches the engine is encoded as it passes
 * (rp_tool_emit) and streamed to the file through a fixed buffer; the only
 * memory that grows is the set of distinct sites.  At exit the site table
 * maps every site that occurred to its code location ("fn (file:line)", as
 * a report's frame shows it) and the thread table says where each thread
 * was created, so an offline analysis can name what the tool names.
 */
#ifndef RP_RECORD_H
#define RP_RECORD_H

#include "pub_tool_basics.h"
#include "rp_event.h"

/* Whether events are being recorded; read on every event. */
extern Bool rp_record_enabled;

/* Creates the trace file (option value, %p expanded); False on failure. */
Bool rp_record_open(const HChar *value);

void rp_record_event(const rp_event *e);

/* After the last event: the tables, the end record; closes the file. */
void rp_record_finish(void);

#endif
