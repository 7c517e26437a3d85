/* test_privstack.c — the private part of a thread's stack (rp_privstack.h):
 * its edges after each kind of escape, frames that return, stacks the
 * stack pointer is off, and on random runs of calls, returns and escapes
 * against a model that keeps, per live frame, whether its address could
 * have left the thread: no such frame, nor an escaped object in a leaf's
 * red zone while it is live, may ever be private, and a frame made after
 * the last escape, a red zone below it, must be. */
#include "rp_privstack.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#define LO 0x7ff000000ull
#define HI 0x7ff0fffffull
#define RZ RP_PRIVSTACK_REDZONE

static void fresh_stack_is_private(void **state)
{
    rp_privstack s;

    (void)state;
    privstack_init(&s, LO, HI);
    assert_true(privstack_is_private(&s, LO));
    assert_true(privstack_is_private(&s, HI));
    assert_false(privstack_is_private(&s, HI + 1));
    assert_false(privstack_is_private(&s, LO - 1));
    assert_true(privstack_holds(&s, HI));
    assert_false(privstack_holds(&s, HI + 1));
}

static void stores_that_escape(void **state)
{
    rp_privstack s;
    uint64_t global = 0x601000;

    (void)state;
    uint64_t sp = HI - 0x200;

    privstack_init(&s, LO, HI);
    assert_true(privstack_store_escapes(&s, global, HI - 64, sp));
    assert_false(privstack_store_escapes(&s, HI - 8, HI - 64, sp));   /* into its own stack */
    assert_false(privstack_store_escapes(&s, global, global, sp));    /* no stack address */
    assert_false(privstack_store_escapes(&s, global, HI + 1, sp));
    /* In the red zone: maybe a leaf's object; below it: no object. */
    assert_true(privstack_store_escapes(&s, global, sp - RZ, sp));
    assert_false(privstack_store_escapes(&s, global, sp - RZ - 1, sp));
    assert_false(privstack_store_escapes(&s, global, LO + 0x40000, sp));
    /* Running off the stack, any address of it may be live. */
    assert_true(privstack_store_escapes(&s, global, LO + 0x40000, 0x5000000));
    privstack_escape(&s, HI - 0x1000, 0);
    /* The shared part of its own stack is no place to hide an address. */
    assert_true(privstack_store_escapes(&s, HI - 8, HI - 64, HI - 0x1100));
    assert_false(privstack_store_escapes(&s, HI - 0x2000, HI - 64, HI - 0x2100));
}

static void escape_shares_the_live_frames(void **state)
{
    rp_privstack s;
    uint64_t sp = HI - 0x1000;

    (void)state;
    privstack_init(&s, LO, HI);
    privstack_escape(&s, sp, 0);
    assert_true(privstack_is_private(&s, sp - 1));
    assert_false(privstack_is_private(&s, sp));
    assert_false(privstack_is_private(&s, HI));
    /* A later escape deeper down shares more; one higher up changes nothing. */
    privstack_escape(&s, sp - 0x100, 0);
    assert_false(privstack_is_private(&s, sp - 0x100));
    privstack_escape(&s, sp + 0x100, 0);
    assert_false(privstack_is_private(&s, sp - 0x100));
    assert_true(privstack_is_private(&s, sp - 0x100 - 1));
    /* A pointer into the red zone shares from there. */
    privstack_escape(&s, sp - 0x100, sp - 0x100 - 24);
    assert_false(privstack_is_private(&s, sp - 0x100 - 24));
    assert_true(privstack_is_private(&s, sp - 0x100 - 25));
}

static void escaping_pointer_below_the_stack_pointer(void **state)
{
    rp_privstack s;
    uint64_t sp = HI - 0x1000;

    (void)state;
    privstack_init(&s, LO, HI);
    privstack_escape(&s, sp, sp - 0x800);   /* a dead frame's address */
    assert_false(privstack_is_private(&s, sp - 0x800));
    assert_true(privstack_is_private(&s, sp - 0x801));
    privstack_escape(&s, sp, 0x601000);     /* not a stack address: no effect */
    assert_true(privstack_is_private(&s, sp - 0x801));
}

static void off_stack_pointer_shares_everything(void **state)
{
    rp_privstack s;

    (void)state;
    privstack_init(&s, LO, HI);
    privstack_escape(&s, 0x5000000, 0);     /* running on a signal stack */
    assert_false(privstack_is_private(&s, LO));
    privstack_popped(&s, 0x5000000);        /* tells nothing about this stack */
    assert_false(privstack_is_private(&s, LO));
    privstack_init(&s, LO, HI);
    privstack_escape(&s, LO + 16, LO);      /* a leaf's object at the stack's end */
    privstack_popped(&s, LO + 16);          /* its red zone stays shared */
    assert_false(privstack_is_private(&s, LO));
}

static void returned_frames_are_private_again(void **state)
{
    rp_privstack s;
    uint64_t sp = HI - 0x4000;

    (void)state;
    privstack_init(&s, LO, HI);
    privstack_escape(&s, sp, 0);
    /* deeper: nothing returned */
    assert_int_equal(privstack_popped(&s, sp - 0x100), s.shared_from);
    assert_false(privstack_is_private(&s, sp));
    assert_int_equal(privstack_popped(&s, sp + 0x1000), sp);   /* the frame returned */
    assert_int_equal(s.shared_from, sp + 0x1000 - RZ);
    assert_true(privstack_is_private(&s, sp));
    assert_true(privstack_is_private(&s, sp + 0x1000 - RZ - 1));
    assert_false(privstack_is_private(&s, sp + 0x1000 - RZ));
}

static void no_stack(void **state)
{
    rp_privstack s;

    (void)state;
    privstack_none(&s);
    assert_false(privstack_is_private(&s, 0));
    assert_false(privstack_is_private(&s, LO));
    assert_false(privstack_holds(&s, LO));
    privstack_escape(&s, LO, LO);
    privstack_popped(&s, LO);
    assert_false(privstack_is_private(&s, LO));
}

static void main_stack_grows(void **state)
{
    rp_privstack s;

    (void)state;
    privstack_init(&s, LO, HI);
    privstack_set_lo(&s, LO - 0x10000);
    assert_true(privstack_is_private(&s, LO - 0x10000));
    privstack_escape(&s, 0x5000000, 0);     /* all shared ... */
    privstack_set_lo(&s, LO - 0x20000);     /* ... and so is what it grows into */
    assert_false(privstack_is_private(&s, LO - 0x20000));
}

/* The random model: frames of 32..1056 bytes pushed below each other; an
 * escape marks every live frame as reachable, and when its pointer is in
 * the red zone below the stack pointer (a leaf's object), that part of
 * the red zone until the stack pointer rises above it. */
#define MAX_FRAMES 64

typedef struct frame {
    uint64_t lo, hi;      /* [lo, hi) */
    int reachable;
    int after_escape;     /* made after the last escape */
} frame;

static void check_model(const rp_privstack *s, const frame *f, int n, uint64_t escape_sp,
                        uint64_t leaf_lo, uint64_t leaf_sp)
{
    /* The escaped part of a leaf's red zone, while live. */
    for (uint64_t a = leaf_lo; leaf_sp != 0 && a < leaf_sp; a += 8)
        assert_false(privstack_is_private(s, a));
    for (int i = 0; i < n; i++) {
        for (uint64_t a = f[i].lo; a < f[i].hi; a += 8) {
            if (f[i].reachable)
                assert_false(privstack_is_private(s, a));
            else if (f[i].after_escape && a < escape_sp - RZ)
                assert_true(privstack_is_private(s, a));
        }
    }
}

static void random_calls_and_escapes(void **state)
{
    (void)state;
    srand(7);
    for (int run = 0; run < 2000; run++) {
        rp_privstack s;
        frame f[MAX_FRAMES];
        int n = 0;
        /* Below the thread's first frame, which never returns. */
        uint64_t sp = HI + 1 - 256, escape_sp = sp;
        uint64_t leaf_sp = 0, leaf_lo = 0;   /* leaf_sp 0: no red zone escaped */

        privstack_init(&s, LO, HI);
        for (int step = 0; step < 60; step++) {
            int op = rand() % 10;
            if (op < 5 && n < MAX_FRAMES) {
                uint64_t size = 32 + 8 * (uint64_t)(rand() % 128);
                f[n].hi = sp;
                f[n].lo = sp - size;
                f[n].reachable = 0;
                f[n].after_escape = 1;
                sp = f[n].lo;
                n++;
            } else if (op < 8 && n > 0) {
                sp = f[--n].hi;
                privstack_popped(&s, sp);
                if (leaf_sp < sp)
                    leaf_sp = 0;
                if (escape_sp < sp)
                    escape_sp = sp;
            } else if (n > 0) {
                int which = rand() % n, how = rand() % 3;
                if (how == 0) {
                    privstack_escape(&s, sp, f[which].lo + 8 * (uint64_t)(rand() % 4));
                } else if (how == 1) {
                    privstack_escape(&s, sp, 0);
                } else {
                    leaf_lo = sp - 8 * (uint64_t)(1 + rand() % (RZ / 8));
                    leaf_sp = sp;
                    privstack_escape(&s, sp, leaf_lo);
                }
                for (int i = 0; i < n; i++) {
                    f[i].reachable = 1;
                    f[i].after_escape = 0;
                }
                escape_sp = sp;
            }
            check_model(&s, f, n, escape_sp, leaf_lo, leaf_sp);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fresh_stack_is_private),
        cmocka_unit_test(stores_that_escape),
        cmocka_unit_test(escape_shares_the_live_frames),
        cmocka_unit_test(escaping_pointer_below_the_stack_pointer),
        cmocka_unit_test(off_stack_pointer_shares_everything),
        cmocka_unit_test(returned_frames_are_private_again),
        cmocka_unit_test(no_stack),
        cmocka_unit_test(main_stack_grows),
        cmocka_unit_test(random_calls_and_escapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
