/* rp_reserve.c — address space held back for Valgrind (rp_reserve.h). */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "rp_reserve.h"
#include "rp_tool.h"

/* Enough for the arena superblocks and a translation sector that the
 * program's failure path may need, and at most a sixteenth of the limit. */
#define RP_RESERVE_MAX (64ULL << 20)

Bool rp_reserve_exhausted;
static void *reserve;
static SizeT reserve_size;
static ULong limit;

/* The process's mapped address space (VmSize, what the limit counts), or
 * 0 when /proc cannot tell. */
static ULong mapped_bytes(void)
{
    HChar buf[2048];
    const HChar *line;
    Int fd, n;
    SysRes sr = VG_(open)("/proc/self/status", VKI_O_RDONLY, 0);

    if (sr_isError(sr))
        return 0;
    fd = (Int)sr_Res(sr);
    n = VG_(read)(fd, buf, sizeof buf - 1);
    VG_(close)(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    line = VG_(strstr)(buf, "VmSize:");
    return line == NULL ? 0 : VG_(strtoull10)(line + 7, NULL) << 10;
}

static void release_reserve(void)
{
    (void)VG_(am_munmap_valgrind)((Addr)reserve, reserve_size);
    reserve = NULL;
}

/* The program's mapping failed for want of address space (what is left
 * under the limit is less than the reserve: a request too large for any
 * space leaves the reserve alone): give the reserve back and stop
 * detection at the next event. */
void rp_reserve_post_syscall(UInt syscallno, SysRes res)
{
    ULong used;

    if (reserve == NULL || !sr_isError(res) || sr_Err(res) != VKI_ENOMEM)
        return;
    if (syscallno != __NR_mmap && syscallno != __NR_mremap)
        return;
    used = mapped_bytes();
    if (used == 0 || used + reserve_size < limit)
        return;
    release_reserve();
    rp_reserve_exhausted = True;
    rp_tool_stop_requested = True;
}

void rp_reserve_init(ULong as_limit)
{
    if (as_limit == 0)
        return;
    limit = as_limit;
    reserve_size = VG_PGROUNDUP(as_limit / 16 < RP_RESERVE_MAX ? as_limit / 16
                                                               : RP_RESERVE_MAX);
    reserve = VG_(am_shadow_alloc)(reserve_size);
}
