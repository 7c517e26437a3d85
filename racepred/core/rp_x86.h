/* rp_x86.h — decoding single amd64 instructions.
 *
 * VEX hands the tool IR, in which some facts about the machine code are
 * gone: which registers an instruction's address used before constant
 * folding (rp_spin.c), or what the code at a branch target the block does
 * not include does (a call to usleep the spin-loop rule looks at).  Those
 * few questions are answered from the bytes, with a decoder of the
 * general-purpose and SSE move instructions compilers emit around loads,
 * calls and branches.  Anything else (VEX-encoded AVX, string and x87
 * instructions, far branches) is "not decoded", and callers take that as
 * "do not know".  Portable: it decodes bytes; the front end reads them
 * from the client (rp_code.h).
 */
#ifndef RP_X86_H
#define RP_X86_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* No register. */
#define RP_X86_NONE (-1)

typedef struct rp_x86_insn {
    uint64_t addr;
    uint32_t len;             /* bytes */
    uint32_t opcode;          /* the opcode byte, or 0x0F00 | the second byte */
    uint8_t rep;              /* F2 or F3 prefix, 0 if none */
    uint8_t rex;
    bool has_modrm;
    uint32_t mod, reg, rm;    /* reg includes REX.R; rm REX.B when mod == 3 */
    bool mem;                 /* a memory operand (mod != 3) */
    int32_t base, index;      /* its registers, 0 (RAX) .. 15, RP_X86_NONE */
    uint32_t scale;           /* of the index: 1, 2, 4 or 8 */
    bool rip_relative;
    int64_t disp;
    uint64_t target;          /* RIP-relative operand's address; branch or call target */
    int64_t imm;              /* immediate, sign-extended from its size */
    uint32_t imm_size;        /* 0: none */
} rp_x86_insn;

/* The longest amd64 instruction, and the bytes the decoder may read
 * (past the end of a garbage encoding: pad with anything). */
#define RP_X86_MAX_LEN 15
#define RP_X86_BYTES 24

/* Decodes the instruction whose first bytes are at `code` (RP_X86_BYTES of
 * them readable) and which is at address `addr`; false when it is not
 * one decoded. */
bool rp_x86_decode_bytes(const uint8_t *code, uint64_t addr, rp_x86_insn *insn);

/* Whether two decoded instructions' memory operands name the same
 * address (the same registers, scale and displacement, or the same
 * RIP-relative target). */
bool rp_x86_same_operand(const rp_x86_insn *a, const rp_x86_insn *b);

/* Register numbers of the stack and frame pointers. */
#define RP_X86_RSP 4
#define RP_X86_RBP 5

#endif
