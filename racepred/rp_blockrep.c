/* rp_blockrep.c — accesses a superblock repeats (rp_blockrep.h). */
#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

#include "rp_blockrep.h"
#include "rp_tool.h"

/* An address as a root plus a constant offset. */
typedef enum { ROOT_NONE, ROOT_TEMP, ROOT_REG, ROOT_CONST } root_kind;

typedef struct addr_key {
    root_kind kind;
    ULong root;     /* temporary; register offset and generation; 0 */
    Long off;
} addr_key;

typedef struct block_access {
    addr_key at;
    Int size;
    Bool is_write;
} block_access;

#define MAX_ACCESSES 32

static addr_key *temp_key;
static UInt temp_cap;
static UInt n_temps;
/* Guest register writes so far: a register read before one is another
 * root than the same register read after it. */
static ULong n_puts;
static Bool drop_writes;
static block_access seen[MAX_ACCESSES];
static UInt n_seen;

ULong rp_blockrep_dropped_static;

void rp_blockrep_start(const IRTypeEnv *tyenv, Bool writes_too)
{
    UInt i;

    n_temps = (UInt)tyenv->types_used;
    if (n_temps >= temp_cap)
        temp_key = rp_tool_grow_zeroed("rp.blockrep", temp_key, &temp_cap, n_temps,
                                       sizeof *temp_key);
    for (i = 0; i < n_temps; i++)
        temp_key[i].kind = ROOT_NONE;
    n_puts = 0;
    drop_writes = writes_too;
    n_seen = 0;
}

void rp_blockrep_event(void)
{
    n_seen = 0;
}

static addr_key key_of(const IRExpr *e)
{
    addr_key k = { ROOT_NONE, 0, 0 };

    if (e->tag == Iex_Const && e->Iex.Const.con->tag == Ico_U64) {
        k.kind = ROOT_CONST;
        k.off = (Long)e->Iex.Const.con->Ico.U64;
    } else if (e->tag == Iex_RdTmp && (UInt)e->Iex.RdTmp.tmp < n_temps) {
        k = temp_key[e->Iex.RdTmp.tmp];
        if (k.kind == ROOT_NONE) {
            k.kind = ROOT_TEMP;
            k.root = e->Iex.RdTmp.tmp;
        }
    }
    return k;
}

/* The register at `offset` as it is now. */
static addr_key key_of_register(Int offset)
{
    addr_key k = { ROOT_REG, n_puts << 16 | (ULong)(UInt)offset, 0 };

    return k;
}

/* The key of a temporary's defining expression, if it is an address
 * form we follow. */
static addr_key key_of_data(const IRExpr *e)
{
    addr_key none = { ROOT_NONE, 0, 0 }, k;

    switch (e->tag) {
    case Iex_RdTmp:
        return key_of(e);
    case Iex_Get:
        return e->Iex.Get.ty == Ity_I64 ? key_of_register(e->Iex.Get.offset) : none;
    case Iex_Binop:
        if ((e->Iex.Binop.op != Iop_Add64 && e->Iex.Binop.op != Iop_Sub64)
            || e->Iex.Binop.arg2->tag != Iex_Const
            || e->Iex.Binop.arg2->Iex.Const.con->tag != Ico_U64)
            return none;
        k = key_of(e->Iex.Binop.arg1);
        if (k.kind == ROOT_NONE)
            return none;
        if (e->Iex.Binop.op == Iop_Add64)
            k.off += (Long)e->Iex.Binop.arg2->Iex.Const.con->Ico.U64;
        else
            k.off -= (Long)e->Iex.Binop.arg2->Iex.Const.con->Ico.U64;
        return k;
    default:
        return none;
    }
}

void rp_blockrep_note(const IRStmt *st)
{
    if (st->tag == Ist_Put || st->tag == Ist_PutI) {
        n_puts++;
    } else if (st->tag == Ist_WrTmp && (UInt)st->Ist.WrTmp.tmp < n_temps) {
        addr_key k = key_of_data(st->Ist.WrTmp.data);

        if (k.kind != ROOT_TEMP || k.root != st->Ist.WrTmp.tmp)
            temp_key[st->Ist.WrTmp.tmp] = k;
    }
}

static Bool covers(const block_access *a, addr_key at, Int size, Bool is_write)
{
    return a->at.kind == at.kind && a->at.root == at.root && a->at.off <= at.off
        && at.off + size <= a->at.off + a->size && (a->is_write || !is_write);
}

Bool rp_blockrep_repeats(const IRExpr *addr, Int size, Bool is_write, Bool surely)
{
    addr_key at = key_of(addr);
    UInt i;

    if (at.kind == ROOT_NONE)
        return False;
    if (!is_write || drop_writes) {
        for (i = 0; i < n_seen; i++) {
            if (covers(&seen[i], at, size, is_write)) {
                rp_blockrep_dropped_static++;
                return True;
            }
        }
    }
    if (surely && n_seen < MAX_ACCESSES) {
        seen[n_seen].at = at;
        seen[n_seen].size = size;
        seen[n_seen].is_write = is_write;
        n_seen++;
    }
    return False;
}
