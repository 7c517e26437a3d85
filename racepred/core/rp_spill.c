/* rp_spill.c — the offline log's spill file (rp_spill.h). */
#include "rp_spill.h"

#include "rp_shim.h"

static uint64_t max_bytes = RP_SPILL_MAX_BYTES;

void spill_set_max_bytes(uint64_t max)
{
    max_bytes = max;
}

uint64_t spill_max_bytes(void)
{
    return max_bytes;
}

void spill_init(rp_spill *s)
{
    rp_memset(s, 0, sizeof *s);
    s->fd = -1;
    s->max_bytes = max_bytes;
}

/* The encoder's sink: whole buffers, until the bound or an error. */
static void spill_write(void *ctx, const uint8_t *data, size_t len)
{
    rp_spill *s = ctx;
    if (s->stopped)
        return;
    if (s->bytes + len > s->max_bytes || !rp_file_write(s->fd, data, len)) {
        s->stopped = true;
        return;
    }
    s->bytes += len;
    s->written = s->encoded;
}

static void spill_open(rp_spill *s)
{
    s->pid = rp_process_id();
    s->fd = rp_temp_file_create(s->path, sizeof s->path);
    s->open = true;
    s->stopped = s->fd < 0 || s->max_bytes == 0;
    rp_bt_encoder_init(&s->enc, spill_write, s);
}

/* A forked child keeps its parent's state but not its file. */
static void spill_leave_parent_file(rp_spill *s)
{
    rp_bt_encoder_free(&s->enc);
    if (s->fd >= 0)
        rp_file_close(s->fd);
    s->open = false;
    s->bytes = 0;
}

void spill_events(rp_spill *s, const rp_event *ev, uint32_t n)
{
    if (s->open && s->pid != rp_process_id())
        spill_leave_parent_file(s);
    if (!s->open)
        spill_open(s);
    for (uint32_t i = 0; i < n; i++) {
        if (ev[i].id == 0)
            continue;
        s->events++;
        if (s->stopped)
            continue;
        rp_bt_encode_event(&s->enc, &ev[i]);
        s->encoded++;
    }
}

void spill_free(rp_spill *s)
{
    if (!s->open)
        return;
    rp_bt_encoder_free(&s->enc);
    if (s->fd >= 0 && s->pid == rp_process_id()) {
        rp_file_close(s->fd);
        rp_file_remove(s->path);
    }
    s->open = false;
}
