/* rp_stacks.c — each thread's private stack (rp_stacks.h). */
#include "pub_tool_basics.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"

#include "rp_heap.h"
#include "rp_privstack.h"
#include "rp_privblocks.h"
#include "rp_stacks.h"
#include "rp_threads.h"

Bool rp_stacks_enabled = True;
Bool rp_stacks_skip_alone = True;

/* No value the translated code compares with is this (non-canonical). */
#define NO_STACK ((Addr)0x8000000000000001ULL)

Addr rp_stacks_lo = NO_STACK;
UWord rp_stacks_span;
UWord rp_stacks_private_span;

/* Per Valgrind thread (VG_N_THREADS entries, made at the first use):
 * its stack, none until it is first known. */
static rp_privstack *stacks;

static void make_table(void)
{
    ThreadId tid;

    if (stacks != NULL)
        return;
    stacks = VG_(malloc)("rp.stacks", VG_N_THREADS * sizeof *stacks);
    for (tid = 0; tid < VG_N_THREADS; tid++)
        privstack_none(&stacks[tid]);
}

Bool rp_stacks_skipping_alone(void)
{
    return rp_stacks_skip_alone && rp_threads_alone();
}

/* Every address private (rp_stacks_alone_begins). */
static void publish_alone(void)
{
    rp_stacks_lo = 0;
    rp_stacks_span = 0;
    rp_stacks_private_span = ~(UWord)0;
}

static void publish_none(void)
{
    rp_stacks_lo = NO_STACK;
    rp_stacks_span = rp_stacks_private_span = 0;
}

/* The running thread's stack into the globals. */
static void publish(const rp_privstack *s)
{
    if (rp_stacks_skipping_alone()) {
        publish_alone();
        return;
    }
    if (s->lo > s->hi) {
        publish_none();
        return;
    }
    rp_stacks_lo = s->lo;
    rp_stacks_span = s->hi - s->lo;
    rp_stacks_private_span = s->shared_from - s->lo;
}

/* Valgrind's idea of the thread's stack: [stack_max - size + 1,
 * stack_max], the mapping the thread's SP was in at its start, up to that
 * SP (a main stack grows down within it). */
static rp_privstack *stack_of(ThreadId tid)
{
    rp_privstack *s;
    Addr hi = VG_(thread_get_stack_max)(tid);
    SizeT size = VG_(thread_get_stack_size)(tid);

    make_table();
    s = &stacks[tid];
    if (size == 0 || size > hi)
        privstack_none(s);
    else if (s->lo > s->hi || s->hi != hi)
        privstack_init(s, hi - size + 1, hi);
    else if (s->lo != hi - size + 1)
        privstack_set_lo(s, hi - size + 1);
    return s;
}

void rp_stacks_alone_begins(void)
{
    if (rp_stacks_skipping_alone())
        publish_alone();
}

void rp_stacks_alone_ends(ThreadId parent)
{
    if (rp_stacks_enabled)
        publish(stack_of(parent));
    else
        publish_none();
}

void rp_stacks_switch(ThreadId tid)
{
    rp_privstack *s;
    uint64_t was;

    if (!rp_stacks_enabled) {
        if (rp_stacks_skipping_alone())
            publish_alone();
        return;
    }
    s = stack_of(tid);
    was = privstack_popped(s, VG_(get_SP)(tid));
    if (was < s->shared_from && rp_threads_is_live(tid))
        rp_heap_fresh(rp_threads_of_vg(tid), was, s->shared_from - was);
    publish(s);
}

void rp_stacks_escape(ThreadId tid)
{
    rp_privstack *s;

    if (!rp_stacks_enabled)
        return;
    s = stack_of(tid);
    privstack_escape(s, VG_(get_SP)(tid), 0);
    if (tid == rp_threads_current_vg)
        publish(s);
}

void rp_stacks_forget(ThreadId tid)
{
    if (stacks != NULL)
        privstack_none(&stacks[tid]);
}

/* An address of tid's stack at or above `pointer` (0: none in
 * particular) leaves it (privstack_escape).  What the live frames shared
 * now hold may be read by other threads: the private heap blocks they
 * point to escape (rp_privblocks.h).  The part shared before needs no
 * scan (its words were scanned when it was shared, and every store into
 * it since was checked), nor what lies below the stack pointer and its
 * red zone (frames that returned). */
static void share_from(ThreadId tid, rp_privstack *s, Addr pointer)
{
    Addr was = s->shared_from, sp = VG_(get_SP)(tid), from;

    privstack_escape(s, sp, pointer);
    if (tid == rp_threads_current_vg)
        publish(s);
    from = s->shared_from;
    if (privstack_holds(s, sp) && sp - s->lo > RP_PRIVSTACK_REDZONE
        && from < sp - RP_PRIVSTACK_REDZONE)
        from = sp - RP_PRIVSTACK_REDZONE;
    if (from < was)
        rp_privblocks_scan(from, was);
}

/* The lowest address of tid's stack that an aligned word of [lo, hi)
 * holds, or 0. */
static Addr lowest_pointed(const rp_privstack *s, Addr lo, Addr hi)
{
    Addr lowest = 0, a;

    for (a = (lo + 7) & ~(Addr)7; a + 8 <= hi && a + 8 > a; a += 8) {
        Addr value = *(const Addr *)a;

        if (privstack_holds(s, value) && (lowest == 0 || value < lowest))
            lowest = value;
    }
    return lowest;
}

/* tid's frames that an aligned word of [lo, hi) points into are shared,
 * from the lowest such address up. */
static void share_pointed(ThreadId tid, Addr lo, Addr hi)
{
    rp_privstack *s = stack_of(tid);
    Addr lowest = lowest_pointed(s, lo, hi);

    if (lowest != 0)
        share_from(tid, s, lowest);
}

void rp_stacks_escape_pointed(Addr lo, Addr hi)
{
    ThreadId tid;

    if (!rp_stacks_enabled || stacks == NULL)
        return;
    for (tid = 1; tid < VG_N_THREADS; tid++)
        if (rp_threads_is_live(tid) && stacks[tid].lo <= stacks[tid].hi)
            share_pointed(tid, lo, hi);
}

void rp_stacks_value_leaves(ThreadId tid, Addr value)
{
    rp_privstack *s;

    if (!rp_stacks_enabled || stacks == NULL || !rp_threads_is_live(tid))
        return;
    s = stack_of(tid);
    if (privstack_is_private(s, value))
        share_from(tid, s, value);
}

void rp_stacks_sent(ThreadId tid, Addr lo, Addr hi)
{
    if (rp_stacks_enabled && stacks != NULL && rp_threads_is_live(tid))
        share_pointed(tid, lo, hi);
}

void rp_stacks_store(Addr addr, UWord value)
{
    ThreadId tid = rp_threads_current_vg;
    rp_privstack *s;

    if (stacks == NULL)
        return;
    /* Into a private block of the thread's own: its escape shares the
     * frame then (rp_stacks_escape_pointed). */
    if (rp_privblocks_owned(rp_threads_current, addr, sizeof value)) {
        rp_privblocks_note_frame_address(addr);
        return;
    }
    s = &stacks[tid];
    if (!privstack_store_escapes(s, addr, value, VG_(get_SP)(tid)))
        return;
    share_from(tid, s, value);
}
