/* rp_tool.h — state the front-end files of the tool share.
 *
 * The front end (the .c files of racepred/, the only code that sees
 * Valgrind's headers) turns what the client does into rp_event records and
 * hands them to one engine (core/rp_engine.h), which runs the detectors
 * chosen with --detector.  The engine exists from post_clo_init to fini.
 */
#ifndef RP_TOOL_H
#define RP_TOOL_H

#include "pub_tool_basics.h"
#include "rp_engine.h"
#include "rp_record.h"

/* The engine every event goes to (rp_main.c); NULL before the options are
 * parsed and after detection stopped. */
extern rp_engine *rp_tool_engine;

/* --max-memory in bytes (0: no bound), the core's bulk memory now
 * (rp_shim_vg.c), and whether it went over the bound. */
extern ULong rp_tool_max_memory;
extern Bool rp_tool_stop_requested;
ULong rp_tool_bulk_bytes(void);

/* Over --max-memory: reports what the detectors have, frees them and
 * lets the program run on undetected, saying so once (rp_main.c). */
void rp_tool_stop_detection(void);

/* Hands one event to the engine, through its filter of repeats unless
 * `kept` (an access the filter has just kept: rp_engine_kept_event).
 * Events may arrive before the engine exists (the root thread is created
 * before the options are parsed); nothing can depend on them yet, so they
 * are dropped. */
static inline void tool_emit(rp_event_kind kind, rp_tid_t tid, uint64_t obj, uint32_t size,
                             uint64_t site, Bool kept)
{
    rp_event e = { .obj = obj, .site = site, .tid = tid, .size = size,
                   .kind = (uint8_t)kind };

    if (rp_tool_engine == NULL)
        return;
    if (UNLIKELY(rp_tool_stop_requested)) {
        rp_tool_stop_detection();
        return;
    }
    if (kept)
        rp_engine_kept_event(rp_tool_engine, &e);
    else
        rp_engine_event(rp_tool_engine, &e);
    if (rp_record_enabled)
        rp_record_event(&e);
}

static inline void rp_tool_emit(rp_event_kind kind, rp_tid_t tid,
                                uint64_t obj, uint32_t size, uint64_t site)
{
    tool_emit(kind, tid, obj, size, site, False);
}

/* An access that rp_engine_drop_repeat has just not dropped. */
static inline void rp_tool_emit_kept_access(rp_event_kind kind, rp_tid_t tid, uint64_t obj,
                                            uint32_t size, uint64_t site)
{
    tool_emit(kind, tid, obj, size, site, True);
}

/* Whether [addr, addr + size) can be memory a program means: not past the
 * top of the address space, nor larger than any mapping (a size beyond
 * 2^40 is a bug: a negative length, an uninitialised variable, a garbled
 * record). */
static inline Bool rp_tool_range_plausible(UWord addr, UWord size)
{
    return size <= (1ULL << 40) && addr + size >= addr;
}

/* rp_tool_emit for a range of any length: an event carries at most
 * 4 GiB, so larger ranges go in pieces. */
static inline void rp_tool_emit_range(rp_event_kind kind, rp_tid_t tid, uint64_t addr,
                                      uint64_t len, uint64_t site)
{
    while (len > 0) {
        uint32_t piece = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;

        rp_tool_emit(kind, tid, addr, piece, site);
        addr += piece;
        len -= piece;
    }
}

/* Grows `array` of *count zero-filled elements of elem_size bytes so that
 * index `needed` exists (to needed + 16 elements, or twice as many), the
 * new ones zero; returns the array (rp_shim_vg.c). */
void *rp_tool_grow_zeroed(const HChar *cost_centre, void *array, UInt *count, UInt needed,
                          SizeT elem_size);

/* Whether Valgrind's own arguments (command line, VALGRIND_OPTS,
 * .valgrindrc) give a core option starting with `prefix`
 * ("--fair-sched="): a core setting racepred changes from Valgrind's
 * default keeps the user's choice (rp_shim_vg.c). */
Bool rp_tool_core_option_given(const HChar *prefix);

/* Registers the client-request handler (rp_clientreq.c). */
void rp_clientreq_init(void);

/* Warns at exit when the preload never announced itself (rp_clientreq.c). */
void rp_clientreq_check_preload(void);

#endif
