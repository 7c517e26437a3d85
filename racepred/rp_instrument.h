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

IRSB *rp_instrument(VgCallbackClosure *closure, IRSB *sb_in,
                    const VexGuestLayout *layout,
                    const VexGuestExtents *vge,
                    const VexArchInfo *archinfo_host,
                    IRType gWordTy, IRType hWordTy);

#endif
