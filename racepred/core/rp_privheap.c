/* rp_privheap.c — heap blocks no other thread can reach yet (rp_privheap.h). */
#include "rp_privheap.h"

#include "rp_shim.h"

#define PAGE_SIZE ((uint64_t)1 << RP_PRIVHEAP_PAGE_BITS)

void privheap_init(rp_privheap *h)
{
    *h = (rp_privheap){ 0 };
    h->tags = rp_calloc("rp.privheap.tags", (size_t)1 << RP_PRIVHEAP_TAG_BITS, sizeof *h->tags);
    h->tag_mask = ((uint64_t)1 << RP_PRIVHEAP_TAG_BITS) - 1;
    shadow_init(&h->pages, sizeof(rp_privheap_page));
    u64map_init(&h->by_lo);
}

void privheap_fini(rp_privheap *h)
{
    rp_free(h->tags);
    shadow_fini(&h->pages);
    u64map_free(&h->by_lo);
    rp_free(h->blocks);
    rp_free(h->heads);
    rp_free(h->work);
}

/* The tag's page number (privheap_tag). */
static uint64_t tag_page_number(uint64_t tag)
{
    return tag >> 16 >> 12;
}

/* The 16-byte units of page p that private block i (index + 1) covers
 * whole, [*first, *last]; false if none, or its owner gets no tags. */
static bool units_on_page(const rp_privheap *h, uint32_t i, uint64_t p, uint64_t *first,
                          uint64_t *last)
{
    const rp_privheap_block *b = &h->blocks[i - 1];
    uint64_t start = p << RP_PRIVHEAP_PAGE_BITS, end = start + PAGE_SIZE;
    uint64_t from = b->lo > start ? (b->lo - start + 15) >> 4 : 0;
    uint64_t to = b->hi < end ? (b->hi - start) >> 4 : PAGE_SIZE >> 4;

    if (b->owner + 1 >= RP_PRIVHEAP_TAG_OWNERS || to <= from)
        return false;
    *first = from;
    *last = to - 1;
    return true;
}

/* Two blocks closer than this lie side by side: nothing fits between
 * them but the allocator's header of the second (glibc's smallest chunk,
 * header included, is 32 bytes). */
#define SIDE_BY_SIDE 32

static bool side_by_side(const rp_privheap_block *a, const rp_privheap_block *b)
{
    return (a->hi <= b->lo && b->lo - a->hi < SIDE_BY_SIDE)
        || (b->hi <= a->lo && a->lo - b->hi < SIDE_BY_SIDE);
}

/* Page p's tag, from the private blocks its shadow entry holds: one
 * block's units, or, for two blocks of one owner side by side, the units
 * from the first's to the second's (a compressor's arrays, allocated one
 * after the other, share their boundary pages).  The bytes between them
 * are the allocator's, which the owner alone can reach through them. */
static uint64_t page_tag(const rp_privheap *h, uint64_t p, const rp_privheap_page *page)
{
    uint64_t first[2], last[2];
    bool has[2];
    uint32_t k, owner;

    for (k = 0; k < 2; k++)
        has[k] = page->block[k] != 0 && units_on_page(h, page->block[k], p, &first[k], &last[k]);
    if (has[0] && has[1]) {
        const rp_privheap_block *a = &h->blocks[page->block[0] - 1];
        const rp_privheap_block *b = &h->blocks[page->block[1] - 1];

        if (a->owner == b->owner && side_by_side(a, b)) {
            first[0] = first[0] < first[1] ? first[0] : first[1];
            last[0] = last[0] > last[1] ? last[0] : last[1];
        }
    }
    k = has[0] ? 0 : 1;
    if (!has[k])
        return 0;
    owner = h->blocks[page->block[k] - 1].owner;
    return privheap_tag(p, owner + 1, first[k], last[k]);
}

/* Page p's tag made again from its shadow entry (NULL: no blocks).  An
 * entry another page holds (the tags are a direct-mapped cache) is taken
 * over by a tag, and kept when p has none. */
static void retag_page(rp_privheap *h, uint64_t p, const rp_privheap_page *page)
{
    uint64_t *entry = &h->tags[p & h->tag_mask];
    uint64_t tag = page != NULL ? page_tag(h, p, page) : 0;

    if (tag != 0)
        *entry = tag;
    else if (*entry != 0 && tag_page_number(*entry) == p)
        *entry = 0;
}

/* Block i (index + 1) enters or leaves the pages it meets. */
static void mark_pages(rp_privheap *h, uint64_t lo, uint64_t hi, uint32_t i, bool enter)
{
    for (uint64_t p = lo >> RP_PRIVHEAP_PAGE_BITS; p <= (hi - 1) >> RP_PRIVHEAP_PAGE_BITS; p++) {
        rp_privheap_page *page = enter ? shadow_slot(&h->pages, p) : shadow_find(&h->pages, p);
        uint32_t want = enter ? 0 : i;

        if (page != NULL) {
            if (page->block[0] == want)
                page->block[0] = enter ? i : 0;
            else if (page->block[1] == want)
                page->block[1] = enter ? i : 0;
        }
        retag_page(h, p, page);
    }
}

static uint32_t *head_of(rp_privheap *h, uint32_t owner)
{
    if (owner >= h->n_heads) {
        uint32_t n = owner + 16 > 2 * h->n_heads ? owner + 16 : 2 * h->n_heads;

        h->heads = rp_realloc("rp.privheap.heads", h->heads, n * sizeof *h->heads);
        for (uint32_t i = h->n_heads; i < n; i++)
            h->heads[i] = 0;
        h->n_heads = n;
    }
    return &h->heads[owner];
}

static uint32_t entry_new(rp_privheap *h)
{
    uint32_t i;

    if (h->free_head != 0) {
        i = h->free_head - 1;
        h->free_head = h->blocks[i].next;
        return i;
    }
    if (h->n_blocks == h->cap_blocks) {
        h->cap_blocks = h->cap_blocks == 0 ? 64 : 2 * h->cap_blocks;
        h->blocks = rp_realloc("rp.privheap.blocks", h->blocks,
                               h->cap_blocks * sizeof *h->blocks);
    }
    return h->n_blocks++;
}

/* Blocks that overlap [lo, hi) are gone (their frees were not seen):
 * a page then has room for the new one. */
static void drop_overlapping(rp_privheap *h, uint64_t lo, uint64_t hi)
{
    for (uint64_t p = lo >> RP_PRIVHEAP_PAGE_BITS; p <= (hi - 1) >> RP_PRIVHEAP_PAGE_BITS; p++) {
        rp_privheap_page *page = shadow_find(&h->pages, p);

        for (unsigned k = 0; page != NULL && k < 2; k++) {
            uint32_t i = page->block[k];

            if (i != 0 && h->blocks[i - 1].lo < hi && lo < h->blocks[i - 1].hi)
                privheap_block_gone(h, h->blocks[i - 1].lo);
        }
    }
}

bool privheap_block_new(rp_privheap *h, uint32_t owner, uint64_t lo, uint64_t size)
{
    uint32_t i, *head;
    rp_privheap_block *b;

    if (size < PAGE_SIZE || lo + size < lo || owner == RP_PRIVHEAP_NONE)
        return false;
    drop_overlapping(h, lo, lo + size);
    i = entry_new(h);
    head = head_of(h, owner);
    b = &h->blocks[i];
    *b = (rp_privheap_block){ .lo = lo, .hi = lo + size, .owner = owner, .prev = 0,
                              .next = *head };
    if (*head != 0)
        h->blocks[*head - 1].prev = i + 1;
    *head = i + 1;
    mark_pages(h, lo, lo + size, i + 1, true);
    u64map_put(&h->by_lo, lo, (void *)(uintptr_t)(i + 1));
    if (h->env_lo == h->env_hi || lo < h->env_lo)
        h->env_lo = lo;
    if (lo + size > h->env_hi)
        h->env_hi = lo + size;
    h->n_made++;
    return true;
}

/* Takes block i out of every table; its entry goes back to the free list. */
static void unlink_block(rp_privheap *h, uint32_t i)
{
    rp_privheap_block *b = &h->blocks[i];

    mark_pages(h, b->lo, b->hi, i + 1, false);
    u64map_remove(&h->by_lo, b->lo);
    if (b->prev != 0)
        h->blocks[b->prev - 1].next = b->next;
    else
        h->heads[b->owner] = b->next;
    if (b->next != 0)
        h->blocks[b->next - 1].prev = b->prev;
    b->lo = b->hi = 0;
    b->next = h->free_head;
    h->free_head = i + 1;
}

uint32_t privheap_block_gone(rp_privheap *h, uint64_t lo)
{
    uintptr_t i = (uintptr_t)u64map_get(&h->by_lo, lo);
    uint32_t owner;

    if (i == 0)
        return RP_PRIVHEAP_NONE;
    owner = h->blocks[i - 1].owner;
    unlink_block(h, (uint32_t)(i - 1));
    return owner;
}

static void push_work(rp_privheap *h, uint64_t lo, uint64_t hi, uint32_t owner)
{
    if (h->n_work + 3 > h->cap_work) {
        h->cap_work = h->cap_work == 0 ? 48 : 2 * h->cap_work;
        h->work = rp_realloc("rp.privheap.work", h->work, h->cap_work * sizeof *h->work);
    }
    h->work[h->n_work++] = lo;
    h->work[h->n_work++] = hi;
    h->work[h->n_work++] = owner;
}

/* Block i (index + 1) escapes: out of the tables at once (so that a scan
 * meeting it again stops), its bytes scanned later from the work list. */
static void escape_one(rp_privheap *h, uint32_t i, rp_privheap_fn fn, void *ctx)
{
    uint64_t lo = h->blocks[i - 1].lo, hi = h->blocks[i - 1].hi;
    uint32_t owner = h->blocks[i - 1].owner;
    bool holds_frames = h->blocks[i - 1].holds_frames;

    unlink_block(h, i - 1);
    h->n_escaped++;
    fn(ctx, lo, hi - lo, holds_frames);
    push_work(h, lo, hi, owner);
}

/* Escapes every private block of `owner` (RP_PRIVHEAP_NONE: anyone's) an
 * aligned word of [lo, hi) points to. */
static void scan_range(rp_privheap *h, uint32_t owner, uint64_t lo, uint64_t hi,
                       rp_privheap_fn fn, void *ctx)
{
    for (uint64_t a = (lo + 7) & ~(uint64_t)7; a + 8 <= hi && a + 8 > a; a += 8) {
        uint64_t value = *(const uint64_t *)(uintptr_t)a;
        uint32_t i;

        if (privheap_in_envelope(h, value) && (i = privheap_find(h, value)) != 0
            && (owner == RP_PRIVHEAP_NONE || h->blocks[i - 1].owner == owner))
            escape_one(h, i, fn, ctx);
    }
}

/* Scans the blocks escaped so far, and those they make escape. */
static void drain(rp_privheap *h, rp_privheap_fn fn, void *ctx)
{
    while (h->n_work > 0) {
        uint32_t owner = (uint32_t)h->work[--h->n_work];
        uint64_t hi = h->work[--h->n_work];
        uint64_t lo = h->work[--h->n_work];

        scan_range(h, owner, lo, hi, fn, ctx);
    }
}

void privheap_note_frame_address(rp_privheap *h, uint64_t addr)
{
    uint32_t i = privheap_find(h, addr);

    if (i != 0)
        h->blocks[i - 1].holds_frames = true;
}

void privheap_escape_at(rp_privheap *h, uint64_t addr, rp_privheap_fn fn, void *ctx)
{
    uint32_t i = privheap_find(h, addr);

    if (i == 0)
        return;
    escape_one(h, i, fn, ctx);
    drain(h, fn, ctx);
}

void privheap_store(rp_privheap *h, uint32_t tid, uint64_t addr, uint64_t value,
                    rp_privheap_fn fn, void *ctx)
{
    uint32_t i = privheap_find(h, value);

    if (i == 0 || h->blocks[i - 1].owner != tid || privheap_owner(h, addr) == tid)
        return;
    escape_one(h, i, fn, ctx);
    drain(h, fn, ctx);
}

void privheap_scan(rp_privheap *h, uint32_t owner, uint64_t lo, uint64_t hi, rp_privheap_fn fn,
                   void *ctx)
{
    scan_range(h, owner, lo, hi, fn, ctx);
    drain(h, fn, ctx);
}

uint32_t privheap_block_moved(rp_privheap *h, uint32_t tid, uint64_t old_lo, uint64_t new_lo,
                              uint64_t size, rp_privheap_fn fn, void *ctx)
{
    uintptr_t i = (uintptr_t)u64map_get(&h->by_lo, old_lo);
    uint32_t owner = i != 0 ? h->blocks[i - 1].owner : RP_PRIVHEAP_NONE;
    bool holds_frames = i != 0 && h->blocks[i - 1].holds_frames;
    bool in_place = new_lo == old_lo;

    if (i != 0)
        unlink_block(h, (uint32_t)(i - 1));
    /* A block resized in place by another thread than its owner's, or
     * shared already, stays shared: others may have it. */
    if ((!in_place || owner == tid) && privheap_block_new(h, tid, new_lo, size)
        && owner == tid) {
        h->blocks[privheap_find(h, new_lo) - 1].holds_frames = holds_frames;
        if (in_place)
            h->n_made--;        /* the same block, not one more */
        return owner;
    }
    if (owner == RP_PRIVHEAP_NONE)
        return owner;
    h->n_escaped++;
    fn(ctx, new_lo, size, holds_frames);
    scan_range(h, owner, new_lo, new_lo + size, fn, ctx);
    drain(h, fn, ctx);
    return owner;
}

void privheap_escape_owner(rp_privheap *h, uint32_t owner)
{
    while (owner < h->n_heads && h->heads[owner] != 0) {
        unlink_block(h, h->heads[owner] - 1);
        h->n_escaped++;
    }
}
