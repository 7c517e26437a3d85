/* rp_record.c — --record-trace (rp_record.h). */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_execontext.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"

#include "rp_bintrace.h"
#include "rp_filter.h"
#include "rp_outfile.h"
#include "rp_record.h"
#include "rp_site.h"
#include "rp_threads.h"

#define RP_LOCATION_MAX 512

Bool rp_record_enabled;

static rp_outfile file;
static rp_bt_encoder encoder;

static void to_file(void *ctx, const uint8_t *data, size_t len)
{
    rp_outfile_write(ctx, data, len);
}

Bool rp_record_open(const HChar *value)
{
    if (!rp_outfile_open(&file, "--record-trace", value))
        return False;
    rp_bt_encoder_init(&encoder, to_file, &file);
    rp_record_enabled = True;
    return True;
}

void rp_record_event(const rp_event *e)
{
    rp_bt_encode_event(&encoder, e);
}

static void write_site(void *ctx, uint64_t site)
{
    HChar buf[RP_LOCATION_MAX];

    (void)ctx;
    /* Sites of accesses carry a lockset id above the address (rp_site.h);
     * the table names the code location only. */
    rp_bt_encode_site(&encoder, site,
                      rp_outfile_code_location(VG_(current_DiEpoch)(),
                                               rp_site_ip(site), buf, sizeof buf));
}

typedef struct {
    Addr ip;
    Bool found;
} program_frame;

/* The first frame of the creating stack in instrumented code: the
 * program's call of pthread_create, not glibc's clone. */
static void find_program_frame(UInt n, DiEpoch ep, Addr ip, void *opaque)
{
    program_frame *f = opaque;

    (void)n;
    (void)ep;
    if (!f->found && rp_filter_instruments(ip)) {
        f->ip = ip;
        f->found = True;
    }
}

static void write_thread(rp_tid_t tid)
{
    ExeContext *created_at = rp_threads_created_at(tid);
    HChar where[RP_LOCATION_MAX];
    HChar buf[RP_LOCATION_MAX + 32];
    program_frame f = { 0, False };

    if (created_at == NULL) {
        rp_bt_encode_thread(&encoder, tid, "the root thread");
        return;
    }
    VG_(apply_ExeContext)(find_program_frame, &f, created_at);
    if (f.found)
        rp_outfile_code_location(VG_(get_ExeContext_epoch)(created_at), f.ip,
                                 where, sizeof where);
    else
        VG_(strcpy)(where, "???");
    VG_(snprintf)(buf, sizeof buf, "created at %s", where);
    rp_bt_encode_thread(&encoder, tid, buf);
}

void rp_record_finish(void)
{
    rp_tid_t tid;

    if (!rp_record_enabled)
        return;
    rp_record_enabled = False;
    rp_bt_encoder_sites(&encoder, write_site, NULL);
    for (tid = 0; tid < rp_threads_count() && tid < encoder.n_threads; tid++)
        write_thread(tid);
    rp_bt_encoder_finish(&encoder);
    rp_bt_encoder_free(&encoder);
    rp_outfile_close(&file);
}
