/* rp_x86.h — decoding single amd64 instructions of the client's code.
 *
 * VEX hands the tool IR, in which some facts about the machine code are
 * gone: which registers an instruction's address used before constant
 * folding (rp_spin.c), or what the code at a branch target the block does
 * not include does (a call to usleep the spin-loop rule looks at).  Those
 * few questions are answered from the bytes, with a decoder of the
 * general-purpose and SSE move instructions compilers emit around loads,
 * calls and branches.  Anything else (VEX-encoded AVX, string and x87
 * instructions, far branches) is "not decoded", and callers take that as
 * "do not know".
 */
#ifndef RP_X86_H
#define RP_X86_H

#include "pub_tool_basics.h"

/* No register. */
#define RP_X86_NONE (-1)

typedef struct rp_x86_insn {
    Addr addr;
    UInt len;                 /* bytes */
    UInt opcode;              /* the opcode byte, or 0x0F00 | the second byte */
    UChar rep;                /* F2 or F3 prefix, 0 if none */
    UChar rex;
    Bool has_modrm;
    UInt mod, reg, rm;        /* reg includes REX.R; rm REX.B when mod == 3 */
    Bool mem;                 /* a memory operand (mod != 3) */
    Int base, index;          /* its registers, 0 (RAX) .. 15, RP_X86_NONE */
    UInt scale;               /* of the index: 1, 2, 4 or 8 */
    Bool rip_relative;
    Long disp;
    Addr target;              /* RIP-relative operand's address; branch or call target */
    Long imm;                 /* immediate, sign-extended from its size */
    UInt imm_size;            /* 0: none */
} rp_x86_insn;

/* Decodes the client's instruction at `addr`; False when its bytes are
 * not executable client memory or the instruction is not one decoded. */
Bool rp_x86_decode(Addr addr, rp_x86_insn *insn);

/* Whether two decoded instructions' memory operands name the same
 * address (the same registers, scale and displacement, or the same
 * RIP-relative target). */
Bool rp_x86_same_operand(const rp_x86_insn *a, const rp_x86_insn *b);

/* Register numbers of the stack and frame pointers. */
#define RP_X86_RSP 4
#define RP_X86_RBP 5

#endif
