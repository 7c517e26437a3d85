/* rp_heap.c — the table of live heap blocks; see rp_heap.h. */
#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_tooliface.h"

#include "rp_atomics.h"
#include "rp_filter.h"
#include "rp_heap.h"
#include "rp_lockwords.h"
#include "rp_locks.h"
#include "rp_site.h"
#include "rp_privblocks.h"
#include "rp_stacks.h"
#include "rp_threads.h"
#include "rp_tool.h"

/* Frames taken for an allocation stack; the first one the unwinder returns
 * is the preload's malloc wrapper, which is dropped. */
#define RP_HEAP_MAX_FRAMES 64

typedef struct {
    struct _VgHashNode *next;
    UWord key;                /* first byte */
    SizeT size;               /* as requested */
    SizeT usable;             /* malloc_usable_size: bytes the block owns */
    ExeContext *allocated_at;
    rp_tid_t owner;           /* the allocating thread */
} rp_block;

/* The blocks freed last, so that a report of a race with a free, made
 * after it, still names the block ("inside a block of size 16 free'd")
 * rather than whatever segment the address is in now.  A ring: the
 * oldest goes first; a live block wins over a freed one at the address. */
#define FREED_KEPT 1024

typedef struct {
    Addr key;
    SizeT size;
    ExeContext *allocated_at;
    Addr freed_from;          /* the free's caller */
    rp_tid_t owner;
} freed_block;

/* Whether the block of `size` bytes at `key` holds addr. */
static inline Bool block_holds(Addr key, SizeT size, Addr addr)
{
    return addr >= key && addr - key < size;
}

static freed_block freed[FREED_KEPT];
static UInt freed_next, freed_count;

static void freed_remember(const rp_block *b, Addr caller)
{
    freed[freed_next] = (freed_block){ b->key, b->size, b->allocated_at, caller, b->owner };
    freed_next = (freed_next + 1) % FREED_KEPT;
    if (freed_count < FREED_KEPT)
        freed_count++;
}

/* The block freed last that held addr, or NULL. */
static const freed_block *freed_find(Addr addr)
{
    for (UInt i = 1; i <= freed_count; i++) {
        const freed_block *f = &freed[(freed_next + FREED_KEPT - i) % FREED_KEPT];
        if (block_holds(f->key, f->size, addr))
            return f;
    }
    return NULL;
}

static VgHashTable *blocks;

void rp_heap_fresh(rp_tid_t tid, Addr addr, SizeT len)
{
    rp_atomics_forget(addr, len);
    rp_lockwords_forget(addr, len);
    rp_tool_emit_range(RP_EV_FORGET, tid, addr, len, 0);
}

/* [addr, addr + len) is fresh memory (the core's trackers). */
static void forget_range(Addr addr, SizeT len)
{
    rp_heap_fresh(rp_threads_current, addr, len);
}

/* A mapping is new memory whatever was mapped there before (a file, a
 * thread's stack, an allocator's arena): the new user's accesses must not
 * pair with the previous mapping's.  The range is forgotten both when it
 * is unmapped (the detectors drop its history) and when it is mapped again
 * (in case an unmapping went unseen: mmap with MAP_FIXED over a mapping).
 * The same for memory the break gives and takes back. */
static void on_new_mem_mmap(Addr addr, SizeT len, Bool rr, Bool ww, Bool xx,
                            ULong di_handle)
{
    (void)rr;
    (void)ww;
    (void)xx;
    (void)di_handle;
    forget_range(addr, len);
}

static void on_new_mem_brk(Addr addr, SizeT len, ThreadId tid)
{
    (void)tid;
    forget_range(addr, len);
}

void rp_heap_init(void)
{
    blocks = VG_(HT_construct)("rp.heap.blocks");
    VG_(track_new_mem_mmap)(on_new_mem_mmap);
    VG_(track_die_mem_munmap)(forget_range);
    VG_(track_new_mem_brk)(on_new_mem_brk);
    VG_(track_die_mem_brk)(forget_range);
}

/* Whether the frame at `ip` is C++'s operator new or new[] (any variant),
 * demangled or not: it got the block from malloc or memalign on the
 * program's behalf. */
static Bool is_operator_new(Addr ip)
{
    const HChar *name;

    if (!VG_(get_fnname)(VG_(current_DiEpoch)(), ip, &name))
        return False;
    return VG_(strncmp)(name, "operator new", 12) == 0
        || VG_(strncmp)(name, "_Znw", 4) == 0
        || VG_(strncmp)(name, "_Zna", 4) == 0;
}

/* The stack of the allocation: the client's frames only, starting at the
 * caller of malloc, or of operator new when the block is C++'s (the frames
 * of the preload's wrapper and of libstdc++'s operator new say nothing
 * about where in the program the block came from). */
static ExeContext *allocation_stack(ThreadId vg_tid)
{
    Addr ips[RP_HEAP_MAX_FRAMES];
    UInt wanted = VG_(clo_backtrace_size) + 2;
    UInt n, first = 1;

    if (wanted > RP_HEAP_MAX_FRAMES)
        wanted = RP_HEAP_MAX_FRAMES;
    n = VG_(get_StackTrace)(vg_tid, ips, wanted, NULL, NULL, 0);
    if (n > first + 1 && is_operator_new(ips[first]))
        first++;
    if (n <= first)
        return VG_(null_ExeContext)();
    if (n - first > (UInt)VG_(clo_backtrace_size))
        n = first + (UInt)VG_(clo_backtrace_size);
    return VG_(make_ExeContext_from_StackTrace)(ips + first, n - first);
}

/* The block's entry for reports, and its memory fresh. */
static void record_block(ThreadId vg_tid, rp_tid_t tid, Addr addr, SizeT size, SizeT usable)
{
    rp_block *b = VG_(HT_remove)(blocks, addr);

    if (b == NULL)
        b = VG_(malloc)("rp.heap.block", sizeof *b);
    b->key = addr;
    b->size = size;
    b->usable = usable;
    b->allocated_at = allocation_stack(vg_tid);
    b->owner = tid;
    VG_(HT_add_node)(blocks, b);
    rp_heap_fresh(tid, addr, usable);
}

void rp_heap_block_new(ThreadId vg_tid, Addr addr, SizeT size, SizeT usable)
{
    rp_tid_t tid = rp_threads_of_vg(vg_tid);

    record_block(vg_tid, tid, addr, size, usable);
    rp_privblocks_new(tid, addr, usable);
}

void rp_heap_block_resized(ThreadId vg_tid, Addr addr, SizeT size, SizeT usable)
{
    rp_block *b = VG_(HT_lookup)(blocks, addr);

    if (b == NULL)
        return;
    /* Grown in place: the new tail was another block, or free memory,
     * until now; whatever was done to it is not this block's history. */
    if (usable > b->usable)
        rp_heap_fresh(rp_threads_of_vg(vg_tid), addr + b->usable, usable - b->usable);
    b->size = size;
    b->usable = usable;
    rp_privblocks_moved(rp_threads_of_vg(vg_tid), addr, addr, usable);
}

Bool rp_heap_free_is_write = True;

/* A free writes its block: whole up to 64 KiB; beyond that its first
 * bytes (a cache line: the fields of a list node or a struct) and only
 * the granules of the rest where some access reached the detectors since
 * the block was allocated (rp_engine_seen_parts).  The rest can race only
 * with a later access of memory no one used while it was allocated, and
 * every granule written costs a cell in every detector.  On a -O0 build
 * of zstd -T2, whose buffers are sized for the worst case, writing whole
 * blocks took 41 MB more (121 against 80 MB) and 0.3 s more CPU (2.0
 * against 1.7 s) under --detector=hb; two threads that each write every
 * 64th byte of a 2 MB block and free it, 400 times: 4.1-4.4 s with the
 * granules, 6.9-8.0 s with the 64 KiB parts any access reached (the rule
 * before), 2.0-2.6 s with --free-is-write=no.
 * A free made while its thread holds a lock writes the first bytes only:
 * the detectors with critical-section rules (wcp, dc, ...) keep what
 * every section wrote.  On sqlite3 (corpus.sh), which frees under its
 * mutex, writing whole blocks cost +75 % CPU and 4.4 times the memory
 * when those rules were kept per byte, 512 bytes +20 % CPU, 64 bytes
 * +8 %; with the rules per granule, whole blocks still cost +36 % memory
 * (80 -> 109 MB) and 0-20 % CPU. */
#define RP_HEAP_FREE_WHOLE_BYTES (64 << 10)
#define RP_HEAP_FREE_HEAD_BYTES 64

typedef struct {
    rp_tid_t tid;
    ULong site;
} free_write;

/* A free writes no value: where its thread's writes in this span cover
 * the part already (the filter's repeat), the detectors learn nothing
 * and a witness window needs no rewrite record, since a later read finds
 * what those writes left.  Listed as rewrites, a block filled and freed
 * cost two window records per granule (bench/fresh.c under the default
 * detectors: 26.2 M events, 13.1 M without the free's records). */
static void write_freed_part(void *ctx, uint64_t addr, uint64_t size)
{
    const free_write *w = ctx;
    rp_engine *eng = rp_tool_engine;

    if (eng == NULL || eng->repeats == NULL || size > UINT32_MAX) {
        rp_tool_emit_range(RP_EV_WRITE, w->tid, addr, size, w->site);
        return;
    }
    if (!rp_engine_drop_repeat(eng, w->tid, addr, (uint32_t)size, True, False))
        rp_tool_emit_kept_access(RP_EV_WRITE, w->tid, addr, (uint32_t)size, w->site);
}

static void write_freed_block(rp_tid_t tid, const rp_block *b, Addr caller)
{
    ULong tag = rp_locks_tag(tid);
    free_write w = { tid, (caller & RP_SITE_IP_MASK) | RP_SITE_FREE | tag };
    SizeT head = b->size > RP_HEAP_FREE_HEAD_BYTES ? RP_HEAP_FREE_HEAD_BYTES : b->size;

    if (tag == 0 && b->size <= RP_HEAP_FREE_WHOLE_BYTES)
        head = b->size;
    write_freed_part(&w, b->key, head);
    if (tag == 0 && b->size > head && rp_tool_engine != NULL)
        rp_engine_seen_parts(rp_tool_engine, b->key + head, b->size - head,
                             write_freed_part, &w);
}

/* The block at addr goes; was_private: it was private to tid, whose free
 * writes nothing (no other thread can have used it). */
static void withdraw_block(rp_tid_t tid, Addr addr, Addr caller, Bool was_private)
{
    /* Still in the table while it is written: a report describes the
     * address as inside it. */
    rp_block *b = VG_(HT_lookup)(blocks, addr);

    if (b == NULL)
        return;
    /* A free inside code racepred does not instrument (libc's own blocks,
     * rp_filter.h) is as invisible as that code's accesses; so is one of
     * a thread that ignores its writes, or of a thread alone. */
    if (rp_heap_free_is_write && !was_private && !rp_stacks_skipping_alone()
        && rp_filter_instruments(caller) && !(rp_threads_current_ignores & RP_IGNORE_WRITES))
        write_freed_block(tid, b, caller);
    freed_remember(b, caller);
    VG_(free)(VG_(HT_remove)(blocks, addr));
}

void rp_heap_block_free(ThreadId vg_tid, Addr addr, Addr caller)
{
    rp_tid_t tid = rp_threads_of_vg(vg_tid);

    withdraw_block(tid, addr, caller, rp_privblocks_freed(tid, addr));
}

void rp_heap_block_moved(ThreadId vg_tid, Addr old, Addr addr, SizeT size, SizeT usable,
                         Addr caller)
{
    rp_tid_t tid = rp_threads_of_vg(vg_tid);

    withdraw_block(tid, old, caller, rp_privblocks_moved(tid, old, addr, usable));
    record_block(vg_tid, tid, addr, size, usable);
}

static void describe_block(AddrInfo *ai, Addr addr, Addr key, SizeT size,
                           ExeContext *allocated_at, rp_tid_t owner, ExeContext *freed_at)
{
    ai->tag = Addr_Block;
    ai->Addr.Block.block_kind = freed_at != VG_(null_ExeContext)() ? Block_Freed : Block_Mallocd;
    ai->Addr.Block.block_desc = "block";
    ai->Addr.Block.block_szB = size;
    ai->Addr.Block.rwoffset = (PtrdiffT)(addr - key);
    ai->Addr.Block.allocated_at = allocated_at;
    VG_(initThreadInfo)(&ai->Addr.Block.alloc_tinfo);
    ai->Addr.Block.alloc_tinfo.tnr = owner + 1;
    ai->Addr.Block.freed_at = freed_at;
}

Bool rp_heap_describe(Addr addr, AddrInfo *ai)
{
    const rp_block *b;
    const freed_block *f;

    VG_(HT_ResetIter)(blocks);
    while ((b = VG_(HT_Next)(blocks)) != NULL) {
        if (!block_holds(b->key, b->size, addr))
            continue;
        describe_block(ai, addr, b->key, b->size, b->allocated_at, b->owner,
                       VG_(null_ExeContext)());
        return True;
    }
    f = freed_find(addr);
    if (f == NULL)
        return False;
    /* The free's own stack is in the report when the free raced; its
     * caller says which free this was. */
    describe_block(ai, addr, f->key, f->size, f->allocated_at, f->owner,
                   VG_(make_depth_1_ExeContext_from_Addr)(f->freed_from));
    return True;
}
