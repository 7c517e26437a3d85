/* rp_privblocks.h — the client's private heap blocks (core/rp_privheap.h)
 * as the tool uses them: the malloc wrappers make them (rp_heap.c), the
 * access helpers skip their owner's accesses before the filter of repeats
 * (rp_instrument.c), and so do libc's and the kernel's (rp_libc.c); what
 * lets an address of one leave its thread is reported here: a store of
 * one (checked in the translated code), a stack range that becomes shared
 * (rp_stacks.c), a thread creation, a system call that sends data, the
 * owner's end.
 */
#ifndef RP_PRIVBLOCKS_H
#define RP_PRIVBLOCKS_H

#include "pub_tool_basics.h"
#include "rp_engine.h"
#include "rp_privheap.h"

/* --private-heap (default yes). */
extern Bool rp_privblocks_enabled;

/* Whether private blocks are kept now: the option, with an engine that
 * filters repeats (its detectors' verdicts depend on the thread's clocks
 * and the bytes alone: repeat_safe), and no trace recorded. */
extern Bool rp_privblocks_active;

/* The blocks themselves, for the helpers' inline test. */
extern rp_privheap rp_privblocks_heap;

/* The running thread's key to the page tags (privheap_tag_key), kept by
 * rp_privblocks_switch for the access helpers' test. */
extern uint64_t rp_privblocks_tag_key;

/* tid gets the CPU. */
void rp_privblocks_switch(rp_tid_t tid);

/* Every private block ever made lies in [rp_privblocks_env_lo,
 * rp_privblocks_env_lo + rp_privblocks_env_span): what the translated code
 * compares a stored word with before calling rp_privblocks_store (span 0:
 * none). */
extern Addr rp_privblocks_env_lo;
extern UWord rp_privblocks_env_span;

/* Detection starts with this engine (NULL: detection ends). */
void rp_privblocks_set_engine(rp_engine *eng);

/* `tid` got [addr, addr + usable) from the allocator. */
void rp_privblocks_new(rp_tid_t tid, Addr addr, SizeT usable);

/* `tid`'s realloc left the block at old as [addr, addr + usable)
 * (privheap_block_moved; addr == old: in place): True if it was tid's
 * private block. */
Bool rp_privblocks_moved(rp_tid_t tid, Addr old, Addr addr, SizeT usable);

/* `tid` frees the block at addr: True if it was tid's private block, which
 * no other thread can have accessed (its free writes nothing then). */
Bool rp_privblocks_freed(rp_tid_t tid, Addr addr);

/* Whether [addr, addr + size) lies in one private block of tid's. */
static inline Bool rp_privblocks_owned(rp_tid_t tid, Addr addr, UWord size)
{
    uint32_t i = privheap_find(&rp_privblocks_heap, addr);

    return i != 0 && rp_privblocks_heap.blocks[i - 1].owner == tid
        && (size <= 1 || privheap_find(&rp_privblocks_heap, addr + size - 1) == i);
}

/* `tid` accesses [addr, addr + size), which is not in one private block of
 * its own: a private block of another thread that holds either end
 * escapes now (an address of it left its owner unseen). */
void rp_privblocks_foreign(rp_tid_t tid, Addr addr, UWord size);

/* Whether tid's access of [addr, addr + size) is no event: it lies in one
 * of tid's private blocks (rp_privblocks_foreign otherwise). */
static inline Bool rp_privblocks_skip(rp_tid_t tid, Addr addr, UWord size)
{
    rp_privheap *h = &rp_privblocks_heap;
    uint32_t first, last;

    if (!rp_privblocks_active || !privheap_in_envelope(h, addr))
        return False;
    first = privheap_find(h, addr);
    last = size <= 1 ? first : privheap_find(h, addr + size - 1);
    if (first == 0 && last == 0)
        return False;
    if (first == last && h->blocks[first - 1].owner == tid)
        return True;
    rp_privblocks_foreign(tid, addr, size);
    return False;
}

/* The running thread stores `value` at addr, which is not in its private
 * stack. */
void rp_privblocks_store(Addr addr, UWord value);

/* `tid` copies n bytes from src to dst (a wrapped memcpy, which the
 * translated code does not see store): the blocks the copied words point
 * to escape unless dst is tid's private page. */
void rp_privblocks_copied(rp_tid_t tid, Addr dst, Addr src, SizeT n);

/* A stack address is stored at addr, in one of the running thread's
 * private blocks: no stack escape until the block's own. */
void rp_privblocks_note_frame_address(Addr addr);

/* `value` leaves tid (a thread's argument): the private block of tid's
 * it points into escapes, with what it points to. */
void rp_privblocks_value_leaves(rp_tid_t tid, Addr value);

/* `tid` sends [lo, hi) out (a write, a send): the blocks of its own that
 * the words point to escape. */
void rp_privblocks_sent(rp_tid_t tid, Addr lo, Addr hi);

/* [lo, hi) becomes shared (a stack range): the blocks it points to escape. */
void rp_privblocks_scan(Addr lo, Addr hi);

/* Every private block of `tid` escapes (it creates a thread, sends data
 * out, ends). */
void rp_privblocks_escape_thread(rp_tid_t tid);

/* -v: how many blocks were private, escaped, reached unseen; how many
 * stored words the translated code had looked up. */
void rp_privblocks_print_stats(void);

#endif
