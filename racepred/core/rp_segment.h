/* rp_segment.h — the offline log in bounded memory: segments, cuts, pins
 * and the count of unchecked pairs (the log's functions are declared in
 * rp_offline.h; this is the state behind them once the log is cut).
 *
 * The offline detectors (syncp, m2, osr) analyse a log of events.  In the
 * tool a run may have billions of events, so the log holds at most
 * offline_max_events() = M real events.  When it is full the detector
 * analyses it as a whole trace (its `analyse` function, told which events
 * are new), then the log is cut: the events before a cut point c leave
 * memory (to the spill file, rp_spill.h) and the rest, at least the last
 * M/2 events (the overlap), starts the next segment.  So every pair of
 * accesses less than M/2 events apart meets in some segment; each pair is
 * reported by the first segment that holds its second access as new.
 *
 * Why a segment may be analysed as a trace of its own: the run before c
 * is kept unchanged as the start of every witness, so what it leaves
 * behind is the initial state of the segment:
 *   - a read whose last writer precedes c reads an initial value in the
 *     segment: no write of the segment may come before it in a witness,
 *     which is exactly what keeping its real writer demands (the writer is
 *     the last write of those bytes before c);
 *   - threads forked before c exist; a join needs the joined thread's
 *     events of the segment (the rest precede c); sends before c precede
 *     every recv of the segment;
 *   - locks: c is chosen, among the positions that keep at least the
 *     overlap and discard at least 1/RP_CUT_MIN_SHARE of what they could
 *     (so a cut makes progress: an event is analysed at most some 16
 *     times, twice when cuts fall at the overlap), as the latest at which
 *     no thread holds a lock (on pigz, a share of 1/2 left half the cuts
 *     inside a critical section, 1/8 none).  Where every such position is inside
 *     a critical section, c is the latest one and each lock held there is
 *     *pinned*: the segment starts with a synthetic acquire of it by each
 *     holder followed by a synthetic send on the pin object (the lock
 *     with the top bit flipped), and before the first acquire of that lock
 *     by each thread (but a sole holder) the segment gets a synthetic recv
 *     of the pin.  A witness of the segment containing an acquire of the
 *     lock that the holders' state could forbid therefore contains every
 *     holder's synthetic acquire and, by the lock rules, the releases it
 *     needs; one without them touches the lock only where the holders'
 *     state allows it.
 *     Either way, the run before c followed by the witness minus the
 *     synthetic events is valid for the whole run (the holder holds the
 *     lock from before c).  Synthetic events have id 0, are never
 *     accesses, add no happens-before edge between real events (the only
 *     event of a holder before its send is the synthetic acquire) and are
 *     rebuilt at each cut.
 * Every witness a detector validates on a segment is thus a witness for the
 * whole run, and reports carry the events' ids (their global positions).
 *
 * Unchecked pairs: a candidate pair (conflicting accesses of different
 * threads, at least one write, a shared byte no forget refreshed between
 * them) whose first access left memory before its second access arrived
 * is never analysed.  They are counted, never dropped silently: the
 * accesses that left memory are summed per 8-byte granule and thread
 * (reads, writes, and the masks of the bytes read and written; a forget
 * clears the bytes it covers), and each new access of a segment adds the
 * discarded accesses of other threads that conflict with it on a byte of a
 * shared granule.  The count is 0 exactly when no such pair exists; it may
 * exceed the number of pairs (a discarded access sharing several granules
 * with the new one counts once per granule, and a granule's counts cover
 * all its bytes).  Memory: 32 bytes per (granule, thread) touched by
 * discarded accesses and not refreshed since.
 */
#ifndef RP_SEGMENT_H
#define RP_SEGMENT_H

#include "rp_event.h"
#include "rp_spill.h"
#include "rp_u64map.h"

#include <stdbool.h>
#include <stdint.h>

/* A cut discards at least this share of what it may discard. */
#define RP_CUT_MIN_SHARE 8u

/* The pin object of a lock: its synthetic send and recv use it. */
#define RP_PIN_OBJ(lock) ((lock) ^ 0x8000000000000000ull)

/* Accesses of one thread to one granule that left memory. */
typedef struct rp_granule_use {
    uint64_t reads, writes;
    uint32_t next;          /* next record of the granule, + 1; 0: none */
    rp_tid_t tid;
    uint8_t read_bytes, written_bytes;
} rp_granule_use;

typedef struct rp_segments {
    uint64_t cuts;
    uint64_t pinned_cuts;   /* cuts inside a critical section */
    uint64_t unchecked;     /* candidate pairs no segment held */
    rp_u64map pins;         /* lock -> rp_pin * */
    rp_u64map granules;     /* granule -> first record + 1 */
    rp_granule_use *uses;
    uint32_t n_uses, cap_uses;
    uint32_t free_use;      /* free list of records, + 1 */
    rp_spill spill;
} rp_segments;

#endif
