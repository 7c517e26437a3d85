/* rp_privstack.c — the private part of a thread's stack (rp_privstack.h). */
#include "rp_privstack.h"

void privstack_init(rp_privstack *s, uint64_t lo, uint64_t hi)
{
    s->lo = lo;
    s->hi = hi;
    s->shared_from = hi + 1;
}

void privstack_none(rp_privstack *s)
{
    s->lo = 1;
    s->hi = 0;
    s->shared_from = 1;
}

void privstack_set_lo(rp_privstack *s, uint64_t lo)
{
    if (s->lo > s->hi || lo > s->hi)
        return;
    if (s->shared_from == s->lo || s->shared_from < lo)
        s->shared_from = lo;
    s->lo = lo;
}

/* The lowest address a live frame may use while the stack pointer is sp. */
static uint64_t live_from(const rp_privstack *s, uint64_t sp)
{
    return sp - s->lo < RP_PRIVSTACK_REDZONE ? s->lo : sp - RP_PRIVSTACK_REDZONE;
}

bool privstack_store_escapes(const rp_privstack *s, uint64_t addr, uint64_t value,
                             uint64_t sp)
{
    if (!privstack_holds(s, value) || privstack_is_private(s, addr))
        return false;
    return !privstack_holds(s, sp) || value >= live_from(s, sp);
}

void privstack_escape(rp_privstack *s, uint64_t sp, uint64_t pointer)
{
    uint64_t from;

    if (s->lo > s->hi)
        return;
    from = privstack_holds(s, sp) ? sp : s->lo;
    if (pointer != 0 && privstack_holds(s, pointer) && pointer < from)
        from = pointer;
    if (from < s->shared_from)
        s->shared_from = from;
}

uint64_t privstack_popped(rp_privstack *s, uint64_t sp)
{
    uint64_t was = s->shared_from, from;

    if (!privstack_holds(s, sp))
        return was;
    from = live_from(s, sp);
    if (from > s->shared_from)
        s->shared_from = from;
    return was;
}
