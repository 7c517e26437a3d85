/* rp_reserve.c — address space held back for Valgrind (rp_reserve.h). */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_tooliface.h"
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

static void release_reserve(void)
{
    (void)VG_(am_munmap_valgrind)((Addr)reserve, reserve_size);
    reserve = NULL;
}

static void pre_syscall(ThreadId tid, UInt syscallno, UWord *args, UInt nArgs)
{
    (void)tid;
    (void)syscallno;
    (void)args;
    (void)nArgs;
}

/* The program's mapping failed for want of address space: give the
 * reserve back and stop detection at the next event. */
static void post_syscall(ThreadId tid, UInt syscallno, UWord *args, UInt nArgs,
                         SysRes res)
{
    (void)tid;
    (void)args;
    (void)nArgs;
    if (reserve == NULL || !sr_isError(res) || sr_Err(res) != VKI_ENOMEM)
        return;
    if (syscallno != __NR_mmap && syscallno != __NR_mremap)
        return;
    release_reserve();
    rp_reserve_exhausted = True;
    rp_tool_stop_requested = True;
}

void rp_reserve_register(void)
{
    VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
}

void rp_reserve_init(ULong as_limit)
{
    if (as_limit == 0)
        return;
    reserve_size = VG_PGROUNDUP(as_limit / 16 < RP_RESERVE_MAX ? as_limit / 16
                                                               : RP_RESERVE_MAX);
    reserve = VG_(am_shadow_alloc)(reserve_size);
}
