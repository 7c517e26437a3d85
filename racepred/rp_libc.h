/* rp_libc.h — accesses libc and the kernel make on the program's behalf.
 *
 * libc is not instrumented (rp_filter.h), so the bytes its memory and
 * string functions touch (memcpy's source and destination, strlen's
 * string) would be invisible, and a race made only through such a call
 * missed.  The preload does the memory and string functions' work itself
 * (rp_intercepts_string.c) and wraps the stdio ones
 * (rp_intercepts_stdio.c); each first tells the tool which bytes it will
 * read and write, and from where in the program it was called, through
 * an announcing nop the tool instruments with a call of rp_libc_access
 * (rp_preload.h, rp_instrument.c).  A client request, or a wrapper that
 * calls libc's function, costs half a microsecond per call, which made a
 * program that compares strings all the time (GNU sort) twice as slow.
 * The system-call hooks (rp_syscalls.c) do the
 * same for the kernel's accesses to the program's buffers.
 *
 * Either way the access is the calling thread's, named by the program's
 * instruction that called libc, so the earlier access of a report points
 * at the program's line.  A call libc makes to itself (fread copying out
 * of its stdio buffer, realloc moving a block) has no program caller and
 * stays invisible, like the rest of libc: libc orders its own buffers
 * with locks racepred does not see.
 */
#ifndef RP_LIBC_H
#define RP_LIBC_H

#include "pub_tool_basics.h"
#include "rp_event.h"

/* Emits a read or write (kind) of [addr, addr + size) by the live thread
 * vg_tid, made for the program's instruction at `ip`: nothing when ip is
 * not the program's code (an ignored object, the preload), when the
 * thread ignores accesses of that kind (ANNOTATE_IGNORE_*), under
 * --bench-floor, or when size is 0. */
void rp_libc_emit(ThreadId vg_tid, rp_event_kind kind, Addr addr, SizeT size, Addr ip);

/* An announcing nop: a libc function the program called from the return
 * address `caller` will read [read_addr, +read_size) and write
 * [write_addr, +write_size) (a size of 0: no such access). */
void rp_libc_access(ThreadId vg_tid, UWord read_addr, UWord read_size, UWord write_addr,
                    UWord write_size, Addr caller);

#endif
