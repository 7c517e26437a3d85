/* rp_spill.h — the file the offline log's events go to when they leave
 * memory (rp_segment.h).
 *
 * When the offline detectors (syncp, m2, osr) cut their event log, the
 * events before the cut leave memory.  They are not dropped silently: they
 * are appended, in the binary trace encoding of rp_bintrace.h (a few bytes
 * an event), to a temporary file created at the first cut in the host's
 * temporary directory and removed when the log is freed.  The file is
 * bounded by spill_max_bytes() (default RP_SPILL_MAX_BYTES; 0: no file);
 * past the bound (or when the file cannot be written) events are no
 * longer spilled, and the summary says how many were.
 *
 * Nothing reads the file back during the run: the segment analysis
 * (rp_segment.h) decides every pair it can reach from memory, and the
 * pairs it cannot reach are counted there, from per-granule counters, not
 * from the file (docs/detectors/syncp.md, "In the tool", says why).  A
 * forked child never writes to its parent's file: it starts its own.
 */
#ifndef RP_SPILL_H
#define RP_SPILL_H

#include "rp_bintrace.h"
#include "rp_event.h"

#include <stdbool.h>
#include <stdint.h>

/* 1 GiB of encoded events: some 2 * 10^8 events of a typical run. */
#define RP_SPILL_MAX_BYTES (1ull << 30)
#define RP_SPILL_PATH_MAX 512

/* The bound of spill files started afterwards; 0 disables them. */
void spill_set_max_bytes(uint64_t max);
uint64_t spill_max_bytes(void);

typedef struct rp_spill {
    rp_bt_encoder enc;
    bool open;
    int fd;
    int pid;                /* the process that created the file */
    uint64_t max_bytes;
    uint64_t bytes;         /* written so far */
    uint64_t events;        /* events that left memory */
    uint64_t encoded;       /* of them, given to the encoder */
    uint64_t written;       /* of them, in the file (whole buffers) */
    bool stopped;           /* bound reached, or no file, or a write failed */
    char path[RP_SPILL_PATH_MAX];
} rp_spill;

void spill_init(rp_spill *s);
/* Appends events (synthetic ones, id 0, are skipped). */
void spill_events(rp_spill *s, const rp_event *ev, uint32_t n);
/* Closes and removes the file. */
void spill_free(rp_spill *s);

#endif
