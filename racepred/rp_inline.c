/* rp_inline.c — which objects' inlined calls Valgrind reads; see
 * rp_inline.h. */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"

#include "rp_inline.h"

extern Bool VG_(clo_read_inline_info);

/* Whether racepred decides (the command line did not). */
static Bool deciding;

static Bool on_command_line(void)
{
    Word i;

    for (i = 0; i < VG_(sizeXA)(VG_(args_for_valgrind)); i++) {
        const HChar *arg = *(HChar **)VG_(indexXA)(VG_(args_for_valgrind), i);

        if (VG_(strncmp)(arg, "--read-inline-info=", 19) == 0)
            return True;
    }
    return False;
}

void rp_inline_init(void)
{
    deciding = !on_command_line();
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
