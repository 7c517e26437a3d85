/* test_x86.c — the amd64 decoder of the spin-loop rule (rp_x86.h) on the
 * encodings compilers emit around polls, calls and branches, each
 * checked field by field (length, opcode, prefixes, memory operand,
 * immediate, branch target), and on encodings it must refuse (AVX,
 * string operations).  The bytes are from objdump of gcc 12 -O0/-O2
 * code, libstdc++'s atomic wait, liblzma and glibc's PLT stubs. */
#include "rp_x86.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define ADDR 0x401000u
#define N RP_X86_NONE

typedef struct expect {
    const char *what;
    uint8_t bytes[RP_X86_MAX_LEN];
    uint32_t len, opcode;
    uint8_t rep;
    int mem;                  /* 1: a memory operand */
    int32_t base, index;
    uint32_t scale;
    int64_t disp;
    uint64_t target;          /* RIP-relative operand or branch target, 0: none */
    int64_t imm;
} expect;

static const expect cases[] = {
    { "mov 0x2d7e(%rip),%eax", { 0x8b, 0x05, 0x7e, 0x2d, 0x00, 0x00 }, 6, 0x8b, 0, 1, N, N, 1,
      0x2d7e, ADDR + 6 + 0x2d7e, 0 },
    { "mov (%rbx),%eax", { 0x8b, 0x03 }, 2, 0x8b, 0, 1, 3, N, 1, 0, 0, 0 },
    { "movzbl (%r15),%eax", { 0x41, 0x0f, 0xb6, 0x07 }, 4, 0x0fb6, 0, 1, 15, N, 1, 0, 0, 0 },
    { "mov (%r12),%eax", { 0x41, 0x8b, 0x04, 0x24 }, 4, 0x8b, 0, 1, 12, N, 1, 0, 0, 0 },
    { "movdqu 0x2c8(%rdi),%xmm1", { 0xf3, 0x0f, 0x6f, 0x8f, 0xc8, 0x02, 0x00, 0x00 }, 8, 0x0f6f,
      0xf3, 1, 7, N, 1, 0x2c8, 0, 0 },
    { "movaps %xmm0,0x10(%rsp)", { 0x0f, 0x29, 0x44, 0x24, 0x10 }, 5, 0x0f29, 0, 1, 4, N, 1, 0x10,
      0, 0 },
    { "mov 0xe0(%rsp),%rax", { 0x48, 0x8b, 0x84, 0x24, 0xe0, 0x00, 0x00, 0x00 }, 8, 0x8b, 0, 1, 4,
      N, 1, 0xe0, 0, 0 },
    { "mov (%r14,%rax,8),%rdx", { 0x49, 0x8b, 0x14, 0xc6 }, 4, 0x8b, 0, 1, 14, 0, 8, 0, 0, 0 },
    { "movq $0x0,0x8(%rsp)", { 0x48, 0xc7, 0x44, 0x24, 0x08, 0x00, 0x00, 0x00, 0x00 }, 9, 0xc7, 0,
      1, 4, N, 1, 8, 0, 0 },
    { "addq $0x1,0x2e00(%rip)", { 0x48, 0x83, 0x05, 0x00, 0x2e, 0x00, 0x00, 0x01 }, 8, 0x83, 0, 1,
      N, N, 1, 0x2e00, ADDR + 8 + 0x2e00, 1 },
    { "lock addl $0x1,0x0(%r13)", { 0xf0, 0x41, 0x83, 0x45, 0x00, 0x01 }, 6, 0x83, 0, 1, 13, N, 1,
      0, 0, 1 },
    { "cmp $0xb,%ebx", { 0x83, 0xfb, 0x0b }, 3, 0x83, 0, 0, N, N, 1, 0, 0, 11 },
    { "cmp $0xffffffff,%eax", { 0x83, 0xf8, 0xff }, 3, 0x83, 0, 0, N, N, 1, 0, 0, -1 },
    { "cmpl $0x4,(%rax)", { 0x83, 0x38, 0x04 }, 3, 0x83, 0, 1, 0, N, 1, 0, 0, 4 },
    { "mov $0x30d40,%edi", { 0xbf, 0x40, 0x0d, 0x03, 0x00 }, 5, 0xbf, 0, 0, N, N, 1, 0, 0,
      0x30d40 },
    { "movabs $0x1122334455667788,%rax", { 0x48, 0xb8, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22,
      0x11 }, 10, 0xb8, 0, 0, N, N, 1, 0, 0, 0x1122334455667788 },
    { "mov 0x1122334455667788,%eax", { 0xa1, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11 }, 9,
      0xa1, 0, 1, N, N, 1, 0x1122334455667788, 0, 0 },
    { "lea 0x143(%rip),%rdx", { 0x48, 0x8d, 0x15, 0x43, 0x01, 0x00, 0x00 }, 7, 0x8d, 0, 1, N, N, 1,
      0x143, ADDR + 7 + 0x143, 0 },
    { "call rel32", { 0xe8, 0x10, 0x00, 0x00, 0x00 }, 5, 0xe8, 0, 0, N, N, 1, 0, ADDR + 5 + 0x10,
      0x10 },
    { "call back", { 0xe8, 0xf0, 0xff, 0xff, 0xff }, 5, 0xe8, 0, 0, N, N, 1, 0, ADDR + 5 - 0x10,
      -0x10 },
    { "jmp rel8", { 0xeb, 0x0e }, 2, 0xeb, 0, 0, N, N, 1, 0, ADDR + 2 + 0x0e, 0x0e },
    { "je rel8 back", { 0x74, 0xf1 }, 2, 0x74, 0, 0, N, N, 1, 0, ADDR + 2 - 0x0f, -0x0f },
    { "jg rel32", { 0x0f, 0x8f, 0x20, 0x01, 0x00, 0x00 }, 6, 0x0f8f, 0, 0, N, N, 1, 0,
      ADDR + 6 + 0x120, 0x120 },
    { "pause", { 0xf3, 0x90 }, 2, 0x90, 0xf3, 0, N, N, 1, 0, 0, 0 },
    { "xchg %ax,%ax", { 0x66, 0x90 }, 2, 0x90, 0, 0, N, N, 1, 0, 0, 0 },
    { "cs nopw 0x0(%rax,%rax,1)", { 0x66, 0x2e, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
      10, 0x0f1f, 0, 1, 0, 0, 1, 0, 0, 0 },
    { "endbr64", { 0xf3, 0x0f, 0x1e, 0xfa }, 4, 0x0f1e, 0xf3, 0, N, N, 1, 0, 0, 0 },
    { "jmp *0x2fc2(%rip)", { 0xff, 0x25, 0xc2, 0x2f, 0x00, 0x00 }, 6, 0xff, 0, 1, N, N, 1, 0x2fc2,
      ADDR + 6 + 0x2fc2, 0 },
    { "bnd jmp *0x2fc2(%rip)", { 0xf2, 0xff, 0x25, 0xc2, 0x2f, 0x00, 0x00 }, 7, 0xff, 0xf2, 1, N, N,
      1, 0x2fc2, ADDR + 7 + 0x2fc2, 0 },
    { "push $0x1", { 0x68, 0x01, 0x00, 0x00, 0x00 }, 5, 0x68, 0, 0, N, N, 1, 0, 0, 1 },
    { "movw $0x7,0x2(%rsp)", { 0x66, 0xc7, 0x44, 0x24, 0x02, 0x07, 0x00 }, 7, 0xc7, 0, 1, 4, N, 1,
      2, 0, 7 },
    { "palignr $0x8,%xmm1,%xmm0", { 0x66, 0x0f, 0x3a, 0x0f, 0xc1, 0x08 }, 6, 0x0f3a, 0, 0, N, N, 1,
      0, 0, 8 },
    { "test %al,%al", { 0x84, 0xc0 }, 2, 0x84, 0, 0, N, N, 1, 0, 0, 0 },
    { "testb $0x1,(%rdi)", { 0xf6, 0x07, 0x01 }, 3, 0xf6, 0, 1, 7, N, 1, 0, 0, 1 },
    { "mov %rax,0x2d80(%rip)", { 0x48, 0x89, 0x05, 0x80, 0x2d, 0x00, 0x00 }, 7, 0x89, 0, 1, N, N, 1,
      0x2d80, ADDR + 7 + 0x2d80, 0 },
    { "mov -0x4(%rbp),%eax", { 0x8b, 0x45, 0xfc }, 3, 0x8b, 0, 1, 5, N, 1, -4, 0, 0 },
    { "mov 0x0(,%rax,4),%edx (no base)", { 0x8b, 0x14, 0x85, 0x00, 0x00, 0x00, 0x00 }, 7, 0x8b, 0, 1,
      N, 0, 4, 0, 0, 0 },
};

static void test_encodings(void **state)
{
    size_t i;

    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const expect *e = &cases[i];
        uint8_t bytes[RP_X86_BYTES];
        rp_x86_insn d;

        memset(bytes, 0xcc, sizeof bytes);
        memcpy(bytes, e->bytes, e->len);
        print_message("%s\n", e->what);
        assert_true(rp_x86_decode_bytes(bytes, ADDR, &d));
        assert_int_equal(d.len, e->len);
        assert_int_equal(d.opcode, e->opcode);
        assert_int_equal(d.rep, e->rep);
        assert_int_equal(d.mem, e->mem);
        assert_int_equal(d.addr, ADDR);
        if (e->mem) {
            assert_int_equal(d.base, e->base);
            assert_int_equal(d.index, e->index);
            if (e->index != N)
                assert_int_equal(d.scale, e->scale);
            assert_int_equal(d.disp, e->disp);
        }
        if (e->target != 0)
            assert_int_equal(d.target, e->target);
        assert_int_equal(d.imm, e->imm);
    }
}

/* VEX-encoded (AVX), string and far instructions are not decoded. */
static void test_refused(void **state)
{
    static const uint8_t refused[][4] = {
        { 0xc5, 0xfa, 0x6f, 0x07 },   /* vmovdqu (%rdi),%xmm0 */
        { 0xc4, 0xe2, 0x79, 0x18 },   /* vbroadcastss */
        { 0xa4, 0x00, 0x00, 0x00 },   /* movsb */
        { 0xf3, 0xab, 0x00, 0x00 },   /* rep stos */
        { 0x62, 0xf1, 0x7c, 0x48 },   /* EVEX */
        { 0xea, 0x00, 0x00, 0x00 },   /* far jmp (invalid in 64-bit) */
    };
    size_t i;

    (void)state;
    for (i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        uint8_t bytes[RP_X86_BYTES];
        rp_x86_insn d;

        memset(bytes, 0, sizeof bytes);
        memcpy(bytes, refused[i], sizeof refused[i]);
        assert_false(rp_x86_decode_bytes(bytes, ADDR, &d));
    }
}

/* Two operands are the same address when their registers, scale and
 * displacement are, or their RIP-relative targets (from other places). */
static void test_same_operand(void **state)
{
    static const uint8_t load_rip_a[] = { 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00 };
    static const uint8_t load_rip_b[] = { 0x8b, 0x05, 0xf0, 0x00, 0x00, 0x00 };
    static const uint8_t load_r15[] = { 0x41, 0x0f, 0xb6, 0x07 };
    static const uint8_t load_r15_disp[] = { 0x41, 0x0f, 0xb6, 0x47, 0x08 };
    uint8_t bytes[RP_X86_BYTES];
    rp_x86_insn a, b, c, e;

    (void)state;
    memset(bytes, 0, sizeof bytes);
    memcpy(bytes, load_rip_a, sizeof load_rip_a);
    assert_true(rp_x86_decode_bytes(bytes, 0x1000, &a));
    memset(bytes, 0, sizeof bytes);
    memcpy(bytes, load_rip_b, sizeof load_rip_b);
    assert_true(rp_x86_decode_bytes(bytes, 0x1010, &b));   /* 0x1016 + 0xf0 = 0x1106 = a's */
    assert_true(rp_x86_same_operand(&a, &b));
    assert_true(rp_x86_decode_bytes(bytes, 0x1011, &b));
    assert_false(rp_x86_same_operand(&a, &b));
    memset(bytes, 0, sizeof bytes);
    memcpy(bytes, load_r15, sizeof load_r15);
    assert_true(rp_x86_decode_bytes(bytes, 0x2000, &c));
    assert_true(rp_x86_decode_bytes(bytes, 0x3000, &e));
    assert_true(rp_x86_same_operand(&c, &e));
    assert_false(rp_x86_same_operand(&a, &c));
    memset(bytes, 0, sizeof bytes);
    memcpy(bytes, load_r15_disp, sizeof load_r15_disp);
    assert_true(rp_x86_decode_bytes(bytes, 0x2000, &e));
    assert_false(rp_x86_same_operand(&c, &e));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_encodings),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_same_operand),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
