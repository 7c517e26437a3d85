/* rp_libc.c — accesses libc and the kernel make on the program's behalf
 * (rp_libc.h). */
#include "pub_tool_basics.h"

#include "rp_filter.h"
#include "rp_instrument.h"
#include "rp_libc.h"
#include "rp_locks.h"
#include "rp_site.h"
#include "rp_privblocks.h"
#include "rp_stacks.h"
#include "rp_threads.h"
#include "rp_tool.h"

void rp_libc_emit(ThreadId vg_tid, rp_event_kind kind, Addr addr, SizeT size, Addr ip)
{
    UInt ignored = kind == RP_EV_READ ? RP_IGNORE_READS : RP_IGNORE_WRITES;
    rp_tid_t tid;

    /* --bench-floor: nothing is detected, libc's accesses included; a
     * thread alone races with no one (rp_stacks.h). */
    if (size == 0 || rp_instrument_floor || rp_stacks_skipping_alone()
        || !rp_filter_instruments(ip))
        return;
    rp_threads_make_current(vg_tid);
    if (rp_threads_current_ignores & ignored)
        return;
    tid = rp_threads_of_vg(vg_tid);
    if (rp_privblocks_skip(tid, addr, size))
        return;
    rp_tool_emit_range(kind, tid, addr, size, (ip & RP_SITE_IP_MASK) | rp_locks_tag(tid));
}

void rp_libc_access(ThreadId vg_tid, UWord read_addr, UWord read_size, UWord write_addr,
                    UWord write_size, Addr caller)
{
    /* The call instruction, not the return address: its line. */
    Addr ip = caller - 1;

    if (!rp_threads_is_live(vg_tid) || caller == 0)
        return;
    /* A copy writes what it reads, addresses of private blocks too. */
    if (read_size != 0 && write_size != 0 && rp_tool_range_plausible(read_addr, read_size)
        && !rp_stacks_is_private(write_addr, write_size))
        rp_privblocks_copied(rp_threads_of_vg(vg_tid), write_addr, read_addr,
                             read_size < write_size ? read_size : write_size);
    /* A garbled announcing record must not make the engine walk terabytes. */
    if (rp_tool_range_plausible(read_addr, read_size))
        rp_libc_emit(vg_tid, RP_EV_READ, read_addr, read_size, ip);
    if (rp_tool_range_plausible(write_addr, write_size))
        rp_libc_emit(vg_tid, RP_EV_WRITE, write_addr, write_size, ip);
}
