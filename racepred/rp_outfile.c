/* rp_outfile.c — buffered output files and code locations (rp_outfile.h). */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"

#include "rp_outfile.h"

Bool rp_outfile_open(rp_outfile *f, const HChar *option, const HChar *value)
{
    SysRes res;

    f->fd = -1;
    f->len = 0;
    f->failed = False;
    f->path = VG_(expand_file_name)(option, value);
    if (f->path == NULL)
        return False;
    res = VG_(open)(f->path, VKI_O_CREAT | VKI_O_WRONLY | VKI_O_TRUNC,
                    VKI_S_IRUSR | VKI_S_IWUSR | VKI_S_IRGRP | VKI_S_IROTH);
    if (sr_isError(res))
        return False;
    f->fd = (Int)sr_Res(res);
    f->owner_pid = VG_(getpid)();
    return True;
}

Bool rp_outfile_is_open(const rp_outfile *f)
{
    return f->fd >= 0;
}

/* A forked child's copy of the file is abandoned: closed, never written. */
static Bool abandoned(rp_outfile *f)
{
    if (f->owner_pid == VG_(getpid)())
        return False;
    VG_(close)(f->fd);
    f->fd = -1;
    return True;
}

static void write_out(rp_outfile *f, const HChar *data, SizeT len)
{
    if (abandoned(f))
        return;
    while (len > 0 && !f->failed) {
        Int n = VG_(write)(f->fd, data, len > 0x40000000 ? 0x40000000 : (Int)len);

        if (n <= 0) {
            f->failed = True;
            break;
        }
        data += n;
        len -= (SizeT)n;
    }
}

static void flush(rp_outfile *f)
{
    write_out(f, f->buf, f->len);
    f->len = 0;
}

void rp_outfile_write(rp_outfile *f, const void *data, SizeT len)
{
    if (!rp_outfile_is_open(f))
        return;
    if (f->len + len > sizeof f->buf)
        flush(f);
    if (len >= sizeof f->buf) {
        write_out(f, data, len);
        return;
    }
    VG_(memcpy)(f->buf + f->len, data, len);
    f->len += (UInt)len;
}

void rp_outfile_puts(rp_outfile *f, const HChar *s)
{
    rp_outfile_write(f, s, VG_(strlen)(s));
}

static void sink_char(HChar c, void *opaque)
{
    rp_outfile_write(opaque, &c, 1);
}

void rp_outfile_printf(rp_outfile *f, const HChar *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    VG_(vcbprintf)(sink_char, f, fmt, ap);
    va_end(ap);
}

void rp_outfile_close(rp_outfile *f)
{
    if (!rp_outfile_is_open(f))
        return;
    flush(f);
    if (f->fd < 0)
        return;
    VG_(close)(f->fd);
    f->fd = -1;
    if (f->failed)
        VG_(umsg)("racepred: error writing %s: the file is incomplete\n", f->path);
}

const HChar *rp_outfile_code_location(DiEpoch ep, Addr ip, HChar *buf, SizeT size)
{
    const HChar *fn, *file, *dir, *obj;
    UInt line;
    Bool know_fn = VG_(get_fnname)(ep, ip, &fn);

    if (!know_fn)
        fn = "???";
    if (VG_(get_filename_linenum)(ep, ip, &file, &dir, &line))
        VG_(snprintf)(buf, size, "%s (%s:%u)", fn, file, line);
    else if (VG_(get_objname)(ep, ip, &obj))
        VG_(snprintf)(buf, size, "%s (in %s)", fn, obj);
    else
        VG_(snprintf)(buf, size, "%s", fn);
    return buf;
}
