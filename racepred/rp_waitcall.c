/* rp_waitcall.c — calls with which a thread waits; see rp_waitcall.h. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"

#include "rp_callee.h"
#include "rp_waitcall.h"
#include "rp_x86.h"

/* Instructions decoded before the call, or before the jump back. */
#define MAX_STUB_INSNS 8
#define MAX_COMPARES 4

/* Functions that only wait, as named without leading underscores. */
static const HChar *const wait_functions[] = {
    "sched_yield", "pthread_yield", "thrd_yield", "usleep", "nanosleep",
    "clock_nanosleep", "thrd_sleep", "sleep",
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

/* An instruction a wait stub may run before its call. */
static Bool stub_instruction(const rp_x86_insn *d)
{
    if (!computes(d))
        return False;
    return !d->mem || d->opcode == 0x8D || d->opcode == 0x0F1F || frame_operand(d)
           || (constant_operand(d) && only_reads(d));
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
    if (op >= 0x90 && op <= 0x99)
        return 1u | 1u << 2 | 1u << ((op & 7) | (d->rex & 1) << 3);
    if (!d->has_modrm)
        return 0;
    return 1u << d->reg | (d->mod == 3 ? 1u << d->rm : 0);
}

Bool rp_waitcall_stub(Addr addr, rp_wait_stub *stub)
{
    rp_x86_insn d;
    UInt n;

    stub->start = addr;
    stub->clobbered = CALLER_SAVED;
    for (n = 0; n < MAX_STUB_INSNS; n++, addr += d.len) {
        if (!rp_x86_decode(addr, &d))
            return False;
        if (d.opcode == 0xE8) {
            stub->call = addr;
            stub->resume = addr + d.len;
            return rp_waitcall_is_wait(d.target);
        }
        if (!stub_instruction(&d))
            return False;
        stub->clobbered |= written_registers(&d);
    }
    return False;
}

static Bool is_direct_jump(const rp_x86_insn *d)
{
    return d->opcode == 0xE9 || d->opcode == 0xEB || (d->opcode >= 0x70 && d->opcode <= 0x7F)
           || (d->opcode >= 0x0F80 && d->opcode <= 0x0F8F);
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

Bool rp_waitcall_jump_after(Addr resume, Addr *to)
{
    rp_x86_insn d;
    UInt n;

    for (n = 0; n < MAX_COMPARES; n++, resume += d.len) {
        if (!rp_x86_decode(resume, &d))
            return False;
        if (is_direct_jump(&d)) {
            *to = d.target;
            return True;
        }
        if (!compares(&d) && !(computes(&d) && !d.mem))
            return False;
    }
    return False;
}

static Bool same_operand(const rp_x86_insn *a, const rp_x86_insn *b)
{
    if (a->rip_relative || b->rip_relative)
        return a->rip_relative && b->rip_relative && a->target == b->target;
    return a->base == b->base && a->index == b->index && a->scale == b->scale
           && a->disp == b->disp;
}

static Bool uses_register(Int r, UInt set)
{
    return r != RP_X86_NONE && (set & 1u << r);
}

Bool rp_waitcall_polls_again(const rp_wait_stub *stub, const rp_x86_insn *load)
{
    rp_x86_insn d;
    Addr at = stub->resume;
    UInt n;

    if (!load->mem || uses_register(load->base, stub->clobbered)
        || uses_register(load->index, stub->clobbered) || !rp_x86_decode(at, &d)
        || !d.mem || !same_operand(&d, load) || d.opcode != load->opcode)
        return False;
    for (n = 0; n < MAX_COMPARES; n++) {
        at += d.len;
        if (!rp_x86_decode(at, &d))
            return False;
        if (is_direct_jump(&d))
            return d.opcode != 0xE9 && d.opcode != 0xEB && d.target >= stub->start
                   && d.target <= stub->call;
        if (!compares(&d) && !(computes(&d) && !d.mem))
            return False;
    }
    return False;
}
