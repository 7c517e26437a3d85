/* rp_spin.c — loads that a spin loop polls; see rp_spin.h. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"

#include "rp_spin.h"

/* Guest-state bytes tracked (amd64's state is well under this); a larger
 * state is not analysed. */
#define STATE_BYTES 2048

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
    UChar put_before[STATE_BYTES];  /* and the code before it */
    IRTemp held[STATE_BYTES];       /* the temporary a byte holds where the
                                     * loop starts, IRTemp_INVALID if none */
    const IRConst *held_const[STATE_BYTES];  /* or the constant, or NULL */
    const IRExpr **def;             /* temporary -> its expression */
    Int *def_at;                    /* temporary -> its statement, -1 */
    UChar *tainted_tmp;             /* temporaries that carry the load's value */
    UChar tainted_reg[STATE_BYTES]; /* and guest-state bytes */
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

/* Notes a register write of the code before the loop (held: the
 * temporary put there, if any) or of the loop. */
static void note_put(loop *l, const IRStmt *st, Bool before)
{
    Int offset, size, b;
    IRTemp t = IRTemp_INVALID;
    const IRConst *c = NULL;

    if (!put_range(l->sb->tyenv, st, &offset, &size))
        return;
    if (st->tag == Ist_Put && st->Ist.Put.data->tag == Iex_RdTmp)
        t = st->Ist.Put.data->Iex.RdTmp.tmp;
    if (st->tag == Ist_Put && st->Ist.Put.data->tag == Iex_Const)
        c = st->Ist.Put.data->Iex.Const.con;
    for (b = offset < 0 ? 0 : offset; b < offset + size && b < STATE_BYTES; b++) {
        if (before) {
            l->put_before[b] = 1;
            l->held[b] = t;
            l->held_const[b] = c;
        } else {
            l->written[b] = 1;
        }
    }
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

/* A store of the loop: True if it goes into the frame (noted). */
static Bool note_frame_store(loop *l, const IRStmt *st, Int at)
{
    frame_store *f = &l->stored[l->n_stored];

    if (st->tag != Ist_Store || l->n_stored == MAX_FRAME_STORES
        || !frame_slot_of(l, st->Ist.Store.addr, &f->slot, 0))
        return False;
    f->at = at;
    f->data = st->Ist.Store.data;
    l->n_stored++;
    return True;
}

/* Scans the block up to the loop's end: register writes and temporaries;
 * False if the loop stores. */
static Bool scan_loop(loop *l)
{
    Int i, b;

    for (b = 0; b < STATE_BYTES; b++)
        l->held[b] = IRTemp_INVALID;
    for (i = l->start; i <= l->last; i++) {
        const IRStmt *st = l->sb->stmts[i];

        if (i >= l->head && stores(st) && !note_frame_store(l, st, i))
            return False;
        note_put(l, st, i < l->head);
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

static Bool invariant(const loop *l, const IRExpr *e, Int depth, Bool before);


/* Whether a load at statement `at` from `addr` gives the same value
 * every time round: it reads a frame slot that the loop stored before it
 * (the same value, if that was), or one the loop never stores. */
static Bool frame_load_invariant(const loop *l, const IRExpr *addr, Int at, Int depth)
{
    frame_slot slot;
    const frame_store *f;

    if (!frame_slot_of(l, addr, &slot, 0) || !invariant(l, addr, depth + 1, at < l->head))
        return False;
    if (at >= l->head && (f = store_before(l, slot, at)) != NULL)
        return invariant(l, f->data, depth + 1, False);
    return store_before(l, slot, ANYWHERE) == NULL;
}

/* Whether the loop writes a register with a value computed from t (not
 * merely loaded through it), a temporary of the code before it: t is then the register's value the
 * first time round (VEX removed the write of t itself, dead once the loop
 * writes the register before any exit). */
static Bool carried_by_loop(const loop *l, IRTemp t)
{
    UChar *from_t = VG_(calloc)("rp.spin.carried", l->sb->tyenv->types_used + 1, 1);
    Bool carried = False;
    Int i;

    from_t[t] = 1;
    for (i = l->head; i <= l->last && !carried; i++) {
        const IRStmt *st = l->sb->stmts[i];

        if (st->tag == Ist_WrTmp && reads(st->Ist.WrTmp.data, from_t, NULL, False))
            from_t[st->Ist.WrTmp.tmp] = 1;
        else if (st->tag == Ist_Put && reads(st->Ist.Put.data, from_t, NULL, False))
            carried = True;
    }
    VG_(free)(from_t);
    return carried;
}

/* Whether temporary t is the same every time round: computed in the loop
 * from what is; or computed before it and held where the loop starts in
 * registers the loop does not write; or held nowhere but computed from
 * what is. */
static Bool tmp_invariant(const loop *l, IRTemp t, Int depth)
{
    Bool held = False;
    Int b;

    if (l->def[t] == NULL)
        return False;
    if (l->def[t]->tag == Iex_Load)
        return frame_load_invariant(l, l->def[t]->Iex.Load.addr, l->def_at[t], depth);
    if (l->def_at[t] >= l->head)
        return invariant(l, l->def[t], depth + 1, False);
    if (carried_by_loop(l, t))
        return False;
    for (b = 0; b < STATE_BYTES; b++)
        if (l->held[b] == t) {
            if (l->written[b])
                return False;
            held = True;
        }
    return held || invariant(l, l->def[t], depth + 1, True);
}

/* Whether constant c is what the code before the loop put in a register
 * the loop writes: VEX then passed the constant itself into the loop's
 * first time round (a `lea` of an array before a loop that walks it). */
static Bool const_held_by_written(const loop *l, const IRConst *c)
{
    Int b;

    for (b = 0; b < STATE_BYTES; b++)
        if (l->held_const[b] != NULL && l->written[b] && eqIRConst(l->held_const[b], c))
            return True;
    return False;
}

/* Whether e has the same value every time round the loop: constants and
 * registers the loop does not write, combined by pure operations.  An
 * expression of the code before the loop (`before`) may read only
 * registers that code does not write either. */
static Bool invariant(const loop *l, const IRExpr *e, Int depth, Bool before)
{
    Int i;

    if (depth > MAX_DEPTH)
        return False;
    switch (e->tag) {
    case Iex_Const:
        return !const_held_by_written(l, e->Iex.Const.con);
    case Iex_RdTmp:
        return tmp_invariant(l, e->Iex.RdTmp.tmp, depth);
    case Iex_Get: {
        Int size = sizeofIRType(e->Iex.Get.ty);

        return !any_byte(l->written, e->Iex.Get.offset, size)
               && !(before && any_byte(l->put_before, e->Iex.Get.offset, size));
    }
    case Iex_Unop:
        return invariant(l, e->Iex.Unop.arg, depth + 1, before);
    case Iex_Binop:
        return invariant(l, e->Iex.Binop.arg1, depth + 1, before)
               && invariant(l, e->Iex.Binop.arg2, depth + 1, before);
    case Iex_Triop:
        return invariant(l, e->Iex.Triop.details->arg1, depth + 1, before)
               && invariant(l, e->Iex.Triop.details->arg2, depth + 1, before)
               && invariant(l, e->Iex.Triop.details->arg3, depth + 1, before);
    case Iex_ITE:
        return invariant(l, e->Iex.ITE.cond, depth + 1, before)
               && invariant(l, e->Iex.ITE.iftrue, depth + 1, before)
               && invariant(l, e->Iex.ITE.iffalse, depth + 1, before);
    case Iex_CCall:
        for (i = 0; e->Iex.CCall.args[i] != NULL; i++)
            if (!invariant(l, e->Iex.CCall.args[i], depth + 1, before))
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

/* Whether the value loaded into temporary t at statement `at` decides a
 * branch of the loop: followed forward through temporaries and registers
 * to an exit's guard. */
static Bool decides_branch(loop *l, IRTemp t, Int at)
{
    const IRTypeEnv *tyenv = l->sb->tyenv;
    Int i;

    VG_(memset)(l->tainted_tmp, 0, tyenv->types_used);
    VG_(memset)(l->tainted_reg, 0, sizeof l->tainted_reg);
    l->tainted_tmp[t] = 1;
    l->n_tainted_slots = 0;
    for (i = at + 1; i <= l->last; i++) {
        const IRStmt *st = l->sb->stmts[i];

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
    }
    return False;
}

/* Whether addr is a frame slot the loop stores (its own temporary). */
static Bool stored_slot(const loop *l, const IRExpr *addr)
{
    frame_slot slot;

    return frame_slot_of(l, addr, &slot, 0) && store_before(l, slot, ANYWHERE) != NULL;
}

/* Whether e is a constant once VEX has folded it: in a loop that starts
 * in the middle of its block, the constant may be a register's value the
 * code before the loop set (a pointer the loop then moves). */
static Bool folded_constant(const loop *l, const IRExpr *e, Int depth)
{
    if (depth > MAX_DEPTH)
        return False;
    switch (e->tag) {
    case Iex_Const:
        return True;
    case Iex_RdTmp:
        return l->def[e->Iex.RdTmp.tmp] != NULL
               && folded_constant(l, l->def[e->Iex.RdTmp.tmp], depth + 1);
    case Iex_Unop:
        return folded_constant(l, e->Iex.Unop.arg, depth + 1);
    case Iex_Binop:
        return folded_constant(l, e->Iex.Binop.arg1, depth + 1)
               && folded_constant(l, e->Iex.Binop.arg2, depth + 1);
    default:
        return False;
    }
}

/* Whether the amd64 instruction at `insn` addresses memory at a fixed
 * address written in it: RIP-relative (ModRM mod 00, r/m 101), absolute
 * (a SIB byte with neither base nor index), or a moffs move.  Such an
 * address is a global variable's whatever the registers hold.  False
 * when unsure (VEX-encoded instructions are not decoded). */
static Bool fixed_address_operand(Addr insn)
{
    const UChar *p = (const UChar *)insn;
    UChar rex = 0, modrm, sib;
    Int i = 0;

    if (!VG_(am_is_valid_for_client)(insn, 16, VKI_PROT_EXEC))
        return False;
    while (i < 4 && (p[i] == 0x66 || p[i] == 0x67 || p[i] == 0xF0 || p[i] == 0xF2
                     || p[i] == 0xF3 || p[i] == 0x2E || p[i] == 0x3E || p[i] == 0x26
                     || p[i] == 0x36 || p[i] == 0x64 || p[i] == 0x65))
        i++;
    if ((p[i] & 0xF0) == 0x40)
        rex = p[i++];
    if (p[i] >= 0xA0 && p[i] <= 0xA3)
        return True;
    /* String instructions (no ModRM: rsi/rdi) and VEX/EVEX/XOP encodings. */
    if ((p[i] >= 0xA4 && p[i] <= 0xAF) || p[i] == 0xD7 || p[i] == 0xC4 || p[i] == 0xC5
        || p[i] == 0x62 || p[i] == 0x8F)
        return False;
    if (p[i] == 0x0F && (p[i + 1] == 0x38 || p[i + 1] == 0x3A))
        i += 2;
    else if (p[i] == 0x0F)
        i++;
    modrm = p[i + 1];
    if ((modrm >> 6) != 0)
        return False;
    if ((modrm & 7) == 5)
        return True;
    sib = p[i + 2];
    return (modrm & 7) == 4 && (sib & 7) == 5 && ((sib >> 3) & 7) == 4 && !(rex & 2);
}

/* Marks the spin reads of the loop [head, last], the code before it in
 * the block starting at statement `start`. */
static void judge_loop(const IRSB *sb, const VexGuestLayout *layout, Int start, Int head,
                       Int last, Bool *spin)
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

        for (i = head; i <= last; i++) {
            const IRStmt *st = sb->stmts[i];

            if (st->tag == Ist_IMark)
                insn = (Addr)st->Ist.IMark.addr;
            if (st->tag == Ist_WrTmp && st->Ist.WrTmp.data->tag == Iex_Load
                && invariant(l, st->Ist.WrTmp.data->Iex.Load.addr, 0, False)
                && !stored_slot(l, st->Ist.WrTmp.data->Iex.Load.addr)
                && !(head > start && folded_constant(l, st->Ist.WrTmp.data->Iex.Load.addr, 0)
                     && !fixed_address_operand(insn))
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
    /* A branch back to an instruction of the block closes a loop. */
    for (i = start; i < sb->stmts_used; i++) {
        const IRStmt *st = sb->stmts[i];

        if (st->tag == Ist_Exit && const_target(st->Ist.Exit.dst, &target)
            && (head = loop_head(sb, start, i, target)) >= 0)
            judge_loop(sb, layout, start, head, i, spin);
    }
    if (sb->jumpkind == Ijk_Boring && sb->next->tag == Iex_Const
        && const_target(sb->next->Iex.Const.con, &target)
        && (head = loop_head(sb, start, sb->stmts_used - 1, target)) >= 0)
        judge_loop(sb, layout, start, head, sb->stmts_used - 1, spin);
    /* A pause ends the block: the whole block is taken as the loop. */
    if (sb->jumpkind == Ijk_Yield)
        judge_loop(sb, layout, start, start, sb->stmts_used - 1, spin);
}
