/* rp_reserve.h — address space held back for Valgrind, released when the
 * program runs out.
 *
 * Under an address-space limit (ulimit -v), Valgrind, racepred and the
 * program share one budget.  When the program's own allocations exhaust
 * it, whichever allocates next fails: the program's mmap (it gets ENOMEM,
 * as natively) or one of Valgrind's (a 4 MiB arena superblock, a
 * translation-table sector), which ends the run with Valgrind's
 * out-of-memory report.  A program that allocates memory it never
 * touches grows no shadow memory, so --max-memory cannot see it coming.
 *
 * So racepred holds back a reserve at start (an untouched anonymous
 * mapping: address space, no resident memory) and keeps the program from
 * using it.  The first mmap or mremap of the program that fails with
 * ENOMEM while less than the reserve is left under the limit gives the
 * reserve back and stops race detection (its shadow memory is freed at
 * the next event), with one line saying so: what Valgrind needs while
 * the program's failure path runs then fits in the reserve.  A request
 * that fails with more than the reserve still free (one too large for
 * any space) leaves it alone: Valgrind has that room anyway.
 */
#ifndef RP_RESERVE_H
#define RP_RESERVE_H

#include "pub_tool_basics.h"

/* After every system call (rp_syscalls.c): a failed mmap or mremap may
 * have been the program running out. */
void rp_reserve_post_syscall(UInt syscallno, SysRes res);

/* Holds back the reserve when the run has an address-space limit
 * (as_limit bytes, 0 for none). */
void rp_reserve_init(ULong as_limit);

/* Whether the program ran out of address space (the stop's reason). */
extern Bool rp_reserve_exhausted;

#endif
