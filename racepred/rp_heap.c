/* rp_heap.c — the table of live heap blocks; see rp_heap.h. */
#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_stacktrace.h"

#include "rp_heap.h"
#include "rp_threads.h"
#include "rp_tool.h"

/* Frames kept for an allocation stack; the first one the unwinder returns
 * is the preload's malloc wrapper, which is dropped. */
#define RP_HEAP_MAX_FRAMES 64

typedef struct {
    struct _VgHashNode *next;
    UWord key;                /* first byte */
    SizeT size;               /* as requested */
    ExeContext *allocated_at;
    rp_tid_t owner;           /* the allocating thread */
} rp_block;

static VgHashTable *blocks;

void rp_heap_init(void)
{
    blocks = VG_(HT_construct)("rp.heap.blocks");
}

/* The stack of the malloc call: the client's frames only, starting at the
 * caller of malloc. */
static ExeContext *allocation_stack(ThreadId vg_tid)
{
    Addr ips[RP_HEAP_MAX_FRAMES];
    UInt wanted = VG_(clo_backtrace_size) + 1;
    UInt n;

    if (wanted > RP_HEAP_MAX_FRAMES)
        wanted = RP_HEAP_MAX_FRAMES;
    n = VG_(get_StackTrace)(vg_tid, ips, wanted, NULL, NULL, 0);
    if (n <= 1)
        return VG_(null_ExeContext)();
    return VG_(make_ExeContext_from_StackTrace)(ips + 1, n - 1);
}

void rp_heap_block_new(ThreadId vg_tid, Addr addr, SizeT size, SizeT usable)
{
    rp_tid_t tid = rp_threads_of_vg(vg_tid);
    rp_block *b = VG_(HT_remove)(blocks, addr);

    if (b == NULL)
        b = VG_(malloc)("rp.heap.block", sizeof *b);
    b->key = addr;
    b->size = size;
    b->allocated_at = allocation_stack(vg_tid);
    b->owner = tid;
    VG_(HT_add_node)(blocks, b);
    rp_tool_emit(RP_EV_FORGET, tid, addr,
                 usable > UINT32_MAX ? UINT32_MAX : (uint32_t)usable, 0);
}

void rp_heap_block_resized(Addr addr, SizeT size)
{
    rp_block *b = VG_(HT_lookup)(blocks, addr);

    if (b != NULL)
        b->size = size;
}

void rp_heap_block_free(Addr addr)
{
    VG_(free)(VG_(HT_remove)(blocks, addr));
}

Bool rp_heap_describe(Addr addr, AddrInfo *ai)
{
    const rp_block *b;

    VG_(HT_ResetIter)(blocks);
    while ((b = VG_(HT_Next)(blocks)) != NULL) {
        if (addr < b->key || addr - b->key >= b->size)
            continue;
        ai->tag = Addr_Block;
        ai->Addr.Block.block_kind = Block_Mallocd;
        ai->Addr.Block.block_desc = "block";
        ai->Addr.Block.block_szB = b->size;
        ai->Addr.Block.rwoffset = (PtrdiffT)(addr - b->key);
        ai->Addr.Block.allocated_at = b->allocated_at;
        VG_(initThreadInfo)(&ai->Addr.Block.alloc_tinfo);
        ai->Addr.Block.alloc_tinfo.tnr = b->owner + 1;
        ai->Addr.Block.freed_at = VG_(null_ExeContext)();
        return True;
    }
    return False;
}
