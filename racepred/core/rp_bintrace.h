/* rp_bintrace.h — the binary recorded-trace format (docs/trace-format.md,
 * "Binary traces"): the encoder the tool's --record-trace uses and the
 * reader racepred-analyze uses.
 *
 * A file is an 8-byte magic, a format version, then records.  An event
 * record is one tag byte (kind, "thread changed", size code) and varints:
 * the thread when it changed, the size when it has no code, the object and
 * the site as zigzag deltas from the previous event's.  After the events
 * come the site table (every non-zero site that occurred, with a printable
 * code location), the thread table (a description per thread), and an end
 * record holding the event count; nothing may follow it.
 *
 * The encoder only produces bytes: it hands full buffers to a sink
 * function, so the host decides where they go (the tool writes them to the
 * file with VG_(write)) and memory stays bounded by the buffer plus the set
 * of distinct sites.
 *
 * The reader works on a buffer and hands out one event at a time, so an
 * analysis streams; the site and thread tables are collected as they are
 * met.  It checks everything: truncation anywhere, overlong varints,
 * unknown tags, sizes and thread numbers out of range, threads not
 * numbered densely in order of first appearance (as actor or fork/join
 * argument, the way the tool numbers them), strings longer than the rest
 * of the input, a missing end record, an event count that disagrees,
 * bytes after the end, and the release of a lock the releasing thread
 * does not hold (as the text reader does; an exclusive acquire takes the
 * lock from any holder, since the tool records one when it missed the
 * holder's unlock: rp_locks.c).  Errors come back as (byte offset, message); it
 * never aborts and never allocates more than the input can justify.
 */
#ifndef RP_BINTRACE_H
#define RP_BINTRACE_H

#include "rp_event.h"
#include "rp_u64map.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_BT_MAGIC "\x89RPTRACE"
#define RP_BT_MAGIC_LEN 8
#define RP_BT_VERSION 1u
/* Largest number of threads a trace may have. */
#define RP_BT_MAX_THREADS (1u << 20)
#define RP_BT_MESSAGE_MAX 120
/* Largest read or write a trace may hold (the tool's accesses come from
 * Valgrind's IR: at most a few hundred bytes, FXSAVE/XSAVE areas); larger
 * ones would cost the detectors time and memory per byte.  Forgets may
 * span up to 4 GiB - 1. */
#define RP_BT_MAX_ACCESS_SIZE 65536u

/* Tag byte of an event: bits 0-3 the kind, bit 4 "a thread number
 * follows", bits 5-7 the size code (RP_BT_SIZE_*).  Non-event records
 * have 0xF in bits 0-3. */
#define RP_BT_TAG_TID 0x10u
#define RP_BT_SIZE_SHIFT 5
#define RP_BT_SIZE_EXPLICIT 7u
#define RP_BT_TAG_SITE 0x0Fu
#define RP_BT_TAG_THREAD 0x1Fu
#define RP_BT_TAG_END 0x2Fu

#define RP_BT_BUFFER_SIZE 65536u
#define RP_BT_SITE_CACHE 1024u

typedef void (*rp_bt_sink)(void *ctx, const uint8_t *data, size_t len);

typedef struct rp_bt_encoder {
    rp_bt_sink sink;
    void *sink_ctx;
    uint8_t *buf;
    size_t len;
    uint64_t last_obj;
    uint64_t last_site;
    rp_tid_t last_tid;
    uint64_t n_events;
    uint32_t n_threads;                     /* 1 + largest thread number seen */
    rp_u64map sites;                        /* site -> (void *)1 */
    uint64_t site_cache[RP_BT_SITE_CACHE];  /* recently seen sites */
} rp_bt_encoder;

/* Starts a trace: the header goes into the buffer. */
void rp_bt_encoder_init(rp_bt_encoder *enc, rp_bt_sink sink, void *ctx);
void rp_bt_encode_event(rp_bt_encoder *enc, const rp_event *e);

/* Calls fn for every distinct non-zero site encoded so far. */
void rp_bt_encoder_sites(const rp_bt_encoder *enc,
                         void (*fn)(void *ctx, uint64_t site), void *ctx);
/* Table entries; written after the last event.  A thread entry may only
 * name a thread the events mentioned (tid < enc->n_threads). */
void rp_bt_encode_site(rp_bt_encoder *enc, uint64_t site, const char *location);
void rp_bt_encode_thread(rp_bt_encoder *enc, rp_tid_t tid, const char *description);
/* The end record, then everything buffered goes to the sink. */
void rp_bt_encoder_finish(rp_bt_encoder *enc);
/* Frees the encoder's memory (after finish, or to abandon a trace). */
void rp_bt_encoder_free(rp_bt_encoder *enc);

typedef struct rp_bt_reader {
    const uint8_t *data;
    size_t len;
    size_t pos;
    uint64_t last_obj;
    uint64_t last_site;
    rp_tid_t last_tid;
    uint32_t n_threads;     /* thread numbers seen so far: 0 .. n_threads-1 */
    uint64_t n_events;
    bool ended;
    rp_u64map sites;        /* site -> its location (a char *) */
    char **threads;         /* description per thread number, or NULL */
    uint32_t threads_cap;
    rp_u64map owners;       /* lock -> exclusive holder (rp_bintrace.c) */
    rp_u64map joined;       /* thread -> (void *)1 once joined */
    rp_u64map *readers;     /* per thread: lock -> whether it holds the read side */
    uint32_t readers_cap;
    size_t err_offset;
    char message[RP_BT_MESSAGE_MAX];
} rp_bt_reader;

typedef enum { RP_BT_EVENT, RP_BT_END, RP_BT_ERROR } rp_bt_status;

/* Whether data starts with the magic. */
bool rp_bt_is_binary(const void *data, size_t len);

/* Checks the header; false (with the reader's error set) if it is bad.
 * The reader keeps pointing into data, which must outlive it. */
bool rp_bt_reader_init(rp_bt_reader *r, const void *data, size_t len);
/* The next event (id = its 1-based position), or the end, or an error
 * (r->err_offset, r->message). */
rp_bt_status rp_bt_next(rp_bt_reader *r, rp_event *e);
/* The location of a site (table entries read so far), or NULL. */
const char *rp_bt_site_location(const rp_bt_reader *r, uint64_t site);
/* The description of a thread (entries read so far), or NULL. */
const char *rp_bt_thread_description(const rp_bt_reader *r, rp_tid_t tid);
void rp_bt_reader_free(rp_bt_reader *r);

#endif
