/* rp_callee.c — the name of the function a direct call reaches; see
 * rp_callee.h. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_vki.h"

#include "rp_callee.h"
#include "rp_code.h"

/* ELF dynamic tags and the x86-64 PLT relocation type. */
#define DT_NULL 0
#define DT_STRTAB 5
#define DT_SYMTAB 6
#define DT_PLTREL 20
#define DT_JMPREL 23
#define DT_RELA 7
#define R_X86_64_JUMP_SLOT 7
#define RELA_SIZE 24
#define SYM_SIZE 24
#define MAX_DYNAMIC 256
#define GOT_RESERVED 3

static Bool readable(Addr a, SizeT len)
{
    return VG_(am_is_valid_for_client)(a, len, VKI_PROT_READ);
}

/* A word of client memory, if readable. */
static Bool read_word(Addr a, ULong *value)
{
    if (!readable(a, 8))
        return False;
    VG_(memcpy)(value, (const void *)a, 8);
    return True;
}

/* The instruction at a, after an endbr64 if there is one. */
static Bool decode_past_endbr(Addr a, rp_x86_insn *d)
{
    if (!rp_code_decode(a, d))
        return False;
    if (d->opcode == 0x0F1E && d->rep == 0xF3)
        return rp_code_decode(a + d->len, d);
    return True;
}

/* The GOT slot a PLT entry jumps through: jmp *slot(%rip), after an
 * endbr64 and with a bnd prefix or not. */
static Bool plt_slot(Addr entry, Addr *slot)
{
    rp_x86_insn d;

    if (!decode_past_endbr(entry, &d) || d.opcode != 0xFF || (d.reg & 7) != 4
        || !d.rip_relative)
        return False;
    *slot = d.target;
    return True;
}

static Bool copy_string(Addr s, HChar *buf, SizeT size)
{
    SizeT i;

    for (i = 0; i + 1 < size; i++) {
        if (!readable(s + i, 1))
            return False;
        buf[i] = *(const HChar *)(s + i);
        if (buf[i] == '\0')
            return i > 0;
    }
    buf[i] = '\0';
    return True;
}

/* The dynamic section's relocation, symbol and string tables. */
typedef struct dyn_tables {
    Addr jmprel, symtab, strtab;
    Bool rela;
} dyn_tables;

static Bool read_dynamic(Addr dyn, dyn_tables *t)
{
    UInt i;

    VG_(memset)(t, 0, sizeof *t);
    for (i = 0; i < MAX_DYNAMIC; i++, dyn += 16) {
        ULong tag, value;

        if (!read_word(dyn, &tag) || !read_word(dyn + 8, &value))
            return False;
        if (tag == DT_NULL)
            break;
        if (tag == DT_JMPREL)
            t->jmprel = value;
        else if (tag == DT_SYMTAB)
            t->symtab = value;
        else if (tag == DT_STRTAB)
            t->strtab = value;
        else if (tag == DT_PLTREL)
            t->rela = value == DT_RELA;
    }
    return t->jmprel != 0 && t->symtab != 0 && t->strtab != 0 && t->rela;
}

/* The symbol of PLT relocation `index`, which must be for GOT slot
 * `slot` (the object's link map says where it is loaded and where its
 * dynamic section is). */
static Bool relocation_symbol(Addr slot, ULong index, HChar *buf, SizeT size)
{
    ULong link_map, load_bias, dynamic, r_offset, r_info;
    UInt name;
    dyn_tables t;
    Addr rela, got = slot - 8 * (index + GOT_RESERVED);

    if (!read_word(got + 8, &link_map) || !read_word(link_map, &load_bias)
        || !read_word(link_map + 16, &dynamic) || !read_dynamic(dynamic, &t))
        return False;
    rela = t.jmprel + RELA_SIZE * index;
    if (!read_word(rela, &r_offset) || !read_word(rela + 8, &r_info)
        || r_offset + load_bias != slot || (r_info & 0xFFFFFFFF) != R_X86_64_JUMP_SLOT)
        return False;
    if (!readable(t.symtab + SYM_SIZE * (r_info >> 32), 4))
        return False;
    VG_(memcpy)(&name, (const void *)(t.symtab + SYM_SIZE * (r_info >> 32)), 4);
    return copy_string(t.strtab + name, buf, size);
}

static Bool entry_name(Addr a, HChar *buf, SizeT size)
{
    const HChar *name;

    if (!VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), a, &name))
        return False;
    VG_(strncpy)(buf, name, size - 1);
    buf[size - 1] = '\0';
    return True;
}

Bool rp_callee_name(Addr target, HChar *buf, SizeT size)
{
    Addr slot;
    ULong bound;
    rp_x86_insn push;

    if (size == 0)
        return False;
    if (entry_name(target, buf, size))
        return True;
    if (!plt_slot(target, &slot) || !read_word(slot, &bound))
        return False;
    if (entry_name(bound, buf, size))
        return True;
    /* Not bound yet: the slot leads to `push $index` in the PLT. */
    if (!decode_past_endbr(bound, &push) || push.opcode != 0x68 || push.imm < 0)
        return False;
    return relocation_symbol(slot, (ULong)push.imm, buf, size);
}
