/* rp_privblocks.c — the client's private heap blocks; see rp_privblocks.h. */
#include "pub_tool_basics.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"

#include "rp_privblocks.h"
#include "rp_record.h"
#include "rp_stacks.h"
#include "rp_threads.h"

Bool rp_privblocks_enabled = True;
Bool rp_privblocks_active;
/* Until the heap is made (never with --private-heap=no), the helpers'
 * tag test reads a zero word, which no access matches. */
static uint64_t no_tags[1];
rp_privheap rp_privblocks_heap = { .tags = no_tags };
/* Before the first switch: owner 0, a key no tag holds. */
uint64_t rp_privblocks_tag_key = 0xff;
Addr rp_privblocks_env_lo;
UWord rp_privblocks_env_span;

static Bool heap_made;
static ULong n_foreign, bytes_made, n_stores;

static void publish_envelope(void)
{
    rp_privblocks_env_lo = rp_privblocks_active ? rp_privblocks_heap.env_lo : 0;
    rp_privblocks_env_span = rp_privblocks_active
                             ? rp_privblocks_heap.env_hi - rp_privblocks_heap.env_lo : 0;
}

void rp_privblocks_switch(rp_tid_t tid)
{
    rp_privblocks_tag_key = privheap_tag_key(tid);
}

void rp_privblocks_set_engine(rp_engine *eng)
{
    rp_privblocks_active = rp_privblocks_enabled && eng != NULL && eng->repeats != NULL
                           && !rp_record_enabled;
    if (rp_privblocks_active && !heap_made) {
        privheap_init(&rp_privblocks_heap);
        heap_made = True;
    }
    publish_envelope();
}

/* Blocks escaped whose stack addresses are not looked for yet: [lo, hi)
 * pairs. */
static Addr *pending;
static UInt n_pending, cap_pending;
static Bool settling;

/* A block escapes: its accesses are events from now on (none of its
 * owner's reached the filter of repeats while it was private), and the
 * frames it points to, if an address of one was stored in it, are shared
 * once the core is done (settle). */
static void queue_escaped(void *ctx, uint64_t lo, uint64_t size, bool holds_frames)
{
    (void)ctx;
    if (!holds_frames)
        return;
    if (n_pending + 2 > cap_pending) {
        cap_pending = cap_pending == 0 ? 32 : 2 * cap_pending;
        pending = VG_(realloc)("rp.privblocks.pending", pending, cap_pending * sizeof *pending);
    }
    pending[n_pending++] = lo;
    pending[n_pending++] = lo + size;
}

/* The frames the escaped blocks point to are shared, which may make more
 * blocks escape (rp_stacks_escape_pointed scans the frames it shares). */
static void settle(void)
{
    if (settling)
        return;
    settling = True;
    while (n_pending > 0) {
        Addr hi = pending[--n_pending];
        Addr lo = pending[--n_pending];

        rp_stacks_escape_pointed(lo, hi);
    }
    settling = False;
}

void rp_privblocks_new(rp_tid_t tid, Addr addr, SizeT usable)
{
    if (!rp_privblocks_active)
        return;
    if (privheap_block_new(&rp_privblocks_heap, tid, addr, usable)) {
        bytes_made += usable;
        publish_envelope();
    }
}

Bool rp_privblocks_moved(rp_tid_t tid, Addr old, Addr addr, SizeT usable)
{
    rp_privheap *h = &rp_privblocks_heap;
    ULong made;
    UInt owner;

    if (!rp_privblocks_active)
        return False;
    made = h->n_made;
    owner = privheap_block_moved(h, tid, old, addr, usable, queue_escaped, NULL);
    if (h->n_made > made)
        bytes_made += usable;
    publish_envelope();
    if (owner != RP_PRIVHEAP_NONE && owner != tid)
        n_foreign++;
    settle();
    return owner == tid;
}

Bool rp_privblocks_freed(rp_tid_t tid, Addr addr)
{
    UInt owner;

    if (!rp_privblocks_active)
        return False;
    owner = privheap_block_gone(&rp_privblocks_heap, addr);
    if (owner != RP_PRIVHEAP_NONE && owner != tid)
        n_foreign++;
    return owner == tid;
}

/* The block holding addr escapes if it is another thread's. */
static void escape_if_foreign(rp_tid_t tid, Addr addr)
{
    uint32_t i = privheap_find(&rp_privblocks_heap, addr);

    if (i == 0 || rp_privblocks_heap.blocks[i - 1].owner == tid)
        return;
    n_foreign++;
    privheap_escape_at(&rp_privblocks_heap, addr, queue_escaped, NULL);
}

void rp_privblocks_foreign(rp_tid_t tid, Addr addr, UWord size)
{
    escape_if_foreign(tid, addr);
    if (size > 1)
        escape_if_foreign(tid, addr + size - 1);
    settle();
}

void rp_privblocks_store(Addr addr, UWord value)
{
    if (!rp_privblocks_active)
        return;
    n_stores++;
    privheap_store(&rp_privblocks_heap, rp_threads_current, addr, value, queue_escaped, NULL);
    settle();
}

void rp_privblocks_copied(rp_tid_t tid, Addr dst, Addr src, SizeT n)
{
    rp_privheap *h = &rp_privblocks_heap;

    if (!rp_privblocks_active)
        return;
    /* Into one private block of the copying thread: nothing leaves. */
    if (rp_privblocks_owned(tid, dst, n))
        return;
    privheap_scan(h, tid, src, src + n, queue_escaped, NULL);
    settle();
}

void rp_privblocks_value_leaves(rp_tid_t tid, Addr value)
{
    if (!rp_privblocks_active)
        return;
    privheap_store(&rp_privblocks_heap, tid, 0, value, queue_escaped, NULL);
    settle();
}

void rp_privblocks_sent(rp_tid_t tid, Addr lo, Addr hi)
{
    if (!rp_privblocks_active)
        return;
    privheap_scan(&rp_privblocks_heap, tid, lo, hi, queue_escaped, NULL);
    settle();
}

void rp_privblocks_note_frame_address(Addr addr)
{
    privheap_note_frame_address(&rp_privblocks_heap, addr);
}

void rp_privblocks_scan(Addr lo, Addr hi)
{
    if (!rp_privblocks_active)
        return;
    privheap_scan(&rp_privblocks_heap, RP_PRIVHEAP_NONE, lo, hi, queue_escaped, NULL);
    settle();
}

void rp_privblocks_escape_thread(rp_tid_t tid)
{
    if (!rp_privblocks_active)
        return;
    privheap_escape_owner(&rp_privblocks_heap, tid);
}

void rp_privblocks_print_stats(void)
{
    if (!heap_made)
        return;
    VG_(umsg)("racepred: %llu private heap blocks (%llu bytes), %llu escaped, %llu of "
              "them reached by another thread before an escape was seen; %llu stored "
              "words looked up\n",
              (ULong)rp_privblocks_heap.n_made, bytes_made, (ULong)rp_privblocks_heap.n_escaped,
              n_foreign, n_stores);
}
