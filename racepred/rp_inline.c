/* rp_inline.c — which objects' inlined calls Valgrind reads; see
 * rp_inline.h. */
#include "pub_tool_basics.h"
#include "pub_tool_vkiscnums.h"

#include "rp_inline.h"
#include "rp_tool.h"

extern Bool VG_(clo_read_inline_info);

/* Whether racepred decides (the command line did not). */
static Bool deciding;

void rp_inline_init(void)
{
    deciding = !rp_tool_core_option_given("--read-inline-info=");
    if (deciding)
        VG_(clo_read_inline_info) = True;
}

void rp_inline_pre_syscall(UInt sysno)
{
    if (deciding && sysno == __NR_mmap)
        VG_(clo_read_inline_info) = False;
}

void rp_inline_post_syscall(UInt sysno)
{
    if (deciding && sysno == __NR_mmap)
        VG_(clo_read_inline_info) = True;
}
