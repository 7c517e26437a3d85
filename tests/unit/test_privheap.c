/* test_privheap.c — heap blocks no other thread can reach yet
 * (rp_privheap.h): which pages are private, the lookups of an address in a
 * block's partial pages, each way out (a store, a scan, the owner's
 * escape), transitive escapes through the blocks' contents, frees,
 * reallocs, and on
 * random runs against a model that keeps, per block, whether an address
 * of it could have left its owner: no such block may ever answer as
 * private. */
#include "rp_privheap.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define PAGE 4096u
#define ARENA_PAGES 32u

/* Client memory the scans read: page-aligned, zeroed. */
static uint8_t *arena;

static int arena_setup(void **state)
{
    (void)state;
    arena = aligned_alloc(PAGE, ARENA_PAGES * PAGE);
    memset(arena, 0, ARENA_PAGES * PAGE);
    return 0;
}

static int arena_teardown(void **state)
{
    (void)state;
    free(arena);
    return 0;
}

static uint64_t at(uint64_t offset)
{
    return (uint64_t)(uintptr_t)arena + offset;
}

static void put_word(uint64_t addr, uint64_t value)
{
    memcpy((void *)(uintptr_t)addr, &value, sizeof value);
}

/* What escaped, in order. */
static uint64_t escaped_lo[64];
static unsigned n_escaped;

static void note_escape(void *ctx, uint64_t lo, uint64_t size, bool holds_frames)
{
    (void)ctx;
    (void)holds_frames;
    assert_true(size > 0);
    assert_true(n_escaped < 64);
    escaped_lo[n_escaped++] = lo;
}

static void start(rp_privheap *h)
{
    memset(arena, 0, ARENA_PAGES * PAGE);
    n_escaped = 0;
    privheap_init(h);
}

static void blocks_of_a_page_or_more(void **state)
{
    rp_privheap h;
    uint64_t lo = at(16), hi = at(16 + 3 * PAGE), next = at(16 + 3 * PAGE + 8);

    (void)state;
    start(&h);
    assert_false(privheap_block_new(&h, 1, at(20 * PAGE), PAGE - 1));
    assert_true(privheap_block_new(&h, 1, lo, 3 * PAGE));
    /* Its neighbour starts in the page where it ends. */
    assert_true(privheap_block_new(&h, 2, next, PAGE));
    assert_int_equal(privheap_owner(&h, lo), 1);
    assert_int_equal(privheap_owner(&h, at(PAGE)), 1);
    assert_int_equal(privheap_owner(&h, hi - 1), 1);
    assert_int_equal(privheap_owner(&h, hi), RP_PRIVHEAP_NONE);
    assert_int_equal(privheap_owner(&h, next), 2);
    assert_int_equal(privheap_owner(&h, next + PAGE - 1), 2);
    assert_int_equal(privheap_owner(&h, lo - 1), RP_PRIVHEAP_NONE);
    assert_int_equal(privheap_owner(&h, at(20 * PAGE)), RP_PRIVHEAP_NONE);
    assert_int_not_equal(privheap_find(&h, lo), privheap_find(&h, next));
    /* A block over memory whose free was not seen replaces what it meets. */
    assert_true(privheap_block_new(&h, 3, hi - 8, PAGE));
    assert_int_equal(privheap_owner(&h, lo), RP_PRIVHEAP_NONE);
    assert_int_equal(privheap_owner(&h, next), 3);
    privheap_fini(&h);
}

static void stores_that_escape(void **state)
{
    rp_privheap h;
    uint64_t a = at(0), b = at(4 * PAGE);

    (void)state;
    start(&h);
    privheap_block_new(&h, 1, a, 2 * PAGE);
    privheap_block_new(&h, 1, b, 2 * PAGE);
    /* Into a private page of the same owner: no escape. */
    privheap_store(&h, 1, a + 8, b + 100, note_escape, NULL);
    assert_int_equal(n_escaped, 0);
    /* Into shared memory (not a private page), an inner address: escapes. */
    privheap_store(&h, 1, at(30 * PAGE), b + 100, note_escape, NULL);
    assert_int_equal(n_escaped, 1);
    assert_int_equal(escaped_lo[0], b);
    assert_int_equal(privheap_owner(&h, b + PAGE), RP_PRIVHEAP_NONE);
    assert_int_equal(privheap_owner(&h, a + PAGE), 1);
    /* A value that points at nothing private. */
    privheap_store(&h, 1, at(30 * PAGE), 12345, note_escape, NULL);
    assert_int_equal(n_escaped, 1);
    privheap_fini(&h);
}

static void another_owners_page_is_no_hiding_place(void **state)
{
    rp_privheap h;
    uint64_t a = at(0), b = at(4 * PAGE);

    (void)state;
    start(&h);
    privheap_block_new(&h, 1, a, 2 * PAGE);
    privheap_block_new(&h, 2, b, 2 * PAGE);
    privheap_store(&h, 1, b + PAGE, a, note_escape, NULL);   /* thread 2's private block */
    assert_int_equal(n_escaped, 1);
    privheap_block_new(&h, 1, a, 2 * PAGE);
    privheap_store(&h, 1, b + 2 * PAGE, a, note_escape, NULL);   /* just past it: shared */
    assert_int_equal(n_escaped, 2);
    /* Only the owner can hold a real address of its block: a word of
     * thread 2 that looks like one is an integer. */
    privheap_block_new(&h, 1, a, 2 * PAGE);
    privheap_store(&h, 2, at(30 * PAGE), a + 8, note_escape, NULL);
    assert_int_equal(n_escaped, 2);
    assert_int_equal(privheap_owner(&h, a), 1);
    privheap_fini(&h);
}

static void escapes_follow_the_contents(void **state)
{
    rp_privheap h;
    uint64_t a = at(0), b = at(4 * PAGE), c = at(8 * PAGE), d = at(12 * PAGE);

    (void)state;
    start(&h);
    privheap_block_new(&h, 1, a, 2 * PAGE);
    privheap_block_new(&h, 1, b, 2 * PAGE);
    privheap_block_new(&h, 1, c, 2 * PAGE);
    privheap_block_new(&h, 1, d, 2 * PAGE);
    put_word(a + 8, b + 16);        /* a → b → c, and c → a (a cycle) */
    put_word(b + PAGE, c);
    put_word(c + 2 * PAGE - 8, a);
    put_word(d + 3, a);             /* unaligned: not a pointer */
    privheap_block_new(&h, 2, at(16 * PAGE), 2 * PAGE);
    put_word(b + 64, at(16 * PAGE));  /* another owner's: an integer */
    privheap_escape_at(&h, a + 5, note_escape, NULL);
    assert_int_equal(n_escaped, 3);
    assert_int_equal(privheap_owner(&h, at(16 * PAGE)), 2);
    assert_int_equal(privheap_owner(&h, d + PAGE), 1);
    assert_int_equal(privheap_owner(&h, c + PAGE), RP_PRIVHEAP_NONE);
    privheap_fini(&h);
}

static void scans_and_owners(void **state)
{
    rp_privheap h;
    uint64_t a = at(0), b = at(4 * PAGE), c = at(8 * PAGE), stack = at(28 * PAGE);

    (void)state;
    start(&h);
    privheap_block_new(&h, 1, a, 2 * PAGE);
    privheap_block_new(&h, 2, b, 2 * PAGE);
    privheap_block_new(&h, 1, c, 2 * PAGE);
    put_word(stack + 64, b + 1);
    privheap_scan(&h, RP_PRIVHEAP_NONE, stack, stack + 128, note_escape, NULL);
    assert_int_equal(n_escaped, 1);
    assert_int_equal(escaped_lo[0], b);
    privheap_escape_owner(&h, 1);
    assert_int_equal(privheap_owner(&h, a + PAGE), RP_PRIVHEAP_NONE);
    assert_int_equal(privheap_owner(&h, c + PAGE), RP_PRIVHEAP_NONE);
    assert_int_equal(h.n_escaped, 3);
    privheap_escape_owner(&h, 7);   /* an owner never seen */
    assert_int_equal(h.n_escaped, 3);
    privheap_fini(&h);
}

/* Escapes told with holds_frames, in order. */
static bool escaped_frames[64];
static unsigned n_frames_told;

static void note_frames(void *ctx, uint64_t lo, uint64_t size, bool holds_frames)
{
    (void)ctx;
    (void)lo;
    (void)size;
    escaped_frames[n_frames_told++] = holds_frames;
}

static void frame_addresses_are_told(void **state)
{
    rp_privheap h;
    uint64_t a = at(0), b = at(4 * PAGE);

    (void)state;
    start(&h);
    n_frames_told = 0;
    privheap_block_new(&h, 1, a, 2 * PAGE);
    privheap_block_new(&h, 1, b, 2 * PAGE);
    privheap_note_frame_address(&h, b + 24);
    privheap_note_frame_address(&h, at(30 * PAGE));   /* no block: nothing */
    privheap_escape_at(&h, a, note_frames, NULL);
    privheap_escape_at(&h, b, note_frames, NULL);
    assert_int_equal(n_frames_told, 2);
    assert_false(escaped_frames[0]);
    assert_true(escaped_frames[1]);
    /* A block allocated again starts with none. */
    privheap_block_new(&h, 1, b, 2 * PAGE);
    privheap_escape_at(&h, b, note_frames, NULL);
    assert_false(escaped_frames[2]);
    privheap_fini(&h);
}

/* The helpers' test answers from the page tags for owners under 4,095
 * (no other owner's page may answer for a later one) and from the page
 * shadow for the others. */
static void many_owners(void **state)
{
    rp_privheap h;
    uint64_t a = at(PAGE + 16), b = at(8 * PAGE);

    (void)state;
    start(&h);
    privheap_block_new(&h, 4, a, 3 * PAGE);
    privheap_block_new(&h, 4100, b, 3 * PAGE);
    assert_true(privheap_owns_cached(&h, 4, a + PAGE, 8));
    assert_false(privheap_owns_cached(&h, 4100, a + PAGE, 8));
    /* One of two pages in a row has an odd number: 4 + 4096 must not
     * read as owner 4 of it. */
    assert_false(privheap_owns_cached(&h, 4 + 4096, a + PAGE, 8));
    assert_false(privheap_owns_cached(&h, 4 + 4096, a + 2 * PAGE, 8));
    assert_true(privheap_owns_cached(&h, 4100, b + PAGE, 8));
    assert_false(privheap_owns_cached(&h, 4, b + PAGE, 8));
    /* The first unit, partly before the block, and across its end. */
    assert_false(privheap_owns_cached(&h, 4, a - 8, 8));
    assert_true(privheap_owns_cached(&h, 4, a, 16));
    assert_false(privheap_owns_cached(&h, 4, a + 3 * PAGE - 4, 8));
    privheap_fini(&h);
}

/* A page a block covers whole answers by one compare with the owner's
 * key; an access that runs on into the next page, not the block's, does
 * not (the expected tag is made from its last byte's page). */
static void whole_pages_by_one_compare(void **state)
{
    rp_privheap h;
    uint64_t a = at(PAGE);

    (void)state;
    start(&h);
    privheap_block_new(&h, 3, a, 2 * PAGE);
    assert_true(privheap_tag_owns(&h, privheap_tag_key(3), a, 8));
    assert_true(privheap_tag_owns(&h, privheap_tag_key(3), a + 2 * PAGE - 8, 8));
    assert_true(privheap_tag_owns(&h, privheap_tag_key(3), a + PAGE - 4, 4));
    assert_false(privheap_tag_owns(&h, privheap_tag_key(2), a + 8, 8));
    assert_false(privheap_tag_owns(&h, privheap_tag_key(3), a + 2 * PAGE - 4, 8));
    assert_false(privheap_tag_owns(&h, privheap_tag_key(3), a + 2 * PAGE, 8));
    /* Owners from 4,095 on have a key no tag holds, not even an empty
     * one. */
    assert_false(privheap_tag_owns(&h, privheap_tag_key(4095), at(0), 8));
    assert_false(privheap_tag_owns(&h, privheap_tag_key(4095 + 3), a, 8));
    privheap_fini(&h);
}

/* Two blocks of one owner side by side share their boundary page's tag;
 * of two owners, or with room for another block between them, they do
 * not; when one goes, the page answers for the other alone. */
static void side_by_side_blocks_share_a_tag(void **state)
{
    rp_privheap h;
    uint64_t a = at(PAGE + 1024), b = a + 2 * PAGE + 16, c = b + 2 * PAGE + 64;
    uint64_t shared_page_b = b - 512, shared_page_c = c - 512;

    (void)state;
    start(&h);
    privheap_block_new(&h, 1, a, 2 * PAGE);
    privheap_block_new(&h, 1, b, 2 * PAGE);
    privheap_block_new(&h, 1, c, 2 * PAGE);
    assert_true(privheap_tag_owns(&h, privheap_tag_key(1), shared_page_b, 8));
    assert_true(privheap_tag_owns(&h, privheap_tag_key(1), b + 512, 8));
    /* c lies 64 bytes past b: another block may be between them. */
    assert_true(privheap_tag_owns(&h, privheap_tag_key(1), shared_page_c, 8)
                != privheap_tag_owns(&h, privheap_tag_key(1), c + 512, 8));
    assert_false(privheap_tag_owns(&h, privheap_tag_key(1), c - 32, 8));
    privheap_block_gone(&h, a);
    assert_false(privheap_tag_owns(&h, privheap_tag_key(1), shared_page_b, 8));
    assert_true(privheap_tag_owns(&h, privheap_tag_key(1), b + 512, 8));
    privheap_fini(&h);

    start(&h);
    privheap_block_new(&h, 1, a, 2 * PAGE);
    privheap_block_new(&h, 2, b, 2 * PAGE);
    assert_true(privheap_tag_owns(&h, privheap_tag_key(1), shared_page_b, 8)
                != privheap_tag_owns(&h, privheap_tag_key(2), b + 512, 8));
    assert_false(privheap_tag_owns(&h, privheap_tag_key(2), shared_page_b, 8));
    assert_false(privheap_tag_owns(&h, privheap_tag_key(1), b + 512, 8));
    privheap_fini(&h);
}

static void frees_and_reuse(void **state)
{
    rp_privheap h;
    uint64_t a = at(0);

    (void)state;
    start(&h);
    privheap_block_new(&h, 1, a, 2 * PAGE);
    assert_int_equal(privheap_block_gone(&h, a + 8), RP_PRIVHEAP_NONE);
    assert_int_equal(privheap_block_gone(&h, a), 1);
    assert_int_equal(privheap_owner(&h, a + PAGE), RP_PRIVHEAP_NONE);
    assert_int_equal(privheap_block_gone(&h, a), RP_PRIVHEAP_NONE);
    privheap_block_new(&h, 2, a, 3 * PAGE);
    assert_int_equal(privheap_owner(&h, a + 2 * PAGE), 2);
    privheap_escape_owner(&h, 1);
    assert_int_equal(h.n_escaped, 0);
    /* A block allocated again at the same start replaces the old one. */
    privheap_block_new(&h, 3, a, 2 * PAGE);
    assert_int_equal(privheap_owner(&h, a + PAGE), 3);
    assert_int_equal(privheap_owner(&h, a + 2 * PAGE), RP_PRIVHEAP_NONE);
    assert_int_equal(privheap_block_gone(&h, a), 3);
    privheap_fini(&h);
}

/* A holder of a frame address and of a pointer to another private block,
 * at the start of [lo, lo + size): what realloc copies along. */
static void fill_holder(rp_privheap *h, uint64_t lo, uint64_t size, uint64_t pointee)
{
    privheap_block_new(h, 1, lo, size);
    put_word(lo, pointee);
    privheap_note_frame_address(h, lo + 8);
}

static void copy_block(uint64_t to, uint64_t from, uint64_t size)
{
    memcpy((void *)(uintptr_t)to, (const void *)(uintptr_t)from, size);
}

static void reallocs_keep_what_blocks_hold(void **state)
{
    rp_privheap h;
    uint64_t a = at(0), c = at(4 * PAGE), b = at(8 * PAGE), e = at(12 * PAGE);
    uint64_t d = at(16 * PAGE), f = at(20 * PAGE), g = at(24 * PAGE);

    (void)state;
    start(&h);
    n_frames_told = 0;
    privheap_block_new(&h, 1, c, 2 * PAGE);
    fill_holder(&h, a, 2 * PAGE, c + 16);
    /* Grown in place by its owner: the same private block, still marked. */
    assert_int_equal(privheap_block_moved(&h, 1, a, a, 3 * PAGE, note_frames, NULL), 1);
    assert_int_equal(privheap_owner(&h, a + 3 * PAGE - 1), 1);
    assert_int_equal(n_frames_told, 0);
    /* Shrunk under a page: what it holds leaves with it. */
    assert_int_equal(privheap_block_moved(&h, 1, a, a, PAGE - 8, note_frames, NULL), 1);
    assert_int_equal(privheap_owner(&h, a), RP_PRIVHEAP_NONE);
    assert_int_equal(privheap_owner(&h, c), RP_PRIVHEAP_NONE);
    assert_int_equal(n_frames_told, 2);
    assert_true(escaped_frames[0]);
    /* Moved by its owner: private at its new place, with its mark. */
    privheap_block_new(&h, 1, d, 2 * PAGE);
    fill_holder(&h, b, 2 * PAGE, d);
    copy_block(e, b, 2 * PAGE);
    assert_int_equal(privheap_block_moved(&h, 1, b, e, 3 * PAGE, note_frames, NULL), 1);
    assert_int_equal(privheap_owner(&h, b), RP_PRIVHEAP_NONE);
    assert_int_equal(privheap_owner(&h, e + 3 * PAGE - 1), 1);
    assert_int_equal(privheap_owner(&h, d), 1);
    privheap_escape_at(&h, e, note_frames, NULL);
    assert_true(escaped_frames[2]);
    assert_int_equal(privheap_owner(&h, d), RP_PRIVHEAP_NONE);
    /* Moved by another thread: new memory of the mover's; the owner's
     * blocks its bytes point to escape. */
    n_frames_told = 0;
    privheap_block_new(&h, 1, d, 2 * PAGE);
    fill_holder(&h, f, 2 * PAGE, d + 8);
    copy_block(g, f, 2 * PAGE);
    assert_int_equal(privheap_block_moved(&h, 2, f, g, 2 * PAGE, note_frames, NULL), 1);
    assert_int_equal(privheap_owner(&h, g), 2);
    assert_int_equal(privheap_owner(&h, d), RP_PRIVHEAP_NONE);
    assert_true(n_frames_told >= 1 && escaped_frames[0]);
    /* A shared block resized in place stays shared; one moved is new. */
    assert_int_equal(privheap_block_moved(&h, 1, b, b, 2 * PAGE, note_frames, NULL),
                     RP_PRIVHEAP_NONE);
    assert_int_equal(privheap_owner(&h, b), RP_PRIVHEAP_NONE);
    assert_int_equal(privheap_block_moved(&h, 1, b, a, 2 * PAGE, note_frames, NULL),
                     RP_PRIVHEAP_NONE);
    assert_int_equal(privheap_owner(&h, a + PAGE), 1);
    privheap_fini(&h);
}

#define N_BLOCKS 6u
#define N_OWNERS 2u

/* The model: per block slot, live, its owner, and whether its address
 * left it. */
typedef struct model_block {
    bool live, escaped;
    uint32_t owner;
} model_block;

/* Blocks of 3 pages less 16 bytes, one after the other, side by side:
 * a block ends a quarter into the page where the next starts, so that
 * two blocks of one owner share that page's tag. */
#define BLOCK_SIZE (3 * PAGE - 16)

static uint64_t block_lo(unsigned k)
{
    return at(1024 + (uint64_t)k * 3 * PAGE);
}

static model_block model[N_BLOCKS];

/* Each escape the core reports is of a live block the model has not
 * seen escape before this step (the model decides by itself). */
static void model_escape(void *ctx, uint64_t lo, uint64_t size, bool holds_frames)
{
    (void)ctx;
    (void)holds_frames;
    assert_int_equal(size, BLOCK_SIZE);
    for (unsigned k = 0; k < N_BLOCKS; k++)
        if (block_lo(k) == lo)
            assert_true(model[k].live);
}

/* Block slot k's address leaves its owner: it escapes, and so does, at
 * that moment, every live block of the same owner its words point to. */
static void model_escape_block(unsigned k)
{
    if (!model[k].live || model[k].escaped)
        return;
    model[k].escaped = true;
    for (uint64_t a = block_lo(k); a + 8 <= block_lo(k) + BLOCK_SIZE; a += 8) {
        uint64_t v;

        memcpy(&v, (void *)(uintptr_t)a, sizeof v);
        for (unsigned j = 0; j < N_BLOCKS; j++)
            if (model[j].owner == model[k].owner && v >= block_lo(j)
                && v < block_lo(j) + BLOCK_SIZE)
                model_escape_block(j);
    }
}

/* Zeroes every word of the arena that points into block slot k. */
static void scrub_pointers_to(unsigned k)
{
    for (uint64_t a = at(0); a < at(ARENA_PAGES * PAGE); a += 8) {
        uint64_t v;

        memcpy(&v, (void *)(uintptr_t)a, sizeof v);
        if (v >= block_lo(k) && v < block_lo(k) + BLOCK_SIZE)
            put_word(a, 0);
    }
}

static bool private_to(unsigned k, uint32_t tid)
{
    return model[k].live && !model[k].escaped && model[k].owner == tid;
}

/* The helpers' test: an access it answers for lies wholly in a live
 * block of the model's that is private to tid, or in two side by side
 * and the allocator's bytes between them. */
static void check_owns_cached(rp_privheap *h, uint64_t addr, uint64_t size, uint32_t tid)
{
    if (!privheap_owns_cached(h, tid, addr, size))
        return;
    for (unsigned k = 0; k < N_BLOCKS; k++)
        if (addr >= block_lo(k) && addr + size <= block_lo(k) + BLOCK_SIZE) {
            assert_true(private_to(k, tid));
            return;
        }
    for (unsigned k = 0; k + 1 < N_BLOCKS; k++)
        if (addr >= block_lo(k) && addr + size <= block_lo(k + 1) + BLOCK_SIZE) {
            assert_true(private_to(k, tid) && private_to(k + 1, tid));
            return;
        }
    fail_msg("owns_cached answered for %#llx+%llu, in no block", (unsigned long long)addr,
             (unsigned long long)size);
}

static void check_model(rp_privheap *h)
{
    static const uint64_t sizes[] = { 1, 4, 8, 32, 4096 };

    for (unsigned k = 0; k < N_BLOCKS; k++) {
        uint32_t owner = privheap_owner(h, block_lo(k) + (uint64_t)(rand() % BLOCK_SIZE));

        if (!model[k].live || model[k].escaped)
            assert_int_equal(owner, RP_PRIVHEAP_NONE);
        else
            assert_int_equal(owner, model[k].owner);
    }
    for (unsigned n = 0; n < 8; n++)
        check_owns_cached(h, at((uint64_t)(rand() % (ARENA_PAGES * PAGE))),
                          sizes[rand() % 5], (uint32_t)rand() % N_OWNERS);
}

static void random_runs(void **state)
{
    (void)state;
    srand(7);
    for (unsigned run = 0; run < 1000; run++) {
        rp_privheap h;

        start(&h);
        memset(model, 0, sizeof model);
        for (unsigned step = 0; step < 80; step++) {
            unsigned k = (unsigned)rand() % N_BLOCKS, j = (unsigned)rand() % N_BLOCKS;
            uint64_t inner = block_lo(j) + (uint64_t)(rand() % BLOCK_SIZE);
            uint64_t word = block_lo(k) + 8 * (uint64_t)(rand() % (BLOCK_SIZE / 8));
            uint32_t owner = (uint32_t)rand() % N_OWNERS;

            switch (rand() % 6) {
            case 0:   /* allocate */
                if (model[k].live)
                    break;
                memset((void *)(uintptr_t)block_lo(k), 0, BLOCK_SIZE);
                privheap_block_new(&h, owner, block_lo(k), BLOCK_SIZE);
                model[k] = (model_block){ .live = true, .owner = owner };
                break;
            case 1:   /* free (and no pointer to it is left anywhere) */
                privheap_block_gone(&h, block_lo(k));
                model[k].live = false;
                scrub_pointers_to(k);
                break;
            case 2: { /* `owner` stores a pointer to j in k */
                uint32_t target_owner = privheap_owner(&h, word);

                if (!model[k].live || !model[j].live)
                    break;
                put_word(word, inner);
                privheap_store(&h, owner, word, inner, model_escape, NULL);
                /* Its own block, into memory not its own private block. */
                if (model[j].owner == owner && target_owner != owner)
                    model_escape_block(j);
                break;
            }
            case 3:   /* `owner` stores a pointer to j in shared memory */
                if (model[j].live) {
                    privheap_store(&h, owner, at(30 * PAGE), inner, model_escape, NULL);
                    if (model[j].owner == owner)
                        model_escape_block(j);
                }
                break;
            case 4:   /* an owner's every block */
                privheap_escape_owner(&h, owner);
                for (unsigned i = 0; i < N_BLOCKS; i++)
                    if (model[i].owner == owner)
                        model_escape_block(i);
                break;
            default:  /* k escapes by its address */
                if (model[k].live) {
                    privheap_escape_at(&h, block_lo(k) + BLOCK_SIZE - 1, model_escape, NULL);
                    model_escape_block(k);
                }
                break;
            }
            check_model(&h);
        }
        privheap_fini(&h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocks_of_a_page_or_more),
        cmocka_unit_test(stores_that_escape),
        cmocka_unit_test(another_owners_page_is_no_hiding_place),
        cmocka_unit_test(escapes_follow_the_contents),
        cmocka_unit_test(scans_and_owners),
        cmocka_unit_test(frame_addresses_are_told),
        cmocka_unit_test(many_owners),
        cmocka_unit_test(whole_pages_by_one_compare),
        cmocka_unit_test(side_by_side_blocks_share_a_tag),
        cmocka_unit_test(frees_and_reuse),
        cmocka_unit_test(reallocs_keep_what_blocks_hold),
        cmocka_unit_test(random_runs),
    };
    return cmocka_run_group_tests(tests, arena_setup, arena_teardown);
}
