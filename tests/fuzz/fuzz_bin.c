/* fuzz_bin.c — libFuzzer target: the binary trace reader (rp_bintrace.h),
 * the detectors on the events it hands out (fuzz_common.h), and a round
 * trip: every accepted trace's events, re-encoded by the tool's encoder and
 * read back, are the same events.  Built and run by `make fuzz-smoke`
 * (tests/fuzz/fuzz.am). */
#include "fuzz_common.h"
#include "rp_bintrace.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

typedef struct membuf {
    uint8_t *data;
    size_t len, cap;
} membuf;

static void mem_sink(void *ctx, const uint8_t *data, size_t len)
{
    membuf *m = ctx;
    if (m->len + len > m->cap) {
        m->cap = (m->len + len) * 2;
        m->data = realloc(m->data, m->cap);
        if (m->data == NULL)
            abort();
    }
    memcpy(m->data + m->len, data, len);
    m->len += len;
}

static bool same_event(const rp_event *a, const rp_event *b)
{
    return a->obj == b->obj && a->site == b->site && a->tid == b->tid
           && a->size == b->size && a->kind == b->kind;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    (void)rp_bt_is_binary(data, len);
    rp_bt_reader reader;
    if (!rp_bt_reader_init(&reader, data, len)) {
        if (reader.err_offset > len)
            abort();
        rp_bt_reader_free(&reader);
        return 0;
    }
    fuzz_run run;
    fuzz_start(&run, data, len);
    membuf out = { NULL, 0, 0 };
    rp_bt_encoder *enc = malloc(sizeof *enc);
    if (enc == NULL)
        abort();
    rp_bt_encoder_init(enc, mem_sink, &out);
    rp_event e;
    rp_bt_status status;
    while ((status = rp_bt_next(&reader, &e)) == RP_BT_EVENT) {
        if (e.id != reader.n_events || e.tid >= reader.n_threads)
            abort();
        (void)rp_bt_site_location(&reader, e.site);
        (void)rp_bt_thread_description(&reader, e.tid);
        rp_bt_encode_event(enc, &e);
        fuzz_event(&run, &e);
    }
    fuzz_end(&run, status == RP_BT_END);
    if (status == RP_BT_ERROR && reader.err_offset > len)
        abort();
    rp_bt_encoder_finish(enc);
    rp_bt_encoder_free(enc);
    free(enc);
    uint64_t n_events = reader.n_events;
    rp_bt_reader_free(&reader);

    if (status == RP_BT_END) {
        /* Read the events back from the re-encoded trace and compare. */
        rp_bt_reader again, orig;
        if (!rp_bt_reader_init(&again, out.data, out.len) || !rp_bt_reader_init(&orig, data, len))
            abort();
        rp_event a, b;
        rp_bt_status sa, sb;
        for (;;) {
            sa = rp_bt_next(&again, &a);
            sb = rp_bt_next(&orig, &b);
            if (sa != sb)
                abort();
            if (sa != RP_BT_EVENT)
                break;
            if (!same_event(&a, &b))
                abort();
        }
        if (sa != RP_BT_END || again.n_events != n_events)
            abort();
        rp_bt_reader_free(&again);
        rp_bt_reader_free(&orig);
    }
    free(out.data);
    return 0;
}
