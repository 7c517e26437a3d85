/* rp_spin.c — loads that a spin loop polls; see rp_spin.h. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "libvex_guest_amd64.h"

#include "rp_spin.h"
#include "rp_waitcall.h"
#include "rp_code.h"

/* Guest-state bytes tracked (amd64's state is well under this); a larger
 * state is not analysed. */
#define STATE_BYTES 2048

/* The guest-state offset of amd64 register n (RAX 0 .. R15 15). */
#define GPR_OFFSET(n) ((Int)offsetof(VexGuestAMD64State, guest_RAX) + 8 * (n))

/* Longest chain of temporaries followed back from an address. */
#define MAX_DEPTH 24

/* Stores into the stack frame a loop may make (unoptimised code keeps
 * its temporaries there). */
#define MAX_FRAME_STORES 16
#define ANYWHERE 0x7FFFFFFF

/* A slot of the stack frame: the guest-state offset of the stack or
 * frame pointer, and a displacement from it. */
typedef struct frame_slot {
    Int reg;
    Long disp;
} frame_slot;

typedef struct frame_store {
    frame_slot slot;
    Int at;                 /* its statement */
    const IRExpr *data;
} frame_store;

/* One loop being judged: statements [head, last] of sb, the code before
 * it in the block [start, head). */
typedef struct loop {
    const IRSB *sb;
    const VexGuestLayout *layout;
    Int start, head, last;
    frame_store stored[MAX_FRAME_STORES];  /* the loop's stores, all into the frame */
    Int n_stored;
    frame_slot tainted_slot[MAX_FRAME_STORES];  /* slots that carry the load's value */
    Int n_tainted_slots;
    UChar written[STATE_BYTES];     /* guest-state bytes the loop writes */
    const IRExpr **def;             /* temporary -> its expression */
    Int *def_at;                    /* temporary -> its statement (if def) */
    UChar *tainted_tmp;             /* temporaries that carry the load's value */
    UChar tainted_reg[STATE_BYTES]; /* and guest-state bytes */
    const rp_way_back *way;         /* the way back outside the block, or NULL */
    Bool reloaded[16];              /* registers every way back reloads from an unstored slot */
} loop;

/* Index of the IMark of guest address `addr` in statements [from, to], or -1. */
static Int imark_index(const IRSB *sb, Int from, Int to, Addr addr)
{
    Int i;

    for (i = from; i <= to; i++)
        if (sb->stmts[i]->tag == Ist_IMark && (Addr)sb->stmts[i]->Ist.IMark.addr == addr)
            return i;
    return -1;
}

static Bool const_target(const IRConst *c, Addr *target)
{
    if (c->tag == Ico_U64)
        *target = (Addr)c->Ico.U64;
    else if (c->tag == Ico_U32)
        *target = (Addr)c->Ico.U32;
    else
        return False;
    return True;
}

/* Whether a statement may write memory. */
static Bool stores(const IRStmt *st)
{
    switch (st->tag) {
    case Ist_Store:
    case Ist_StoreG:
    case Ist_CAS:
    case Ist_LLSC:
        return True;
    case Ist_Dirty:
        return st->Ist.Dirty.details->mFx == Ifx_Write
               || st->Ist.Dirty.details->mFx == Ifx_Modify;
    default:
        return False;
    }
}

static Bool any_byte(const UChar *bytes, Int offset, Int size)
{
    Int i;

    for (i = offset; i < offset + size && i < STATE_BYTES; i++)
        if (i >= 0 && bytes[i])
            return True;
    return False;
}

/* The guest-state bytes a Put or PutI writes: [*offset, *offset + *size). */
static Bool put_range(const IRTypeEnv *tyenv, const IRStmt *st, Int *offset, Int *size)
{
    if (st->tag == Ist_Put) {
        *offset = st->Ist.Put.offset;
        *size = sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Put.data));
        return True;
    }
    if (st->tag == Ist_PutI) {
        const IRRegArray *a = st->Ist.PutI.details->descr;

        *offset = a->base;
        *size = a->nElems * sizeofIRType(a->elemTy);
        return True;
    }
    return False;
}

/* Notes a register write of the loop. */
static void note_put(loop *l, const IRStmt *st)
{
    Int offset, size, b;

    if (!put_range(l->sb->tyenv, st, &offset, &size))
        return;
    for (b = offset < 0 ? 0 : offset; b < offset + size && b < STATE_BYTES; b++)
        l->written[b] = 1;
}

static Bool const_value(const IRExpr *e, Long *value)
{
    if (e->tag != Iex_Const)
        return False;
    switch (e->Iex.Const.con->tag) {
    case Ico_U8:  *value = e->Iex.Const.con->Ico.U8;  return True;
    case Ico_U16: *value = e->Iex.Const.con->Ico.U16; return True;
    case Ico_U32: *value = e->Iex.Const.con->Ico.U32; return True;
    case Ico_U64: *value = (Long)e->Iex.Const.con->Ico.U64; return True;
    default: return False;
    }
}

/* Whether address e is the stack or frame pointer plus a constant (a
 * local variable or spill slot of the running function): its slot. */
static Bool frame_slot_of(const loop *l, const IRExpr *e, frame_slot *slot, Int depth)
{
    Long c;

    if (depth > MAX_DEPTH)
        return False;
    switch (e->tag) {
    case Iex_RdTmp:
        return l->def[e->Iex.RdTmp.tmp] != NULL
               && frame_slot_of(l, l->def[e->Iex.RdTmp.tmp], slot, depth + 1);
    case Iex_Get:
        if (e->Iex.Get.offset != l->layout->offset_SP
            && e->Iex.Get.offset != l->layout->offset_FP)
            return False;
        slot->reg = e->Iex.Get.offset;
        slot->disp = 0;
        return True;
    case Iex_Binop:
        if (!const_value(e->Iex.Binop.arg2, &c) || !frame_slot_of(l, e->Iex.Binop.arg1, slot, depth + 1))
            return False;
        if (e->Iex.Binop.op == Iop_Add64 || e->Iex.Binop.op == Iop_Add32)
            slot->disp += c;
        else if (e->Iex.Binop.op == Iop_Sub64 || e->Iex.Binop.op == Iop_Sub32)
            slot->disp -= c;
        else
            return False;
        return True;
    default:
        return False;
    }
}

static Bool same_slot(frame_slot a, frame_slot b)
{
    return a.reg == b.reg && a.disp == b.disp;
}

/* The frame slot a way back names (rp_waitcall.h). */
static frame_slot way_frame_slot(rp_way_slot s)
{
    frame_slot f = { GPR_OFFSET(s.base), s.disp };

    return f;
}

/* The loop's last store into `slot` before statement `at` (or anywhere
 * in the loop, at = ANYWHERE), or NULL. */
static const frame_store *store_before(const loop *l, frame_slot slot, Int at)
{
    const frame_store *found = NULL;
    Int i;

    for (i = 0; i < l->n_stored && l->stored[i].at < at; i++)
        if (same_slot(l->stored[i].slot, slot))
            found = &l->stored[i];
    return found;
}

/* A store of the loop: True if it goes into the frame (noted).  A
 * locked read-modify-write of a frame slot counts as a store of the slot:
 * gcc makes a sequentially consistent fence (atomic_thread_fence,
 * __sync_synchronize) a `lock or $0, (%rsp)`, and a poll with a fence in
 * its loop is no less a poll. */
static Bool note_frame_store(loop *l, const IRStmt *st, Int at)
{
    frame_store *f = &l->stored[l->n_stored];
    const IRExpr *addr, *data;

    if (st->tag == Ist_Store) {
        addr = st->Ist.Store.addr;
        data = st->Ist.Store.data;
    } else if (st->tag == Ist_CAS && st->Ist.CAS.details->dataHi == NULL) {
        addr = st->Ist.CAS.details->addr;
        data = st->Ist.CAS.details->dataLo;
    } else {
        return False;
    }
    if (l->n_stored == MAX_FRAME_STORES || !frame_slot_of(l, addr, &f->slot, 0))
        return False;
    f->at = at;
    f->data = data;
    l->n_stored++;
    return True;
}

/* Scans the block up to the loop's end: register writes and temporaries;
 * False if the loop stores. */
static Bool scan_loop(loop *l)
{
    Int i;

    for (i = l->start; i <= l->last; i++) {
        const IRStmt *st = l->sb->stmts[i];

        if (i >= l->head && stores(st) && !note_frame_store(l, st, i))
            return False;
        if (i >= l->head)
            note_put(l, st);
        if (st->tag == Ist_WrTmp) {
            l->def[st->Ist.WrTmp.tmp] = st->Ist.WrTmp.data;
            l->def_at[st->Ist.WrTmp.tmp] = i;
        }
    }
    return True;
}

/* Whether e reads one of the temporaries set in `tmps` or, if regs is
 * not NULL, one of the guest-state bytes set there; a load counts as
 * reading what its address reads if `loads`. */
static Bool reads(const IRExpr *e, const UChar *tmps, const UChar *regs, Bool loads)
{
    Int i;

    switch (e->tag) {
    case Iex_RdTmp:
        return tmps[e->Iex.RdTmp.tmp];
    case Iex_Get:
        return regs != NULL && any_byte(regs, e->Iex.Get.offset, sizeofIRType(e->Iex.Get.ty));
    case Iex_Unop:
        return reads(e->Iex.Unop.arg, tmps, regs, loads);
    case Iex_Binop:
        return reads(e->Iex.Binop.arg1, tmps, regs, loads) || reads(e->Iex.Binop.arg2, tmps, regs, loads);
    case Iex_Triop:
        return reads(e->Iex.Triop.details->arg1, tmps, regs, loads)
               || reads(e->Iex.Triop.details->arg2, tmps, regs, loads)
               || reads(e->Iex.Triop.details->arg3, tmps, regs, loads);
    case Iex_Qop:
        return reads(e->Iex.Qop.details->arg1, tmps, regs, loads)
               || reads(e->Iex.Qop.details->arg2, tmps, regs, loads)
               || reads(e->Iex.Qop.details->arg3, tmps, regs, loads)
               || reads(e->Iex.Qop.details->arg4, tmps, regs, loads);
    case Iex_ITE:
        return reads(e->Iex.ITE.cond, tmps, regs, loads) || reads(e->Iex.ITE.iftrue, tmps, regs, loads)
               || reads(e->Iex.ITE.iffalse, tmps, regs, loads);
    case Iex_CCall:
        for (i = 0; e->Iex.CCall.args[i] != NULL; i++)
            if (reads(e->Iex.CCall.args[i], tmps, regs, loads))
                return True;
        return False;
    case Iex_Load:
        return loads && reads(e->Iex.Load.addr, tmps, regs, loads);
    default:
        return False;
    }
}

static Bool invariant(const loop *l, const IRExpr *e, Int depth);

/* Whether the guest-state bytes [offset, offset + size) are the same
 * every time round: the loop does not write them, or they are (part of)
 * a register every way back reloads from a frame slot nothing in the
 * loop stores. */
static Bool state_invariant(const loop *l, Int offset, Int size)
{
    Int r = (offset - GPR_OFFSET(0)) / 8;

    if (offset >= GPR_OFFSET(0) && offset < GPR_OFFSET(16)
        && (offset - GPR_OFFSET(0)) % 8 == 0 && size <= 8 && l->reloaded[r])
        return True;
    return !any_byte(l->written, offset, size);
}

/* The same for a register given by its guest-state offset, -1 for none. */
static Bool register_invariant(const loop *l, Int offset)
{
    return offset < 0 || state_invariant(l, offset, 8);
}

/* Whether the way back outside the block stores frame slot `slot`. */
static Bool way_stores(const loop *l, frame_slot slot)
{
    Int i;

    for (i = 0; l->way != NULL && i < l->way->n_stores; i++)
        if (same_slot(way_frame_slot(l->way->stores[i]), slot))
            return True;
    return False;
}

/* Whether a load at statement `at` from `addr` gives the same value
 * every time round: it reads a frame slot that the loop stored before it
 * (the same value, if that was), or one the loop never stores. */
static Bool frame_load_invariant(const loop *l, const IRExpr *addr, Int at, Int depth)
{
    frame_slot slot;
    const frame_store *f;

    if (!frame_slot_of(l, addr, &slot, 0) || !invariant(l, addr, depth + 1) || way_stores(l, slot))
        return False;
    if (at >= l->head && (f = store_before(l, slot, at)) != NULL)
        return invariant(l, f->data, depth + 1);
    return store_before(l, slot, ANYWHERE) == NULL;
}

/* Whether a load at statement `at` from `addr` outside the frame gives
 * the same value every time round unless another thread writes it: its
 * address is invariant (the loop stores nothing outside its frame,
 * scan_loop).  Such a load is polled itself, so a load whose address it
 * gives polls too: `while (!*shared->flag_ptr)` waits for the flag, not
 * only for the pointer. */
static Bool polled_load_invariant(const loop *l, const IRExpr *addr, Int depth)
{
    frame_slot slot;

    return !frame_slot_of(l, addr, &slot, 0) && invariant(l, addr, depth + 1);
}

/* Whether temporary t is the same every time round: computed in the
 * loop from what is, or computed before the loop (the loop's first time
 * round in a block that starts before it: judge_loop checks the registers
 * of such a loop's addresses). */
static Bool tmp_invariant(const loop *l, IRTemp t, Int depth)
{
    const IRExpr *addr;

    if (l->def[t] == NULL)
        return False;
    if (l->def[t]->tag == Iex_Load) {
        addr = l->def[t]->Iex.Load.addr;
        return frame_load_invariant(l, addr, l->def_at[t], depth)
               || polled_load_invariant(l, addr, depth);
    }
    return l->def_at[t] < l->head || invariant(l, l->def[t], depth + 1);
}

/* Whether e has the same value every time round the loop: constants and
 * registers the loop does not write, combined by pure operations. */
static Bool invariant(const loop *l, const IRExpr *e, Int depth)
{
    Int i;

    if (depth > MAX_DEPTH)
        return False;
    switch (e->tag) {
    case Iex_Const:
        return True;
    case Iex_RdTmp:
        return tmp_invariant(l, e->Iex.RdTmp.tmp, depth);
    case Iex_Get:
        return state_invariant(l, e->Iex.Get.offset, sizeofIRType(e->Iex.Get.ty));
    case Iex_Unop:
        return invariant(l, e->Iex.Unop.arg, depth + 1);
    case Iex_Binop:
        return invariant(l, e->Iex.Binop.arg1, depth + 1)
               && invariant(l, e->Iex.Binop.arg2, depth + 1);
    case Iex_Triop:
        return invariant(l, e->Iex.Triop.details->arg1, depth + 1)
               && invariant(l, e->Iex.Triop.details->arg2, depth + 1)
               && invariant(l, e->Iex.Triop.details->arg3, depth + 1);
    case Iex_ITE:
        return invariant(l, e->Iex.ITE.cond, depth + 1)
               && invariant(l, e->Iex.ITE.iftrue, depth + 1)
               && invariant(l, e->Iex.ITE.iffalse, depth + 1);
    case Iex_CCall:
        for (i = 0; e->Iex.CCall.args[i] != NULL; i++)
            if (!invariant(l, e->Iex.CCall.args[i], depth + 1))
                return False;
        return True;
    default:
        return False;   /* loads, GetI, Qop: not followed */
    }
}

/* Whether e carries the loaded value (decides_branch). */
static Bool tainted(const loop *l, const IRExpr *e)
{
    return reads(e, l->tainted_tmp, l->tainted_reg, True);
}

/* Whether e loads from a frame slot that carries the loaded value. */
static Bool reads_tainted_slot(const loop *l, const IRExpr *e)
{
    frame_slot slot;
    Int i;

    if (e->tag != Iex_Load || !frame_slot_of(l, e->Iex.Load.addr, &slot, 0))
        return False;
    for (i = 0; i < l->n_tainted_slots; i++)
        if (same_slot(l->tainted_slot[i], slot))
            return True;
    return False;
}

/* A store of the loop into addr, of a value that carries the load's or not. */
static void taint_slot(loop *l, const IRExpr *addr, Bool tainted)
{
    frame_slot slot;
    Int i;

    if (!frame_slot_of(l, addr, &slot, 0))
        return;
    for (i = 0; i < l->n_tainted_slots; i++)
        if (same_slot(l->tainted_slot[i], slot))
            break;
    if (tainted && i == l->n_tainted_slots && i < MAX_FRAME_STORES)
        l->tainted_slot[l->n_tainted_slots++] = slot;
    else if (!tainted && i < l->n_tainted_slots)
        l->tainted_slot[i] = l->tainted_slot[--l->n_tainted_slots];
}

/* Whether the loop's end leaves the loaded value in a register or a
 * frame slot that its way back outside the block compares to decide
 * whether to go round (a slot no way back stores first). */
static Bool leaves_tested_value(const loop *l)
{
    const rp_way_back *way = l->way;
    Int r, b, i, j;

    for (r = 0; r < 16; r++)
        for (b = GPR_OFFSET(r); (way->tested & 1u << r) && b < GPR_OFFSET(r) + 8; b++)
            if (l->tainted_reg[b])
                return True;
    for (i = 0; i < way->n_tested_slots; i++) {
        frame_slot slot = way_frame_slot(way->tested_slots[i]);

        for (j = 0; j < l->n_tainted_slots; j++)
            if (same_slot(l->tainted_slot[j], slot) && !way_stores(l, slot))
                return True;
    }
    return False;
}

/* Carries the taint through statement st (decides_branch); True when
 * st is an exit whose guard it reaches. */
static Bool taint_step(loop *l, const IRStmt *st)
{
    const IRTypeEnv *tyenv = l->sb->tyenv;

    if (st->tag == Ist_WrTmp) {
        if (tainted(l, st->Ist.WrTmp.data) || reads_tainted_slot(l, st->Ist.WrTmp.data))
            l->tainted_tmp[st->Ist.WrTmp.tmp] = 1;
    } else if (st->tag == Ist_Store) {
        taint_slot(l, st->Ist.Store.addr, tainted(l, st->Ist.Store.data));
    } else if (st->tag == Ist_Put) {
        Int size = sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Put.data));
        UChar value = tainted(l, st->Ist.Put.data);
        Int b;

        for (b = st->Ist.Put.offset; b < st->Ist.Put.offset + size && b < STATE_BYTES; b++)
            l->tainted_reg[b] = value;
    } else if (st->tag == Ist_Exit && tainted(l, st->Ist.Exit.guard)) {
        return True;
    }
    return False;
}

/* Forgets what carries the taint. */
static void taint_clear(loop *l)
{
    VG_(memset)(l->tainted_tmp, 0, l->sb->tyenv->types_used);
    VG_(memset)(l->tainted_reg, 0, sizeof l->tainted_reg);
    l->n_tainted_slots = 0;
}

/* Whether an exit of the loop depends on frame slot `slot` as the loop's
 * head finds it: followed from the head as the loaded value is. */
static Bool slot_decides_exit(loop *l, frame_slot slot)
{
    Int i;

    taint_clear(l);
    l->tainted_slot[l->n_tainted_slots++] = slot;
    for (i = l->head; i <= l->last; i++)
        if (taint_step(l, l->sb->stmts[i]))
            return True;
    return False;
}

/* Whether the loop's end leaves the loaded value in a frame slot that a
 * way back copies into one an exit of the loop tests the next time round
 * (clang -O0's `omp atomic read acquire` poll: the check first, then the
 * load into a temporary and a call of __kmpc_flush; after the call, the
 * temporary copied into the variable the check tests). */
static Bool carries_to_exit(loop *l)
{
    const rp_way_back *way = l->way;
    Int i, j;

    for (i = 0; i < way->n_copies; i++) {
        frame_slot from = way_frame_slot(way->copy_from[i]);
        frame_slot to = way_frame_slot(way->copy_to[i]);

        for (j = 0; j < l->n_tainted_slots; j++)
            if (same_slot(l->tainted_slot[j], from) && !way_stores(l, from))
                return slot_decides_exit(l, to);
    }
    return False;
}

/* Whether the value loaded into temporary t at statement `at` decides a
 * branch of the loop: followed forward through temporaries and registers
 * to an exit's guard, or to what the way back tests or copies into the
 * slot an exit tests. */
static Bool decides_branch(loop *l, IRTemp t, Int at)
{
    Int i;

    taint_clear(l);
    l->tainted_tmp[t] = 1;
    for (i = at + 1; i <= l->last; i++)
        if (taint_step(l, l->sb->stmts[i]))
            return True;
    return l->way != NULL && (leaves_tested_value(l) || carries_to_exit(l));
}

/* Whether addr is a frame slot the loop stores (its own temporary). */
static Bool stored_slot(const loop *l, const IRExpr *addr)
{
    frame_slot slot;

    return frame_slot_of(l, addr, &slot, 0)
           && (store_before(l, slot, ANYWHERE) != NULL || way_stores(l, slot));
}

/* The registers the memory operand of the amd64 instruction at `insn`
 * computes its address from, as guest-state offsets, -1 for none (both
 * -1: a RIP-relative or absolute address).  False when not decoded
 * (rp_x86.h) or without a memory operand. */
static Bool address_registers(Addr insn, Int *base, Int *index)
{
    rp_x86_insn d;

    if (!rp_code_decode(insn, &d) || !d.mem)
        return False;
    *base = d.base == RP_X86_NONE ? -1 : GPR_OFFSET(d.base);
    *index = d.index == RP_X86_NONE ? -1 : GPR_OFFSET(d.index);
    return True;
}

/* The constant the amd64 instruction at `insn` puts in a register, if
 * it makes one of its own: mov $imm or lea of a RIP-relative address. */
static Bool instruction_constant(Addr insn, ULong *value)
{
    rp_x86_insn d;

    if (!rp_code_decode(insn, &d))
        return False;
    if (d.opcode >= 0xB8 && d.opcode <= 0xBF)
        *value = d.imm_size == 8 ? (ULong)d.imm : (ULong)(UInt)d.imm;
    else if (d.opcode == 0xC7 && d.mod == 3)
        *value = (ULong)d.imm;
    else if (d.opcode == 0x8D && d.rip_relative)
        *value = d.target;
    else
        return False;
    return True;
}

/* Whether some instruction of the loop makes constant c itself. */
static Bool loop_makes(const loop *l, const IRConst *c)
{
    ULong value, made;
    Int i;

    if (c->tag != Ico_U64 && c->tag != Ico_U32)
        return False;
    value = c->tag == Ico_U64 ? c->Ico.U64 : c->Ico.U32;
    for (i = l->head; i <= l->last; i++)
        if (l->sb->stmts[i]->tag == Ist_IMark
            && instruction_constant((Addr)l->sb->stmts[i]->Ist.IMark.addr, &made) && made == value)
            return True;
    return False;
}

/* Whether address e of the loop's first time round is what the loop
 * computes every time round, when VEX may have folded registers' values
 * from before the loop into it: e is read from a frame slot (unoptimised
 * code keeps its pointers there; memory is never folded) that the loop
 * does not store, or stores before with a constant it makes itself or
 * with another such value. */
static Bool frame_chain_trusted(const loop *l, const IRExpr *e, Int depth)
{
    frame_slot slot;
    const frame_store *f;
    Int at;

    if (depth > MAX_DEPTH)
        return False;
    while (e->tag == Iex_Unop)
        e = e->Iex.Unop.arg;
    if (e->tag != Iex_RdTmp || l->def[e->Iex.RdTmp.tmp] == NULL)
        return False;
    at = l->def_at[e->Iex.RdTmp.tmp];
    e = l->def[e->Iex.RdTmp.tmp];
    if (e->tag != Iex_Load || !frame_slot_of(l, e->Iex.Load.addr, &slot, 0))
        return False;
    f = store_before(l, slot, at);
    if (f == NULL)
        return store_before(l, slot, ANYWHERE) == NULL;
    if (f->data->tag == Iex_Const)
        return loop_makes(l, f->data->Iex.Const.con);
    return frame_chain_trusted(l, f->data, depth + 1);
}

/* For a loop that starts in the middle of its block, whose first time
 * round VEX compiled together with the code before it, so that values
 * registers had before the loop may be folded into constants: whether
 * the load at `addr`, of instruction `insn`, reads what the loop's own
 * block would.  Its address registers (decoded from the instruction) are
 * not written by the loop, or the address is a frame_chain_trusted one. */
static Bool first_round_trusted(const loop *l, Addr insn, const IRExpr *addr)
{
    Int base, index;

    if (!address_registers(insn, &base, &index))
        return False;
    return (register_invariant(l, base) && register_invariant(l, index))
           || frame_chain_trusted(l, addr, 0);
}

/* Notes what the way back outside the block does to the registers: it
 * writes them, or reloads them from a frame slot nothing in the loop
 * stores (the same value every time round). */
static void note_way_back(loop *l, const rp_way_back *way)
{
    Int r, b;

    l->way = way;
    for (r = 0; r < 16; r++) {
        frame_slot slot = { l->layout->offset_SP, way->reload[r] };

        if (!(way->clobbered & 1u << r))
            continue;
        for (b = GPR_OFFSET(r); b < GPR_OFFSET(r) + 8; b++)
            l->written[b] = 1;
        l->reloaded[r] = way->reload[r] != RP_WAY_BACK_NO_RELOAD && !way_stores(l, slot)
                         && store_before(l, slot, ANYWHERE) == NULL;
    }
}

/* Marks the spin reads of the loop [head, last], the code before it in
 * the block starting at statement `start`. */
static void judge_loop(const IRSB *sb, const VexGuestLayout *layout, Int start, Int head,
                       Int last, const rp_way_back *way, Bool *spin)
{
    loop *l = VG_(calloc)("rp.spin.loop", 1, sizeof *l);
    Int n_tmps = sb->tyenv->types_used, i;

    l->sb = sb;
    l->layout = layout;
    l->start = start;
    l->head = head;
    l->last = last;
    l->def = VG_(calloc)("rp.spin.def", n_tmps + 1, sizeof *l->def);
    l->def_at = VG_(calloc)("rp.spin.def", n_tmps + 1, sizeof *l->def_at);
    l->tainted_tmp = VG_(calloc)("rp.spin.taint", n_tmps + 1, 1);
    if (scan_loop(l)) {
        Addr insn = 0;

        if (way != NULL)
            note_way_back(l, way);
        for (i = head; i <= last; i++) {
            const IRStmt *st = sb->stmts[i];

            if (st->tag == Ist_IMark)
                insn = (Addr)st->Ist.IMark.addr;
            if (st->tag == Ist_WrTmp && st->Ist.WrTmp.data->tag == Iex_Load
                && invariant(l, st->Ist.WrTmp.data->Iex.Load.addr, 0)
                && !stored_slot(l, st->Ist.WrTmp.data->Iex.Load.addr)
                && (head == start || first_round_trusted(l, insn, st->Ist.WrTmp.data->Iex.Load.addr))
                && decides_branch(l, st->Ist.WrTmp.tmp, i))
                spin[i] = True;
        }
    }
    VG_(free)(l->tainted_tmp);
    VG_(free)(l->def_at);
    VG_(free)(l->def);
    VG_(free)(l);
}

/* Whether the guest code at `addr` is a pause (F3 90), the spin-wait
 * hint, which VEX puts in a block of its own. */
static Bool pause_at(Addr addr)
{
    const UChar *code = (const UChar *)addr;

    return VG_(am_is_valid_for_client)(addr, 2, VKI_PROT_EXEC) && code[0] == 0xF3
           && code[1] == 0x90;
}

/* The IMark in [start, at] a branch to `target` goes back to: the
 * target's, or the instruction after it when it is a pause (a loop that
 * starts with a pause). */
static Int loop_head(const IRSB *sb, Int start, Int at, Addr target)
{
    Int head = imark_index(sb, start, at, target);

    if (head < 0 && (head = imark_index(sb, start, at, target + 2)) >= 0 && !pause_at(target))
        head = -1;
    return head;
}

/* The block's instructions that access memory, decoded at most once per
 * block, when head_of first needs them (-1: not yet; rp_spin_find resets
 * it): statement indices and instructions. */
#define MAX_ACCESS_MARKS 256
static Int access_mark_at[MAX_ACCESS_MARKS];
static rp_x86_insn access_mark[MAX_ACCESS_MARKS];
static Int n_access_marks = -1;

static void decode_access_marks(const IRSB *sb, Int start)
{
    Int i;

    n_access_marks = 0;
    for (i = start; i < sb->stmts_used && n_access_marks < MAX_ACCESS_MARKS; i++)
        if (sb->stmts[i]->tag == Ist_IMark
            && rp_code_decode((Addr)sb->stmts[i]->Ist.IMark.addr, &access_mark[n_access_marks])
            && access_mark[n_access_marks].mem)
            access_mark_at[n_access_marks++] = i;
}

/* The statements of a block up to a branch, for rp_waitcall_way_back. */
typedef struct block_part {
    const IRSB *sb;
    Int start, at;
} block_part;

/* rp_head_fn: the IMark of `a` in the block part, or that of an
 * instruction there with a's opcode and memory operand (another copy of
 * the loop's check, as compilers make before a loop they rotate). */
static Int head_of(void *ctx, Addr a, Bool exact)
{
    const block_part *b = ctx;
    rp_x86_insn d;
    Int head = imark_index(b->sb, b->start, b->at, a), i;

    if (head >= 0 || exact || !rp_code_decode(a, &d) || !d.mem)
        return head;
    if (n_access_marks < 0)
        decode_access_marks(b->sb, b->start);
    for (i = 0; i < n_access_marks && access_mark_at[i] <= b->at; i++)
        if (access_mark[i].opcode == d.opcode && rp_x86_same_operand(&d, &access_mark[i]))
            return access_mark_at[i];
    return -1;
}

/* A branch (statement `at`) out of the block to `from` (or, `waited`,
 * what follows the pause or the call of a waiting function that ends the
 * block: `after_call`): a loop if its way back waits and comes back
 * (rp_waitcall.h). */
static void judge_way_back(const IRSB *sb, const VexGuestLayout *layout, Int start, Int at,
                           Addr from, Bool waited, Bool after_call, Bool *spin)
{
    block_part part = { sb, start, at };
    rp_way_back way;

    if (imark_index(sb, start, sb->stmts_used - 1, from) < 0
        && rp_waitcall_way_back(from, waited, after_call, head_of, &part, &way))
        judge_loop(sb, layout, start, way.head, at, &way, spin);
}

/* A call of a function that only waits in the block: its return is the
 * way back.  The call may end the block, or VEX may have followed it into
 * the callee's PLT entry (--vex-guest-chase, on by default), which then
 * ends the block with its indirect jump; the loop ends with the call. */
static void judge_wait_call(const IRSB *sb, const VexGuestLayout *layout, Int start, Bool *spin)
{
    Int i, end;
    rp_x86_insn d;

    for (i = start; i < sb->stmts_used; i++) {
        const IRStmt *st = sb->stmts[i];

        /* A direct call (E8 and a 32-bit displacement) is 5 bytes long:
         * only those instructions are decoded. */
        if (st->tag != Ist_IMark || st->Ist.IMark.len != 5
            || !rp_code_decode((Addr)st->Ist.IMark.addr, &d)
            || d.opcode != 0xE8 || !rp_waitcall_is_wait(d.target))
            continue;
        for (end = i + 1; end < sb->stmts_used && sb->stmts[end]->tag != Ist_IMark; end++)
            ;
        judge_way_back(sb, layout, start, end - 1, (Addr)st->Ist.IMark.addr + d.len, True,
                       True, spin);
        return;
    }
}

void rp_spin_find(const IRSB *sb, const VexGuestLayout *layout, Bool *spin)
{
    Int start, i, head;
    Addr target;

    for (i = 0; i < sb->stmts_used; i++)
        spin[i] = False;
    for (start = 0; start < sb->stmts_used && sb->stmts[start]->tag != Ist_IMark; start++)
        ;
    if (start == sb->stmts_used || layout->total_sizeB > STATE_BYTES)
        return;
    n_access_marks = -1;
    /* A branch back to an instruction of the block closes a loop. */
    for (i = start; i < sb->stmts_used; i++) {
        const IRStmt *st = sb->stmts[i];

        if (st->tag != Ist_Exit || !const_target(st->Ist.Exit.dst, &target))
            continue;
        if ((head = loop_head(sb, start, i, target)) >= 0)
            judge_loop(sb, layout, start, head, i, NULL, spin);
        else
            judge_way_back(sb, layout, start, i, target, False, False, spin);
    }
    if (sb->jumpkind == Ijk_Boring && sb->next->tag == Iex_Const
        && const_target(sb->next->Iex.Const.con, &target)) {
        if ((head = loop_head(sb, start, sb->stmts_used - 1, target)) >= 0)
            judge_loop(sb, layout, start, head, sb->stmts_used - 1, NULL, spin);
        else
            judge_way_back(sb, layout, start, sb->stmts_used - 1, target, False, False, spin);
    }
    judge_wait_call(sb, layout, start, spin);
    /* A pause ends the block: the whole block is taken as the loop, or
     * what comes after the pause leads back into it. */
    if (sb->jumpkind == Ijk_Yield) {
        judge_loop(sb, layout, start, start, sb->stmts_used - 1, NULL, spin);
        if (sb->next->tag == Iex_Const && const_target(sb->next->Iex.Const.con, &target))
            judge_way_back(sb, layout, start, sb->stmts_used - 1, target, True, False, spin);
    }
}
