/* rp_bintrace.c — binary recorded traces: encoder and reader
 * (rp_bintrace.h, docs/trace-format.md). */
#include "rp_bintrace.h"

#include "rp_shim.h"

#include <stdarg.h>

/* Size codes 0-6 of the tag byte; 7 = a varint follows. */
static const uint32_t size_of_code[RP_BT_SIZE_EXPLICIT] = { 0, 1, 2, 4, 8, 16, 32 };

static uint64_t zigzag(uint64_t delta)
{
    return (delta << 1) ^ (uint64_t)-(int64_t)(delta >> 63);
}

static uint64_t unzigzag(uint64_t v)
{
    return (v >> 1) ^ (uint64_t)-(int64_t)(v & 1);
}

static unsigned size_code(uint32_t size)
{
    for (unsigned c = 0; c < RP_BT_SIZE_EXPLICIT; c++)
        if (size_of_code[c] == size)
            return c;
    return RP_BT_SIZE_EXPLICIT;
}

/* ---- Encoder ------------------------------------------------------- */

static void flush(rp_bt_encoder *enc)
{
    if (enc->len > 0)
        enc->sink(enc->sink_ctx, enc->buf, enc->len);
    enc->len = 0;
}

/* Room for n more bytes; n is at most RP_BT_BUFFER_SIZE. */
static uint8_t *room(rp_bt_encoder *enc, size_t n)
{
    if (enc->len + n > RP_BT_BUFFER_SIZE)
        flush(enc);
    return enc->buf + enc->len;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static void emit_varint(rp_bt_encoder *enc, uint64_t v)
{
    enc->len += put_varint(room(enc, 10), v);
}

static void emit_byte(rp_bt_encoder *enc, uint8_t b)
{
    *room(enc, 1) = b;
    enc->len++;
}

/* A varint length, then the bytes, in buffer-sized pieces. */
static void emit_string(rp_bt_encoder *enc, const char *s)
{
    size_t left = rp_strlen(s);
    emit_varint(enc, left);
    while (left > 0) {
        size_t n = left < RP_BT_BUFFER_SIZE ? left : RP_BT_BUFFER_SIZE;
        rp_memcpy(room(enc, n), s, n);
        enc->len += n;
        s += n;
        left -= n;
    }
}

void rp_bt_encoder_init(rp_bt_encoder *enc, rp_bt_sink sink, void *ctx)
{
    rp_memset(enc, 0, sizeof *enc);
    enc->sink = sink;
    enc->sink_ctx = ctx;
    enc->buf = rp_malloc("rp.bintrace.buf", RP_BT_BUFFER_SIZE);
    u64map_init(&enc->sites);
    rp_memcpy(enc->buf, RP_BT_MAGIC, RP_BT_MAGIC_LEN);
    enc->len = RP_BT_MAGIC_LEN;
    emit_varint(enc, RP_BT_VERSION);
}

/* Remembers a site for the table; the cache spares most map lookups. */
static void note_site(rp_bt_encoder *enc, uint64_t site)
{
    uint64_t *slot = &enc->site_cache[(site * 0x9E3779B97F4A7C15ull) >> 54];

    if (site == 0 || *slot == site)
        return;
    *slot = site;
    if (u64map_get(&enc->sites, site) == NULL)
        u64map_put(&enc->sites, site, (void *)1);
}

void rp_bt_encode_event(rp_bt_encoder *enc, const rp_event *e)
{
    unsigned code = size_code(e->size);
    bool new_tid = e->tid != enc->last_tid || enc->n_events == 0;
    uint8_t *p = room(enc, 1 + 3 * 10);
    size_t n = 0;

    p[n++] = (uint8_t)(e->kind | (new_tid ? RP_BT_TAG_TID : 0)
                       | code << RP_BT_SIZE_SHIFT);
    if (new_tid)
        n += put_varint(p + n, e->tid);
    if (code == RP_BT_SIZE_EXPLICIT)
        n += put_varint(p + n, e->size);
    n += put_varint(p + n, zigzag(e->obj - enc->last_obj));
    n += put_varint(p + n, zigzag(e->site - enc->last_site));
    enc->len += n;
    enc->last_tid = e->tid;
    enc->last_obj = e->obj;
    enc->last_site = e->site;
    enc->n_events++;
    if (e->tid >= enc->n_threads)
        enc->n_threads = e->tid + 1;
    if (e->kind == RP_EV_FORK && e->obj >= enc->n_threads)
        enc->n_threads = (uint32_t)e->obj + 1;
    note_site(enc, e->site);
}

typedef struct {
    void (*fn)(void *ctx, uint64_t site);
    void *ctx;
} site_visit;

static void visit_site(void *ctx, uint64_t key, void *value)
{
    site_visit *v = ctx;
    (void)value;
    v->fn(v->ctx, key);
}

void rp_bt_encoder_sites(const rp_bt_encoder *enc,
                         void (*fn)(void *ctx, uint64_t site), void *ctx)
{
    site_visit v = { fn, ctx };
    u64map_for_each(&enc->sites, visit_site, &v);
}

void rp_bt_encode_site(rp_bt_encoder *enc, uint64_t site, const char *location)
{
    emit_byte(enc, RP_BT_TAG_SITE);
    emit_varint(enc, site);
    emit_string(enc, location);
}

void rp_bt_encode_thread(rp_bt_encoder *enc, rp_tid_t tid, const char *description)
{
    emit_byte(enc, RP_BT_TAG_THREAD);
    emit_varint(enc, tid);
    emit_string(enc, description);
}

void rp_bt_encoder_finish(rp_bt_encoder *enc)
{
    emit_byte(enc, RP_BT_TAG_END);
    emit_varint(enc, enc->n_events);
    flush(enc);
}

void rp_bt_encoder_free(rp_bt_encoder *enc)
{
    rp_free(enc->buf);
    enc->buf = NULL;
    u64map_free(&enc->sites);
}

/* ---- Reader -------------------------------------------------------- */

/* Appends the decimal digits of v to r->message at *n. */
static void message_number(rp_bt_reader *r, size_t *n, uint64_t v)
{
    char digits[20];
    size_t k = 0;
    do {
        digits[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (k > 0 && *n + 1 < sizeof r->message)
        r->message[(*n)++] = digits[--k];
}

/* Appends v to r->message at *n as 0x followed by hex digits. */
static void message_hex(rp_bt_reader *r, size_t *n, uint64_t v)
{
    char digits[16];
    size_t k = 0;
    do {
        digits[k++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v != 0);
    for (const char *p = "0x"; *p != '\0' && *n + 1 < sizeof r->message; p++)
        r->message[(*n)++] = *p;
    while (k > 0 && *n + 1 < sizeof r->message)
        r->message[(*n)++] = digits[--k];
}

/* Records an error at `offset`; returns false for the caller to pass on.
 * The format knows %s (a string), %u and %x (a uint64_t) only. */
static bool fail(rp_bt_reader *r, size_t offset, const char *fmt, ...)
{
    va_list ap;
    size_t n = 0;

    va_start(ap, fmt);
    for (const char *p = fmt; *p != '\0' && n + 1 < sizeof r->message; p++) {
        if (p[0] == '%' && p[1] == 'u') {
            message_number(r, &n, va_arg(ap, uint64_t));
            p++;
        } else if (p[0] == '%' && p[1] == 'x') {
            message_hex(r, &n, va_arg(ap, uint64_t));
            p++;
        } else if (p[0] == '%' && p[1] == 's') {
            for (const char *s = va_arg(ap, const char *);
                 *s != '\0' && n + 1 < sizeof r->message; s++)
                r->message[n++] = *s;
            p++;
        } else {
            r->message[n++] = *p;
        }
    }
    r->message[n] = '\0';
    va_end(ap);
    r->err_offset = offset;
    return false;
}

static bool get_varint(rp_bt_reader *r, uint64_t *v, const char *what)
{
    size_t start = r->pos;
    uint64_t x = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (r->pos == r->len)
            return fail(r, start, "truncated %s", what);
        uint8_t b = r->data[r->pos++];
        if (shift == 63 && b > 1)
            return fail(r, start, "%s does not fit in 64 bits", what);
        x |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0)
            break;
        if (shift == 63)
            return fail(r, start, "%s does not fit in 64 bits", what);
    }
    *v = x;
    return true;
}

static bool get_u32(rp_bt_reader *r, uint32_t *v, uint32_t max, const char *what)
{
    size_t start = r->pos;
    uint64_t x = 0;
    if (!get_varint(r, &x, what))
        return false;
    if (x > max)
        return fail(r, start, "%s %u out of range", what, x);
    *v = (uint32_t)x;
    return true;
}

/* A length-prefixed string, copied and NUL-terminated; the length is
 * checked against the bytes left before anything is allocated. */
static bool get_string(rp_bt_reader *r, char **s, const char *what)
{
    size_t start = r->pos;
    uint64_t n;
    if (!get_varint(r, &n, what))
        return false;
    if (n > r->len - r->pos)
        return fail(r, start, "%s of %u bytes runs past the end", what, n);
    *s = rp_malloc("rp.bintrace.string", (size_t)n + 1);
    rp_memcpy(*s, r->data + r->pos, (size_t)n);
    (*s)[n] = '\0';
    for (uint64_t i = 0; i < n; i++)
        if ((*s)[i] == '\0') {
            rp_free(*s);
            return fail(r, r->pos + (size_t)i, "NUL byte in %s", what);
        }
    r->pos += (size_t)n;
    return true;
}

bool rp_bt_is_binary(const void *data, size_t len)
{
    return len >= RP_BT_MAGIC_LEN && rp_memcmp(data, RP_BT_MAGIC, RP_BT_MAGIC_LEN) == 0;
}

bool rp_bt_reader_init(rp_bt_reader *r, const void *data, size_t len)
{
    uint64_t version;

    rp_memset(r, 0, sizeof *r);
    r->data = data;
    r->len = len;
    u64map_init(&r->sites);
    if (!rp_bt_is_binary(data, len))
        return fail(r, 0, "not a racepred binary trace (bad magic)");
    r->pos = RP_BT_MAGIC_LEN;
    if (!get_varint(r, &version, "version"))
        return false;
    if (version != RP_BT_VERSION)
        return fail(r, RP_BT_MAGIC_LEN, "unsupported version %u", version);
    return true;
}

/* A thread number: one already seen, or the next one. */
static bool check_thread(rp_bt_reader *r, size_t offset, uint64_t tid)
{
    if (tid > r->n_threads)
        return fail(r, offset, "thread %u appears before thread %u", tid,
                    (uint64_t)r->n_threads);
    if (tid == r->n_threads) {
        if (r->n_threads == RP_BT_MAX_THREADS)
            return fail(r, offset, "more than %u threads",
                        (uint64_t)RP_BT_MAX_THREADS);
        r->n_threads++;
    }
    return true;
}

/* A joined thread has ended: it has no event after the join, and is
 * joined once (the detectors free its clocks at the join). */
static bool check_not_joined(rp_bt_reader *r, size_t offset, const rp_event *e)
{
    if (u64map_get(&r->joined, e->tid) != NULL)
        return fail(r, offset, "event of thread %u after it was joined", (uint64_t)e->tid);
    if (e->kind != RP_EV_JOIN)
        return true;
    if (u64map_get(&r->joined, e->obj) != NULL)
        return fail(r, offset, "thread %u joined twice", e->obj);
    u64map_put(&r->joined, e->obj, (void *)1);
    return true;
}

/* Values of r->owners and of the readers maps (never NULL: u64map). */
#define NOT_HELD ((void *)1)
#define HELD_BY(tid) ((void *)((uintptr_t)(tid) + 2))

/* The map of the locks thread `tid` (a known thread) holds the read side
 * of; the array grows only when a thread takes a read side, so a trace
 * pays for it in proportion to its events. */
static rp_u64map *readers_of(rp_bt_reader *r, rp_tid_t tid)
{
    if (tid >= r->readers_cap) {
        uint32_t cap = r->n_threads;
        r->readers = rp_realloc("rp.bintrace.readers", r->readers, cap * sizeof *r->readers);
        for (uint32_t t = r->readers_cap; t < cap; t++)
            u64map_init(&r->readers[t]);
        r->readers_cap = cap;
    }
    return &r->readers[tid];
}

/* Lock discipline, as the text reader checks it, but an exclusive acquire
 * of a lock another thread holds is accepted: the tool records one when
 * it missed the holder's unlock (rp_locks.c), and the new holder is then
 * the only one that may release it.  The tool records releases only for
 * the holder, so a release by anyone else is a damaged or forged trace. */
static bool check_lock(rp_bt_reader *r, size_t start, const rp_event *e)
{
    switch (e->kind) {
    case RP_EV_ACQUIRE:
        u64map_put(&r->owners, e->obj, HELD_BY(e->tid));
        return true;
    case RP_EV_RELEASE:
        if (u64map_get(&r->owners, e->obj) != HELD_BY(e->tid))
            return fail(r, start, "release of lock %x, which thread %u does not hold",
                        e->obj, (uint64_t)e->tid);
        u64map_put(&r->owners, e->obj, NOT_HELD);
        return true;
    case RP_EV_ACQUIRE_SHARED:
        u64map_put(readers_of(r, e->tid), e->obj, HELD_BY(e->tid));
        return true;
    case RP_EV_RELEASE_SHARED:
        if (u64map_get(readers_of(r, e->tid), e->obj) != HELD_BY(e->tid))
            return fail(r, start, "read-side release of lock %x, which thread %u does not hold",
                        e->obj, (uint64_t)e->tid);
        u64map_put(readers_of(r, e->tid), e->obj, NOT_HELD);
        return true;
    default:
        return true;
    }
}

static bool read_event(rp_bt_reader *r, uint8_t tag, size_t start, rp_event *e)
{
    unsigned code = tag >> RP_BT_SIZE_SHIFT;
    uint64_t obj_delta, site_delta;

    e->kind = tag & 0x0f;
    e->tid = r->last_tid;
    e->size = code < RP_BT_SIZE_EXPLICIT ? size_of_code[code] : 0;
    if ((tag & RP_BT_TAG_TID) == 0 && r->n_events == 0)
        return fail(r, start, "first event has no thread number");
    if ((tag & RP_BT_TAG_TID) != 0
        && !get_u32(r, &e->tid, RP_BT_MAX_THREADS, "thread number"))
        return false;
    if (code == RP_BT_SIZE_EXPLICIT && !get_u32(r, &e->size, UINT32_MAX, "size"))
        return false;
    if ((e->kind == RP_EV_READ || e->kind == RP_EV_WRITE) && e->size > RP_BT_MAX_ACCESS_SIZE)
        return fail(r, start, "access of %u bytes (at most %u)", (uint64_t)e->size,
                    (uint64_t)RP_BT_MAX_ACCESS_SIZE);
    if (!get_varint(r, &obj_delta, "object") || !get_varint(r, &site_delta, "site"))
        return false;
    if (!check_thread(r, start, e->tid))
        return false;
    e->obj = r->last_obj + unzigzag(obj_delta);
    e->site = r->last_site + unzigzag(site_delta);
    if (e->kind == RP_EV_FORK && !check_thread(r, start, e->obj))
        return false;
    if (e->kind == RP_EV_JOIN && e->obj >= r->n_threads)
        return fail(r, start, "join of unknown thread %u", e->obj);
    if ((e->kind == RP_EV_FORK || e->kind == RP_EV_JOIN) && e->obj == e->tid)
        return fail(r, start, "thread %u forks or joins itself", (uint64_t)e->tid);
    if (!check_not_joined(r, start, e))
        return false;
    if (!check_lock(r, start, e))
        return false;
    r->last_tid = e->tid;
    r->last_obj = e->obj;
    r->last_site = e->site;
    e->id = ++r->n_events;
    return true;
}

static bool read_site(rp_bt_reader *r, size_t start)
{
    uint64_t site;
    char *location;

    if (!get_varint(r, &site, "site"))
        return false;
    if (u64map_get(&r->sites, site) != NULL)
        return fail(r, start, "site listed twice");
    if (!get_string(r, &location, "site location"))
        return false;
    u64map_put(&r->sites, site, location);
    return true;
}

static bool read_thread(rp_bt_reader *r, size_t start)
{
    uint32_t tid = 0;
    char *description;

    if (!get_u32(r, &tid, RP_BT_MAX_THREADS, "thread number"))
        return false;
    if (tid >= r->n_threads)
        return fail(r, start, "thread table names unknown thread %u", (uint64_t)tid);
    if (tid < r->threads_cap && r->threads[tid] != NULL)
        return fail(r, start, "thread %u listed twice", (uint64_t)tid);
    if (!get_string(r, &description, "thread description"))
        return false;
    if (tid >= r->threads_cap) {
        uint32_t cap = r->n_threads;
        r->threads = rp_realloc("rp.bintrace.threads", r->threads, cap * sizeof *r->threads);
        rp_memset(r->threads + r->threads_cap, 0, (cap - r->threads_cap) * sizeof *r->threads);
        r->threads_cap = cap;
    }
    r->threads[tid] = description;
    return true;
}

static bool read_end(rp_bt_reader *r, size_t start)
{
    uint64_t count;

    if (!get_varint(r, &count, "event count"))
        return false;
    if (count != r->n_events)
        return fail(r, start, "end record counts %u events, the trace has %u",
                    count, r->n_events);
    if (r->pos != r->len)
        return fail(r, r->pos, "data after the end record");
    r->ended = true;
    return true;
}

/* The next record; RP_BT_EVENT only for events. */
static rp_bt_status read_record(rp_bt_reader *r, rp_event *e)
{
    size_t start = r->pos;
    uint8_t tag;
    bool ok;

    if (r->pos == r->len) {
        fail(r, start, "truncated: no end record");
        return RP_BT_ERROR;
    }
    tag = r->data[r->pos++];
    if ((tag & 0x0f) < RP_EV_KIND_COUNT)
        return read_event(r, tag, start, e) ? RP_BT_EVENT : RP_BT_ERROR;
    if (tag == RP_BT_TAG_SITE)
        ok = read_site(r, start);
    else if (tag == RP_BT_TAG_THREAD)
        ok = read_thread(r, start);
    else if (tag == RP_BT_TAG_END)
        ok = read_end(r, start);
    else
        ok = fail(r, start, "unknown record tag %u", (uint64_t)tag);
    return ok ? RP_BT_END : RP_BT_ERROR;
}

rp_bt_status rp_bt_next(rp_bt_reader *r, rp_event *e)
{
    while (!r->ended) {
        rp_bt_status s = read_record(r, e);
        if (s != RP_BT_END)
            return s;
    }
    return RP_BT_END;
}

const char *rp_bt_site_location(const rp_bt_reader *r, uint64_t site)
{
    return u64map_get(&r->sites, site);
}

const char *rp_bt_thread_description(const rp_bt_reader *r, rp_tid_t tid)
{
    return tid < r->threads_cap ? r->threads[tid] : NULL;
}

static void free_location(void *ctx, uint64_t key, void *value)
{
    (void)ctx;
    (void)key;
    rp_free(value);
}

void rp_bt_reader_free(rp_bt_reader *r)
{
    u64map_for_each(&r->sites, free_location, NULL);
    u64map_free(&r->sites);
    for (uint32_t i = 0; i < r->threads_cap; i++)
        rp_free(r->threads[i]);
    rp_free(r->threads);
    r->threads = NULL;
    r->threads_cap = 0;
    u64map_free(&r->owners);
    u64map_free(&r->joined);
    for (uint32_t i = 0; i < r->readers_cap; i++)
        u64map_free(&r->readers[i]);
    rp_free(r->readers);
    r->readers = NULL;
    r->readers_cap = 0;
}
