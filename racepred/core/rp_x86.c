/* rp_x86.c — decoding single amd64 instructions; see rp_x86.h. */
#include "rp_x86.h"
#include "rp_shim.h"

static bool is_prefix(uint8_t b)
{
    return b == 0x66 || b == 0x67 || b == 0xF0 || b == 0xF2 || b == 0xF3 || b == 0x2E
           || b == 0x3E || b == 0x26 || b == 0x36 || b == 0x64 || b == 0x65;
}

/* Whether a one-byte opcode has a ModRM byte; -1 if not decoded. */
static int32_t one_byte_modrm(uint8_t op)
{
    if (op < 0x40)
        return (op & 7) < 4 ? 1 : (op & 7) < 6 ? 0 : -1;
    if ((op >= 0x50 && op <= 0x5F) || (op >= 0x70 && op <= 0x7F) || (op >= 0x90 && op <= 0x99)
        || (op >= 0xB0 && op <= 0xBF) || op == 0x68 || op == 0x6A || op == 0xA8 || op == 0xA9
        || op == 0xC2 || op == 0xC3 || op == 0xC9 || op == 0xCC || op == 0xE8 || op == 0xE9
        || op == 0xEB || op == 0xF4)
        return 0;
    if (op == 0x63 || op == 0x69 || op == 0x6B || (op >= 0x80 && op <= 0x8E) || op == 0xC0
        || op == 0xC1 || op == 0xC6 || op == 0xC7 || (op >= 0xD0 && op <= 0xD3) || op == 0xF6
        || op == 0xF7 || op == 0xFE || op == 0xFF)
        return 1;
    return -1;
}

/* Whether a 0F-escaped opcode has a ModRM byte; -1 if not decoded. */
static int32_t two_byte_modrm(uint8_t op)
{
    if (op == 0x05 || op == 0x0B || op == 0x31 || op == 0xA2 || (op >= 0x80 && op <= 0x8F))
        return 0;
    if ((op >= 0x10 && op <= 0x1F) || (op >= 0x28 && op <= 0x2F) || (op >= 0x40 && op <= 0x7F)
        || (op >= 0x90 && op <= 0x9F) || op == 0xA3 || op == 0xAF || op == 0xB0 || op == 0xB1
        || (op >= 0xB6 && op <= 0xBF && op != 0xB9) || (op >= 0xC0 && op <= 0xC6)
        || op >= 0xD0)
        return 1;
    return -1;
}

/* The size of the immediate (branch displacements included) of a
 * decoded opcode; `reg` is the ModRM reg field (groups 0xF6/0xF7). */
static uint32_t immediate_size(const rp_x86_insn *d, bool opsize16)
{
    uint32_t op = d->opcode, z = opsize16 ? 2 : 4;

    if (op < 0x40)
        return (op & 7) == 4 ? 1 : (op & 7) == 5 ? z : 0;
    if ((op >= 0x70 && op <= 0x7F) || (op >= 0xB0 && op <= 0xB7) || op == 0x6A || op == 0x6B
        || op == 0x80 || op == 0x83 || op == 0xA8 || op == 0xC0 || op == 0xC1 || op == 0xC6
        || op == 0xEB || (op == 0xF6 && (d->reg & 7) < 2) || op == 0x0F70 || op == 0x0F71
        || op == 0x0F72 || op == 0x0F73 || op == 0x0FC2 || op == 0x0FC4 || op == 0x0FC5
        || op == 0x0FC6)
        return 1;
    if (op >= 0xB8 && op <= 0xBF)
        return (d->rex & 8) ? 8 : z;
    if (op == 0x68 || op == 0x69 || op == 0x81 || op == 0xA9 || op == 0xC7
        || (op == 0xF7 && (d->reg & 7) < 2))
        return z;
    if (op == 0xE8 || op == 0xE9 || (op >= 0x0F80 && op <= 0x0F8F))
        return 4;
    if (op == 0xC2)
        return 2;
    return 0;
}

/* The memory operand of ModRM (and SIB) at p; returns the bytes they
 * and the displacement take, 0 if the memory at p ends too soon. */
static uint32_t decode_memory(const uint8_t *p, rp_x86_insn *d)
{
    uint32_t n = 1;
    uint8_t sib;

    d->mem = true;
    d->base = (int32_t)(d->rm | (d->rex & 1) << 3);
    if (d->mod == 0 && d->rm == 5) {
        d->base = RP_X86_NONE;
        d->rip_relative = true;
        rp_memcpy(&d->disp, p + 1, 4);
        d->disp = (int32_t)d->disp;
        return 5;
    }
    if (d->rm == 4) {
        sib = p[n++];
        d->base = (sib & 7) == 5 && d->mod == 0 ? RP_X86_NONE : (int32_t)((sib & 7) | (d->rex & 1) << 3);
        d->index = (int32_t)(((sib >> 3) & 7) | (d->rex & 2) << 2);
        d->scale = 1u << (sib >> 6);
        if (d->index == RP_X86_RSP)
            d->index = RP_X86_NONE;
        if ((sib & 7) == 5 && d->mod == 0) {
            int32_t disp32;

            rp_memcpy(&disp32, p + n, 4);
            d->disp = disp32;
            return n + 4;
        }
    }
    if (d->mod == 1) {
        d->disp = (signed char)p[n];
        n += 1;
    } else if (d->mod == 2) {
        int32_t disp32;

        rp_memcpy(&disp32, p + n, 4);
        d->disp = disp32;
        n += 4;
    }
    return n;
}

static int64_t read_immediate(const uint8_t *p, uint32_t size)
{
    int64_t v = 0;

    switch (size) {
    case 1: v = (signed char)p[0]; break;
    case 2: { int16_t s; rp_memcpy(&s, p, 2); v = s; break; }
    case 4: { int32_t i; rp_memcpy(&i, p, 4); v = i; break; }
    case 8: rp_memcpy(&v, p, 8); break;
    default: break;
    }
    return v;
}

/* The opcode at p[*i] (escapes included), and whether it has a ModRM
 * byte (-1: not decoded). */
static int32_t decode_opcode(const uint8_t *p, uint32_t *i, rp_x86_insn *d)
{
    if (p[*i] != 0x0F) {
        d->opcode = p[(*i)++];
        return one_byte_modrm((uint8_t)d->opcode);
    }
    if (p[*i + 1] == 0x38 || p[*i + 1] == 0x3A) {
        /* Three-byte opcodes: all have ModRM; 0F 3A ones an imm8. */
        d->opcode = 0x0F00 | p[*i + 1];
        *i += 3;
        d->imm_size = p[*i - 2] == 0x3A ? 1 : 0;
        return 1;
    }
    d->opcode = 0x0F00 | p[*i + 1];
    *i += 2;
    return two_byte_modrm((uint8_t)d->opcode);
}

bool rp_x86_decode_bytes(const uint8_t *p, uint64_t addr, rp_x86_insn *d)
{
    bool opsize16 = false;
    uint32_t i = 0;
    int32_t modrm;

    rp_memset(d, 0, sizeof *d);
    d->addr = addr;
    d->base = d->index = RP_X86_NONE;
    d->scale = 1;
    while (i < 4 && is_prefix(p[i])) {
        if (p[i] == 0x66)
            opsize16 = true;
        if (p[i] == 0xF2 || p[i] == 0xF3)
            d->rep = p[i];
        i++;
    }
    if ((p[i] & 0xF0) == 0x40)
        d->rex = p[i++];
    if (p[i] >= 0xA0 && p[i] <= 0xA3) {
        /* mov between rAX and a 64-bit absolute address */
        d->opcode = p[i];
        d->mem = true;
        d->disp = read_immediate(p + i + 1, 8);
        d->len = i + 9;
        return true;
    }
    modrm = decode_opcode(p, &i, d);
    if (modrm < 0)
        return false;
    if (modrm) {
        d->has_modrm = true;
        d->mod = p[i] >> 6;
        d->reg = ((p[i] >> 3) & 7) | (d->rex & 4) << 1;
        d->rm = p[i] & 7;
        if (d->mod == 3) {
            d->rm |= (d->rex & 1) << 3;
            i++;
        } else {
            i += decode_memory(p + i, d);
        }
    }
    if (d->imm_size == 0)
        d->imm_size = immediate_size(d, opsize16 && d->opcode != 0xE8 && d->opcode != 0xE9);
    d->imm = read_immediate(p + i, d->imm_size);
    i += d->imm_size;
    if (i > RP_X86_MAX_LEN)
        return false;
    d->len = i;
    if (d->rip_relative)
        d->target = addr + i + d->disp;
    if (d->opcode == 0xE8 || d->opcode == 0xE9 || d->opcode == 0xEB
        || (d->opcode >= 0x70 && d->opcode <= 0x7F) || (d->opcode >= 0x0F80 && d->opcode <= 0x0F8F))
        d->target = addr + i + d->imm;
    return true;
}

bool rp_x86_same_operand(const rp_x86_insn *a, const rp_x86_insn *b)
{
    if (!a->mem || !b->mem)
        return false;
    if (a->rip_relative || b->rip_relative)
        return a->rip_relative && b->rip_relative && a->target == b->target;
    return a->base == b->base && a->index == b->index && a->scale == b->scale
           && a->disp == b->disp;
}
