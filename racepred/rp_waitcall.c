/* rp_waitcall.c — the way back of a polling loop that waits; see
 * rp_waitcall.h. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"

#include "rp_callee.h"
#include "rp_waitcall.h"
#include "rp_code.h"

/* Instructions on one path, and decoded in all. */
#define MAX_PATH 24
#define MAX_WALK 96
/* Frame-slot copies one path remembers. */
#define PATH_COPIES 4

/* Functions that only wait, as named without leading underscores. */
static const HChar *const wait_functions[] = {
    "sched_yield", "pthread_yield", "thrd_yield", "usleep", "nanosleep",
    "clock_nanosleep", "thrd_sleep", "sleep", "kmpc_flush",
};

/* libstdc++'s out-of-line sleep_for, mangled (after the underscore) and
 * demangled. */
static const HChar *const wait_prefixes[] = {
    "ZNSt11this_thread11__sleep_for", "std::this_thread::__sleep_for(",
};

Bool rp_waitcall_is_wait(Addr target)
{
    HChar buf[128];
    const HChar *name = buf;
    UInt i;

    if (!rp_callee_name(target, buf, sizeof buf))
        return False;
    if (VG_(strncmp)(name, "__GI_", 5) == 0)
        name += 5;
    while (*name == '_')
        name++;
    for (i = 0; i < sizeof wait_functions / sizeof wait_functions[0]; i++)
        if (VG_(strcmp)(name, wait_functions[i]) == 0)
            return True;
    for (i = 0; i < sizeof wait_prefixes / sizeof wait_prefixes[0]; i++)
        if (VG_(strncmp)(name, wait_prefixes[i], VG_(strlen)(wait_prefixes[i])) == 0)
            return True;
    return False;
}

/* Opcodes that move or compute, whatever their operands: no branch, no
 * system call, no string, stack or atomic operation. */
static Bool computes(const rp_x86_insn *d)
{
    UInt op = d->opcode;

    if (op < 0x40 || op == 0x63 || op == 0x69 || op == 0x6B || (op >= 0x80 && op <= 0x8B)
        || op == 0x8D || (op >= 0x90 && op <= 0x99) || (op >= 0xB0 && op <= 0xBF) || op == 0xC0
        || op == 0xC1 || op == 0xC6 || op == 0xC7 || (op >= 0xD0 && op <= 0xD3))
        return True;
    if (op == 0xF6 || op == 0xF7)
        return (d->reg & 7) < 4;   /* test, not, neg: no division */
    return op == 0x0F1E || op == 0x0F1F || (op >= 0x0F10 && op <= 0x0F17)
           || (op >= 0x0F28 && op <= 0x0F2F) || (op >= 0x0F40 && op <= 0x0F7F)
           || op == 0x0FB6 || op == 0x0FB7 || op == 0x0FBE || op == 0x0FBF
           || (op >= 0x0FD0 && op < 0x0FFF);
}

/* A memory operand in the running function's stack frame. */
static Bool frame_operand(const rp_x86_insn *d)
{
    return !d->rip_relative && (d->base == RP_X86_RSP || d->base == RP_X86_RBP)
           && d->index == RP_X86_NONE;
}

/* A memory operand at a fixed address (a constant of the program). */
static Bool constant_operand(const rp_x86_insn *d)
{
    return d->rip_relative || (d->base == RP_X86_NONE && d->index == RP_X86_NONE);
}

/* Instructions whose memory operand is only read. */
static Bool only_reads(const rp_x86_insn *d)
{
    UInt op = d->opcode;

    return op == 0x8B || op == 0x63 || op == 0x0FB6 || op == 0x0FB7 || op == 0x0FBE
           || op == 0x0FBF || op == 0x0F10 || op == 0x0F12 || op == 0x0F16 || op == 0x0F28
           || op == 0x0F6E || op == 0x0F6F || (op == 0x0F7E && d->rep == 0xF3);
}

/* An instruction a way back may run: it touches no memory but the stack
 * frame and constants. */
static Bool way_back_instruction(const rp_x86_insn *d)
{
    if (!computes(d))
        return False;
    return !d->mem || d->opcode == 0x8D || d->opcode == 0x0F1F || frame_operand(d)
           || (constant_operand(d) && only_reads(d));
}

/* A compare or test: it writes only flags, wherever it reads (the call's
 * result, errno). */
static Bool compares(const rp_x86_insn *d)
{
    UInt op = d->opcode;

    return (op >= 0x38 && op <= 0x3D) || op == 0x84 || op == 0x85 || op == 0xA8 || op == 0xA9
           || (op >= 0x80 && op <= 0x83 && (d->reg & 7) == 7)
           || ((op == 0xF6 || op == 0xF7) && (d->reg & 7) == 0);
}

/* The registers a compare reads (bit n: register n): its ModRM reg
 * field unless that is an opcode extension, rm when it is a register, or
 * the accumulator of the short forms. */
static UInt compared_registers(const rp_x86_insn *d)
{
    UInt op = d->opcode;
    UInt regs = 0;

    if (op == 0x3C || op == 0x3D || op == 0xA8 || op == 0xA9)
        return 1u;
    if (!d->has_modrm)
        return 0;
    if (op < 0x80 || op == 0x84 || op == 0x85)
        regs |= 1u << d->reg;
    if (d->mod == 3)
        regs |= 1u << d->rm;
    return regs;
}

/* Registers a call may change: rax, rcx, rdx, rsi, rdi, r8-r11. */
#define CALLER_SAVED 0x0FC7u

/* The registers an instruction may write (bit n: register n), a superset:
 * the ModRM reg field, and rm when it is a register. */
static UInt written_registers(const rp_x86_insn *d)
{
    UInt op = d->opcode;

    if (op >= 0xB0 && op <= 0xBF)
        return 1u << ((op & 7) | (d->rex & 1) << 3);
    if (op == 0x90 && !(d->rex & 1))
        return 0;   /* nop */
    if (op >= 0x90 && op <= 0x97)
        return 1u | 1u << ((op & 7) | (d->rex & 1) << 3);
    if (op == 0x98 || op == 0x99)
        return op == 0x98 ? 1u : 1u << 2;
    if (!d->has_modrm || compares(d))
        return 0;
    return 1u << d->reg | (d->mod == 3 ? 1u << d->rm : 0);
}

static Bool is_pause(const rp_x86_insn *d)
{
    return d->opcode == 0x90 && d->rep == 0xF3;
}

static Bool is_conditional_jump(const rp_x86_insn *d)
{
    return (d->opcode >= 0x70 && d->opcode <= 0x7F) || (d->opcode >= 0x0F80 && d->opcode <= 0x0F8F);
}

/* What one path has done so far. */
typedef struct path {
    UInt clobbered;
    Long reload[16];
    Bool waited;
    Bool loaded;            /* read a fixed address (not the frame) */
    Bool polled;            /* and branched after it */
    Bool rsp_moved;
    /* Registers of the block's that the last compare read, until another
     * instruction that computes may set the flags. */
    UInt flags_from;
    /* The frame slot (as the block left it) the last compare read, if
     * compared_slot. */
    Bool compared_slot;
    rp_way_slot compared;
    /* The frame slot (as the block left it) whose value register n holds,
     * if holds_slot bit n. */
    UInt holds_slot;
    rp_way_slot held[16];
    /* Frame slots the path stored the value of another slot in. */
    Int n_copies;
    rp_way_slot copy_to[PATH_COPIES], copy_from[PATH_COPIES];
} path;

typedef struct walker {
    rp_head_fn head_of;
    void *ctx;
    rp_way_back *way;
    UInt decoded, arrivals, waiting_arrivals;
    Bool failed;
    /* Registers the call the way starts after may have changed. */
    UInt entry_clobbered;
} walker;

static Bool same_slot(rp_way_slot a, rp_way_slot b)
{
    return a.base == b.base && a.disp == b.disp;
}

/* The index of slot s among the first n of list, or n. */
static Int slot_index(const rp_way_slot *list, Int n, rp_way_slot s)
{
    Int i = 0;

    while (i < n && !same_slot(list[i], s))
        i++;
    return i;
}

/* The frame slot of d's memory operand. */
static rp_way_slot operand_slot(const rp_x86_insn *d)
{
    rp_way_slot s = { d->base, d->disp };

    return s;
}

/* Registers whose values are no longer the ones the block left: the path
 * wrote them, or the call the way starts after may have. */
static UInt unknown_registers(const walker *w, const path *p)
{
    return p->clobbered | w->entry_clobbered;
}

static void note_frame_store(walker *w, const path *p, const rp_x86_insn *d)
{
    rp_way_back *way = w->way;
    rp_way_slot s = operand_slot(d);

    if (d->base == RP_X86_RSP && p->rsp_moved) {
        w->failed = True;   /* a slot of a moved stack pointer: not followed */
        return;
    }
    if (slot_index(way->stores, way->n_stores, s) < way->n_stores)
        return;
    if (way->n_stores == RP_WAY_BACK_STORES) {
        w->failed = True;
        return;
    }
    way->stores[way->n_stores++] = s;
}

/* The slot, as the block left it, whose value frame slot s holds on path
 * p: the one the path copied into it last, if any. */
static rp_way_slot resolve_slot(const path *p, rp_way_slot s)
{
    Int i;

    for (i = p->n_copies - 1; i >= 0; i--)
        if (same_slot(p->copy_to[i], s))
            return p->copy_from[i];
    return s;
}

/* A store into the frame slot of d: a copy of another slot when it moves
 * a register that holds one (else the slot holds a value of the path's,
 * which no copy names any more). */
static void note_frame_copy(path *p, const rp_x86_insn *d)
{
    rp_way_slot s = operand_slot(d);
    Int i, kept = 0;

    for (i = 0; i < p->n_copies; i++)
        if (!same_slot(p->copy_to[i], s)) {
            p->copy_to[kept] = p->copy_to[i];
            p->copy_from[kept++] = p->copy_from[i];
        }
    p->n_copies = kept;
    if (d->opcode != 0x89 || !(p->holds_slot & 1u << d->reg) || kept == PATH_COPIES)
        return;
    p->copy_to[kept] = s;
    p->copy_from[kept] = p->held[d->reg];
    p->n_copies++;
}

/* The effects of a way-back instruction on the path's registers, and on
 * the frame (every memory operand it may write is a frame slot). */
static void note_instruction(walker *w, path *p, const rp_x86_insn *d)
{
    UInt regs = written_registers(d);
    Int r;

    if (d->mem && frame_operand(d) && !only_reads(d) && d->opcode != 0x8D && d->opcode != 0x0F1F) {
        note_frame_store(w, p, d);
        note_frame_copy(p, d);
    }
    p->holds_slot &= ~regs;
    /* mov slot, r (32 or 64 bits) */
    if (d->opcode == 0x8B && d->mem && frame_operand(d) && !p->rsp_moved) {
        p->holds_slot |= 1u << d->reg;
        p->held[d->reg] = resolve_slot(p, operand_slot(d));
    }
    for (r = 0; r < 16; r++)
        if (regs & 1u << r)
            p->reload[r] = RP_WAY_BACK_NO_RELOAD;
    p->clobbered |= regs;
    p->flags_from = 0;
    p->compared_slot = False;
    if (regs & 1u << RP_X86_RSP)
        p->rsp_moved = True;
    /* mov disp(%rsp), r64 */
    if (d->opcode == 0x8B && (d->rex & 8) && d->mem && d->base == RP_X86_RSP
        && d->index == RP_X86_NONE && !p->rsp_moved)
        p->reload[d->reg] = d->disp;
}

/* The frame-slot copies of a path that came back. */
static void note_arrival_copies(rp_way_back *way, const path *p)
{
    Int i, j;

    for (i = 0; i < p->n_copies && way->n_copies < RP_WAY_BACK_STORES; i++) {
        for (j = 0; j < way->n_copies; j++)
            if (same_slot(way->copy_to[j], p->copy_to[i])
                && same_slot(way->copy_from[j], p->copy_from[i]))
                break;
        if (j == way->n_copies) {
            way->copy_to[j] = p->copy_to[i];
            way->copy_from[j] = p->copy_from[i];
            way->n_copies++;
        }
    }
}

static void arrive(walker *w, Int head, const path *p)
{
    rp_way_back *way = w->way;
    Int r;

    note_arrival_copies(way, p);
    if (p->waited || p->polled)
        w->waiting_arrivals++;
    if (w->arrivals == 0 || head < way->head)
        way->head = head;
    way->clobbered |= p->clobbered;
    for (r = 0; r < 16; r++)
        if (w->arrivals == 0)
            way->reload[r] = p->reload[r];
        else if (way->reload[r] != p->reload[r])
            way->reload[r] = RP_WAY_BACK_NO_RELOAD;
    w->arrivals++;
}

/* A branch of path p decides whether the loop goes on: what its flags
 * came from is tested. */
static void note_tested(rp_way_back *way, const path *p)
{
    way->tested |= p->flags_from;
    if (p->compared_slot && way->n_tested_slots < RP_WAY_BACK_STORES
        && slot_index(way->tested_slots, way->n_tested_slots, p->compared) == way->n_tested_slots)
        way->tested_slots[way->n_tested_slots++] = p->compared;
}

/* A compare on path p: the registers of the block's it reads, and the
 * frame slot it reads, directly or through a register loaded from it. */
static void note_compare(const walker *w, path *p, const rp_x86_insn *d)
{
    UInt regs = compared_registers(d);

    p->flags_from = regs & ~unknown_registers(w, p);
    p->compared_slot = True;
    if (d->mem && frame_operand(d) && !p->rsp_moved)
        p->compared = resolve_slot(p, operand_slot(d));
    else if ((regs & p->holds_slot) != 0)
        p->compared = p->held[__builtin_ctz(regs & p->holds_slot)];
    else
        p->compared_slot = False;
}

/* Whether the instruction at `a` reads memory through a register the
 * path has written: then it is no copy of the check, whose register it
 * names but not its value (clang -O0 loads each pointer into rax). */
static Bool address_changed(const path *p, Addr a)
{
    rp_x86_insn d;

    if (!rp_code_decode(a, &d) || !d.mem)
        return False;
    return (d.base != RP_X86_NONE && (p->clobbered & 1u << d.base))
           || (d.index != RP_X86_NONE && (p->clobbered & 1u << d.index));
}

/* Follows one path from `a`; a conditional jump follows its target,
 * then goes on.  Whether some path from `a` came back. */
static Bool walk(walker *w, Addr a, path p, UInt length)
{
    rp_x86_insn d;
    Int head, r;

    for (; !w->failed; length++) {
        /* Only a path that waited comes back at another copy of the
         * check; others go on into the copy, whose own branch must come
         * back (gcc's copy of `while (!(a | b))`'s check, which jumps
         * back to the first). */
        if ((head = w->head_of(w->ctx, a, !p.waited || address_changed(&p, a))) >= 0) {
            arrive(w, head, &p);
            return True;
        }
        if (length == MAX_PATH || ++w->decoded > MAX_WALK || !rp_code_decode(a, &d)) {
            w->failed = True;
            return False;
        }
        if (is_pause(&d)) {
            p.waited = True;
        } else if (d.opcode == 0xE8) {
            if (!rp_waitcall_is_wait(d.target))
                return False;   /* leaves the loop: another function */
            p.waited = True;
            p.clobbered |= CALLER_SAVED;
            p.holds_slot &= ~CALLER_SAVED;
            p.flags_from = 0;
            p.compared_slot = False;
            for (r = 0; r < 16; r++)
                if (CALLER_SAVED & 1u << r)
                    p.reload[r] = RP_WAY_BACK_NO_RELOAD;
        } else if (d.opcode == 0xE9 || d.opcode == 0xEB) {
            a = d.target;
            continue;
        } else if (is_conditional_jump(&d)) {
            Bool taken_back, rest_back;

            p.polled |= p.loaded;
            taken_back = walk(w, d.target, p, length + 1);
            rest_back = walk(w, a + d.len, p, length + 1);
            /* One way out of the loop and one back: the registers it
             * compared decide whether the loop goes on. */
            if (taken_back != rest_back)
                note_tested(w->way, &p);
            return taken_back || rest_back;
        } else if (compares(&d)) {
            p.loaded |= d.mem && constant_operand(&d);   /* cmpl $0, flag(%rip) */
            note_compare(w, &p, &d);
        } else if (way_back_instruction(&d)) {
            p.loaded |= d.mem && constant_operand(&d) && only_reads(&d);
            note_instruction(w, &p, &d);
        } else {
            return False;   /* leaves the loop: a store, a return, an indirect jump... */
        }
        a += d.len;
    }
    return False;
}

Bool rp_waitcall_way_back(Addr from, Bool waited, Bool after_call, rp_head_fn head_of,
                          void *ctx, rp_way_back *way)
{
    walker w;
    path p;
    Int r;

    VG_(memset)(way, 0, sizeof *way);
    VG_(memset)(&p, 0, sizeof p);
    for (r = 0; r < 16; r++)
        p.reload[r] = RP_WAY_BACK_NO_RELOAD;
    p.waited = waited;
    w.entry_clobbered = after_call ? CALLER_SAVED : 0;
    w.head_of = head_of;
    w.ctx = ctx;
    w.way = way;
    w.decoded = w.arrivals = w.waiting_arrivals = 0;
    w.failed = False;
    walk(&w, from, p, 0);
    return !w.failed && w.waiting_arrivals > 0;
}
