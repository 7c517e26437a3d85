/* rp_shim_vg.c — the portable core's host functions (core/rp_shim.h),
 * implemented over Valgrind's tool library.
 *
 * The core runs inside the tool, where there is no libc: memory comes from
 * Valgrind's "tool" arena (VG_(malloc) aborts on exhaustion, which is the
 * contract rp_shim.h promises), except the pages of big tables
 * (rp_pages_alloc, in rp_pages.c), messages go to Valgrind's log channel,
 * and an internal failure stops Valgrind the way tl_assert does.
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "pub_tool_xarray.h"

#include "rp_shim.h"
#include "rp_tool.h"

void *rp_malloc(const char *cost_centre, size_t n)
{
    return VG_(malloc)(cost_centre, n);
}

void *rp_calloc(const char *cost_centre, size_t count, size_t n)
{
    return VG_(calloc)(cost_centre, count, n);
}

void *rp_realloc(const char *cost_centre, void *p, size_t n)
{
    return VG_(realloc)(cost_centre, p, n);
}

void rp_free(void *p)
{
    VG_(free)(p);
}

void *rp_tool_grow_zeroed(const HChar *cost_centre, void *array, UInt *count, UInt needed,
                          SizeT elem_size)
{
    UInt n = needed + 16 > 2 * *count ? needed + 16 : 2 * *count;

    array = VG_(realloc)(cost_centre, array, n * elem_size);
    VG_(memset)((UChar *)array + *count * elem_size, 0, (n - *count) * elem_size);
    *count = n;
    return array;
}

/* The core's bulk memory against --max-memory: over it, detection stops at
 * the next event (rp_tool_emit), never inside a detector. */
static ULong bulk_bytes;

void rp_bulk_alloc(size_t bytes)
{
    bulk_bytes += bytes;
    if (rp_tool_max_memory != 0 && bulk_bytes > rp_tool_max_memory)
        rp_tool_stop_requested = True;
}

void rp_bulk_free(size_t bytes)
{
    bulk_bytes -= bytes;
}

ULong rp_tool_bulk_bytes(void)
{
    return bulk_bytes;
}

void rp_memset(void *dst, int c, size_t n)
{
    VG_(memset)(dst, c, n);
}

void rp_memcpy(void *dst, const void *src, size_t n)
{
    VG_(memcpy)(dst, src, n);
}

int rp_memcmp(const void *a, const void *b, size_t n)
{
    return VG_(memcmp)(a, b, n);
}

size_t rp_strlen(const char *s)
{
    return VG_(strlen)(s);
}

int rp_strcmp(const char *a, const char *b)
{
    return VG_(strcmp)(a, b);
}

/* No mkstemp in the tool library: the name holds the process id and a
 * counter, and O_EXCL refuses a file that is already there. */
int rp_temp_file_create(char *path, size_t cap)
{
    static UInt serial;
    UInt attempt;

    for (attempt = 0; attempt < 100; attempt++) {
        SysRes res;
        Int len = VG_(snprintf)(path, cap, "%s/racepred-spill-%d-%u", VG_(tmpdir)(),
                                VG_(getpid)(), serial++);

        if (len < 0 || (size_t)len >= cap)
            return -1;
        res = VG_(open)(path, VKI_O_CREAT | VKI_O_EXCL | VKI_O_WRONLY,
                        VKI_S_IRUSR | VKI_S_IWUSR);
        if (!sr_isError(res))
            return (int)sr_Res(res);
    }
    return -1;
}

bool rp_file_write(int fd, const void *data, size_t len)
{
    const char *p = data;

    while (len > 0) {
        Int n = VG_(write)(fd, p, len > 0x40000000 ? 0x40000000 : (Int)len);

        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

void rp_file_close(int fd)
{
    VG_(close)(fd);
}

void rp_file_remove(const char *path)
{
    VG_(unlink)(path);
}

int rp_process_id(void)
{
    return VG_(getpid)();
}

void rp_message(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    VG_(vmessage)(Vg_DebugMsg, fmt, ap);
    va_end(ap);
}

void rp_panic(const char *file, int line, const char *cond)
{
    VG_(assert_fail)(False, cond, file, line, "rp_panic",
                     "racepred core invariant violated");
}

Bool rp_tool_core_option_given(const HChar *prefix)
{
    SizeT n = VG_(strlen)(prefix);
    Word i;

    for (i = 0; i < VG_(sizeXA)(VG_(args_for_valgrind)); i++) {
        const HChar *arg = *(HChar **)VG_(indexXA)(VG_(args_for_valgrind), i);

        if (VG_(strncmp)(arg, prefix, n) == 0)
            return True;
    }
    return False;
}
