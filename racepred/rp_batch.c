/* rp_batch.c — one helper call for several plain accesses (rp_batch.h). */
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"

#include "rp_batch.h"
#include "rp_privblocks.h"
#include "rp_stacks.h"
#include "rp_threads.h"

ULong rp_batch_calls, rp_batch_accesses;

/* Whether access k needs nothing: to the running thread's private stack,
 * or to a private block its page's tag answers for; the sized helper
 * tests all that again, and the rest. */
static inline __attribute__((always_inline))
Bool batched_private(const rp_access_batch *b, UInt k, Addr addr)
{
    return rp_stacks_is_private(addr, b->size[k])
        || privheap_tag_owns(&rp_privblocks_heap, rp_privblocks_tag_key, addr, b->size[k]);
}

static inline __attribute__((always_inline))
void on_batched(const rp_access_batch *b, UInt k, Addr addr)
{
    if (!batched_private(b, k, addr))
        b->helper[k](addr, b->site[k]);
}

static void on_batch2(const rp_access_batch *b, Addr a0, Addr a1)
{
    on_batched(b, 0, a0);
    on_batched(b, 1, a1);
}

static void on_batch3(const rp_access_batch *b, Addr a0, Addr a1, Addr a2)
{
    on_batched(b, 0, a0);
    on_batched(b, 1, a1);
    on_batched(b, 2, a2);
}

static void on_batch4(const rp_access_batch *b, Addr a0, Addr a1, Addr a2, Addr a3)
{
    on_batched(b, 0, a0);
    on_batched(b, 1, a1);
    on_batched(b, 2, a2);
    on_batched(b, 3, a3);
}

static void on_batch5(const rp_access_batch *b, Addr a0, Addr a1, Addr a2, Addr a3, Addr a4)
{
    on_batched(b, 0, a0);
    on_batched(b, 1, a1);
    on_batched(b, 2, a2);
    on_batched(b, 3, a3);
    on_batched(b, 4, a4);
}

/* The batches kept: an open-addressing set, half full at most. */
static const rp_access_batch **kept;
static UInt kept_cap, n_kept;

static UInt batch_hash(const rp_access_batch *b)
{
    const UChar *p = (const UChar *)b;
    UInt h = 2166136261u;
    SizeT i;

    for (i = 0; i < sizeof *b; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

static UInt kept_slot(const rp_access_batch *b)
{
    UInt i = batch_hash(b) & (kept_cap - 1);

    while (kept[i] != NULL && VG_(memcmp)(kept[i], b, sizeof *b) != 0)
        i = (i + 1) & (kept_cap - 1);
    return i;
}

static void kept_grow(void)
{
    const rp_access_batch **old = kept;
    UInt old_cap = kept_cap, i;

    kept_cap = old_cap == 0 ? 1024 : 2 * old_cap;
    kept = VG_(calloc)("rp.batch.kept", kept_cap, sizeof *kept);
    for (i = 0; i < old_cap; i++)
        if (old[i] != NULL)
            kept[kept_slot(old[i])] = old[i];
    if (old != NULL)
        VG_(free)(old);
}

/* The kept batch equal to b (whose unused entries are zero). */
static const rp_access_batch *keep(const rp_access_batch *b)
{
    rp_access_batch *copy;
    UInt i;

    if (2 * (n_kept + 1) > kept_cap)
        kept_grow();
    i = kept_slot(b);
    if (kept[i] == NULL) {
        copy = VG_(malloc)("rp.batch.one", sizeof *copy);
        *copy = *b;
        kept[i] = copy;
        n_kept++;
    }
    return kept[i];
}

UInt rp_batch_kept(void)
{
    return n_kept;
}

IRDirty *rp_batch_call(const rp_access_batch *b, IRExpr **addrs)
{
    static const HChar *const names[] = { "rp_on_batch2", "rp_on_batch3", "rp_on_batch4",
                                          "rp_on_batch5" };
    static void *const fns[] = { &on_batch2, &on_batch3, &on_batch4, &on_batch5 };
    IRExpr *kb = mkIRExpr_HWord((HWord)keep(b));
    IRExpr **args;

    tl_assert(b->n >= 2 && b->n <= RP_BATCH_MAX);
    rp_batch_calls++;
    rp_batch_accesses += b->n;
    switch (b->n) {
    case 2: args = mkIRExprVec_3(kb, addrs[0], addrs[1]); break;
    case 3: args = mkIRExprVec_4(kb, addrs[0], addrs[1], addrs[2]); break;
    case 4: args = mkIRExprVec_5(kb, addrs[0], addrs[1], addrs[2], addrs[3]); break;
    default: args = mkIRExprVec_6(kb, addrs[0], addrs[1], addrs[2], addrs[3], addrs[4]); break;
    }
    return unsafeIRDirty_0_N(0, names[b->n - 2], VG_(fnptr_to_fnentry)(fns[b->n - 2]), args);
}
