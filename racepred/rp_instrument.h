/* rp_instrument.h — adds a helper call for every memory access of the
 * client (and, when a detector wants them, every conditional branch).
 * See the comment at the top of rp_instrument.c.
 */
#ifndef RP_INSTRUMENT_H
#define RP_INSTRUMENT_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

/* --bench-floor=yes: every access calls a helper that returns at once and
 * no detector sees anything — the cost of the instrumentation alone, for
 * benchmarks (bench/run.sh's "floor" column). */
extern Bool rp_instrument_floor;

/* --block-repeats: whether accesses that repeat one of their superblock
 * get no helper call (rp_blockrep.h; default yes). */
extern Bool rp_instrument_block_repeats;

/* --access-batches: whether up to five plain accesses of a superblock
 * share one helper call (rp_batch.h; default yes). */
extern Bool rp_instrument_batches;

/* --spin-loops: whether a load a spin loop polls is synchronisation
 * (rp_spin.h; default yes), and how many variables such loads made
 * synchronisation variables. */
extern Bool rp_instrument_spin_loops;
extern ULong rp_instrument_spin_variables;
/* Timeslices cut short because their thread spun (-v). */
extern ULong rp_instrument_spin_yields;

/* The engine the helpers feed (rp_tool_engine), or NULL when detection
 * ends: the helpers keep its filter of repeats one load away. */
struct rp_engine;
void rp_instrument_set_engine(struct rp_engine *eng);

/* The running thread (rp_threads_current) has changed: the filter's test
 * reads its stamp. */
void rp_instrument_switched(void);

/* The preload's announcing nops are listed in [first, last) (its
 * PRELOAD_HELLO, rp_preload.h): from now on each calls rp_libc_access
 * with the values in its registers. */
void rp_instrument_set_announce_sites(const Addr *first, const Addr *last);

/* The root thread has created the program's first thread (number 1,
 * rp_threads_count now 2).  Until then, while
 * --skip-alone holds, the code is translated without the calls and checks
 * that a thread alone does not need (rp_stacks.h): its plain accesses call
 * no helper, its stores check no stack address.  Those translations go
 * here, so that every access is seen from now on.  Called during the
 * clone system call (Valgrind's ll_create hook), when no translation
 * runs. */
void rp_instrument_alone_ends(void);

IRSB *rp_instrument(VgCallbackClosure *closure, IRSB *sb_in,
                    const VexGuestLayout *layout,
                    const VexGuestExtents *vge,
                    const VexArchInfo *archinfo_host,
                    IRType gWordTy, IRType hWordTy);

#endif
