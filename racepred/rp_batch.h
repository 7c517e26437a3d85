/* rp_batch.h — several plain accesses of a superblock passed on by one
 * helper call.
 *
 * A helper call costs about what a helper's test of a private access
 * does (pbzip2: 810 M calls, 98 % of them to the thread's private stack
 * or private blocks), so rp_instrument gathers up to RP_BATCH_MAX plain
 * accesses of a superblock and calls one batch helper after the last of
 * them, with their addresses: it tests each for the private parts and
 * calls the access's own sized helper for those that are not.  No other
 * thread runs within a superblock, so the events are the same and in the
 * same order; rp_instrument ends a batch wherever they are needed at once
 * (an exit, another helper, a write of SP or FP, from which the report
 * takes the access's stack).
 *
 * What the call does not carry in registers — each access's size,
 * instruction and sized helper — is a batch kept for the life of the
 * tool: equal batches are kept once, so a block translated again (after
 * a discard) adds nothing. */
#ifndef RP_BATCH_H
#define RP_BATCH_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

/* The arguments of a call: the batch, then one address per access. */
#define RP_BATCH_MAX 5

/* A sized access helper: (address, instruction). */
typedef void (*rp_access_helper)(Addr addr, Addr site);

typedef struct rp_access_batch {
    UInt n;
    UInt size[RP_BATCH_MAX];
    Addr site[RP_BATCH_MAX];
    rp_access_helper helper[RP_BATCH_MAX];
} rp_access_batch;

/* The call for b's 2 to RP_BATCH_MAX accesses, at addrs (flat IR atoms). */
IRDirty *rp_batch_call(const rp_access_batch *b, IRExpr **addrs);

/* Batch calls put in the code and the accesses they pass on (counted
 * once per translation), and batches kept (-v). */
extern ULong rp_batch_calls, rp_batch_accesses;
UInt rp_batch_kept(void);

#endif
