/* rp_vc.c — vector clocks (see rp_vc.h). */
#include "rp_vc.h"

#include "rp_shim.h"
#include "rp_slab.h"

/* Flat clock arrays (up to rp_vc_flat_max = 64 entries) come from slabs
 * (rp_slab.h), one per capacity class (4 << k entries): wcp, dc and sdp
 * keep a clock per critical section, per synchronisation object and per
 * part of a lock's granule, millions of 16- to 64-byte arrays on a
 * lock-heavy server.  A longer flat array (a test's rp_vc_flat_max) comes
 * from the allocator. */
#define VC_POOL_CLASSES 5

#define VC_CLASS(k) { .size = (4u << (k)) * sizeof(uint32_t), .cost_centre = "rp.vc.slab" }

static rp_slab classes[VC_POOL_CLASSES] = {
    VC_CLASS(0), VC_CLASS(1), VC_CLASS(2), VC_CLASS(3), VC_CLASS(4)
};

/* The class of a capacity (a power of two times 4), or VC_POOL_CLASSES. */
static unsigned cap_class(uint32_t cap)
{
    unsigned k = 0;
    while (k < VC_POOL_CLASSES && (4u << k) != cap)
        k++;
    return k;
}

/* An array of cap entries, contents undefined. */
static uint32_t *clock_array_get(uint32_t cap)
{
    unsigned k = cap_class(cap);
    if (k >= VC_POOL_CLASSES)
        return rp_malloc("rp.vc", cap * sizeof(uint32_t));
    return slab_get(&classes[k]);
}

static void clock_array_put(uint32_t *clock, uint32_t cap)
{
    unsigned k = cap_class(cap);
    if (k >= VC_POOL_CLASSES)
        rp_free(clock);
    else
        slab_put(&classes[k], clock);
}

uint32_t rp_vc_flat_max = 64;

/* ---- pages and blocks (clocks longer than rp_vc_flat_max) ------------------ */

static rp_slab block_slab = {
    .size = (sizeof(rp_vc_block) + 7) & ~(size_t)7, .cost_centre = "rp.vc.block"
};
static rp_slab page_slab = {
    .size = (sizeof(rp_vc_page) + 7) & ~(size_t)7, .cost_centre = "rp.vc.page"
};

/* Every entry 0: the zero block stands for any block nothing has written
 * yet, the zero page (all its blocks the zero block) for any such page, in
 * every clock at once; neither is ever freed. */
static rp_vc_block zero_block;
static rp_vc_page zero_page = { 0, { [0 ... RP_VC_PAGE - 1] = &zero_block } };
static uint64_t parts_in_use;

uint64_t vc_blocks_in_use(void)
{
    return parts_in_use;
}

static bool is_blocked(const rp_vc *vc)
{
    return (vc->cap & RP_VC_BLOCKED) != 0;
}

static uint32_t pages_for(uint32_t len)
{
    return (len + (1u << RP_VC_PAGE_SPAN_BITS) - 1) >> RP_VC_PAGE_SPAN_BITS;
}

static rp_vc_block *block_share(rp_vc_block *b)
{
    if (b != &zero_block)
        b->refs++;
    return b;
}

static void block_release(rp_vc_block *b)
{
    if (b != &zero_block && --b->refs == 0) {
        slab_put(&block_slab, b);
        parts_in_use--;
    }
}

static rp_vc_page *page_share(rp_vc_page *p)
{
    if (p != &zero_page)
        p->refs++;
    return p;
}

static void page_release(rp_vc_page *p)
{
    if (p == &zero_page || --p->refs != 0)
        return;
    for (uint32_t i = 0; i < RP_VC_PAGE; i++)
        block_release(p->blocks[i]);
    slab_put(&page_slab, p);
    parts_in_use--;
}

/* Page i of vc, its own to change (a shared one is copied first, sharing
 * its blocks). */
static rp_vc_page *page_own(rp_vc *vc, uint32_t i)
{
    rp_vc_page *p = vc->u.pages[i];
    if (p != &zero_page && p->refs == 1)
        return p;
    rp_vc_page *own = slab_get(&page_slab);
    parts_in_use++;
    own->refs = 1;
    for (uint32_t k = 0; k < RP_VC_PAGE; k++)
        own->blocks[k] = block_share(p->blocks[k]);
    vc->u.pages[i] = own;
    page_release(p);
    return own;
}

/* Block k of a page vc owns, its own to write (a shared one is copied). */
static rp_vc_block *block_own(rp_vc_page *p, uint32_t k)
{
    rp_vc_block *b = p->blocks[k];
    if (b != &zero_block && b->refs == 1)
        return b;
    rp_vc_block *own = slab_get(&block_slab);
    parts_in_use++;
    own->refs = 1;
    rp_memcpy(own->clock, b->clock, sizeof own->clock);
    p->blocks[k] = own;
    block_release(b);
    return own;
}

/* The entry of tid in a blocked clock, writable. */
static uint32_t *blocked_entry_for_write(rp_vc *vc, rp_tid_t tid)
{
    rp_vc_page *p = page_own(vc, tid >> RP_VC_PAGE_SPAN_BITS);
    rp_vc_block *b = block_own(p, (tid >> RP_VC_BLOCK_BITS) & (RP_VC_PAGE - 1));
    return &b->clock[tid & (RP_VC_BLOCK - 1)];
}

static void release_pages(rp_vc *vc)
{
    for (uint32_t i = 0; i < pages_for(vc->len); i++)
        page_release(vc->u.pages[i]);
}

/* Room for n pages in a blocked clock's array; new ones are zero.  A
 * clock that grows (a thread's, as threads start) doubles its array; a
 * copy's (a lock's last release: most clocks) is made exactly as long. */
static void reserve_pages(rp_vc *vc, uint32_t n, bool exact)
{
    uint32_t cap = vc->cap & ~RP_VC_BLOCKED;
    uint32_t had = pages_for(vc->len);
    if (n > cap) {
        if (exact)
            cap = n;
        while (cap < n)
            cap = cap < 4 ? 4 : 2 * cap;
        vc->u.pages = rp_realloc("rp.vc.pages", vc->u.pages, cap * sizeof *vc->u.pages);
        vc->cap = cap | RP_VC_BLOCKED;
    }
    for (uint32_t i = had; i < n; i++)
        vc->u.pages[i] = &zero_page;
}

/* A flat clock becomes blocked (its length is about to pass rp_vc_flat_max). */
static void make_blocked(rp_vc *vc)
{
    uint32_t *flat = vc->u.clock;
    uint32_t flat_cap = vc->cap;
    uint32_t len = vc->len;
    vc->u.pages = NULL;
    vc->cap = RP_VC_BLOCKED;
    vc->len = 0;
    reserve_pages(vc, pages_for(len), false);
    vc->len = len;
    for (uint32_t t = 0; t < len; t++)
        if (flat[t] != 0)
            *blocked_entry_for_write(vc, t) = flat[t];
    if (flat != NULL)
        clock_array_put(flat, flat_cap);
}

/* ---- clocks ---------------------------------------------------------------------- */

void vc_init(rp_vc *vc)
{
    vc->u.clock = NULL;
    vc->len = 0;
    vc->cap = 0;
}

void vc_free(rp_vc *vc)
{
    if (is_blocked(vc)) {
        release_pages(vc);
        rp_free(vc->u.pages);
    } else if (vc->u.clock != NULL) {
        clock_array_put(vc->u.clock, vc->cap);
    }
    vc_init(vc);
}

static void grow_flat(rp_vc *vc, uint32_t len)
{
    if (len <= vc->cap)
        return;
    uint32_t cap = vc->cap < 4 ? 4 : vc->cap;
    while (cap < len)
        cap *= 2;
    uint32_t *clock = clock_array_get(cap);
    if (vc->u.clock != NULL) {
        rp_memcpy(clock, vc->u.clock, vc->cap * sizeof(uint32_t));
        clock_array_put(vc->u.clock, vc->cap);
    }
    rp_memset(clock + vc->cap, 0, (cap - vc->cap) * sizeof(uint32_t));
    vc->u.clock = clock;
    vc->cap = cap;
}

static void vc_grow(rp_vc *vc, uint32_t len)
{
    if (len <= vc->len)
        return;
    if (!is_blocked(vc) && len > rp_vc_flat_max)
        make_blocked(vc);
    if (is_blocked(vc))
        reserve_pages(vc, pages_for(len), false);
    else
        grow_flat(vc, len);
    vc->len = len;
}

/* The entry of tid, writable (vc long enough already). */
static uint32_t *entry_for_write(rp_vc *vc, rp_tid_t tid)
{
    if (!is_blocked(vc))
        return &vc->u.clock[tid];
    return blocked_entry_for_write(vc, tid);
}

void vc_set(rp_vc *vc, rp_tid_t tid, uint32_t clock)
{
    vc_grow(vc, tid + 1);
    *entry_for_write(vc, tid) = clock;
}

void vc_inc(rp_vc *vc, rp_tid_t tid)
{
    vc_grow(vc, tid + 1);
    (*entry_for_write(vc, tid))++;
}

/* Whether block a has an entry above b's. */
static bool block_above(const rp_vc_block *a, const rp_vc_block *b)
{
    for (uint32_t k = 0; k < RP_VC_BLOCK; k++)
        if (a->clock[k] > b->clock[k])
            return true;
    return false;
}

/* Block k of dst's page i ⊔= b: nothing to do where dst already
 * dominates, b itself shared where b dominates, else a write. */
static void join_block(rp_vc *dst, uint32_t i, uint32_t k, rp_vc_block *b)
{
    rp_vc_block *d = dst->u.pages[i]->blocks[k];
    if (d == b || b == &zero_block || !block_above(b, d))
        return;
    rp_vc_page *p = page_own(dst, i);
    if (!block_above(d, b)) {
        p->blocks[k] = block_share(b);
        block_release(d);
        return;
    }
    d = block_own(p, k);
    for (uint32_t j = 0; j < RP_VC_BLOCK; j++)
        if (b->clock[j] > d->clock[j])
            d->clock[j] = b->clock[j];
}

/* dst's page i ⊔= src's page q; dst takes q itself when it ends with
 * q's blocks. */
static void join_page(rp_vc *dst, uint32_t i, rp_vc_page *q)
{
    if (dst->u.pages[i] == q || q == &zero_page)
        return;
    if (dst->u.pages[i] == &zero_page) {
        dst->u.pages[i] = page_share(q);
        return;
    }
    bool same = true;
    for (uint32_t k = 0; k < RP_VC_PAGE; k++) {
        join_block(dst, i, k, q->blocks[k]);
        same &= dst->u.pages[i]->blocks[k] == q->blocks[k];
    }
    if (same) {
        page_release(dst->u.pages[i]);
        dst->u.pages[i] = page_share(q);
    }
}

/* A flat src into a blocked dst: only the entries that grow are written. */
static void join_flat_into_blocks(rp_vc *dst, const rp_vc *src)
{
    for (uint32_t t = 0; t < src->len; t++)
        if (src->u.clock[t] > vc_get(dst, t))
            *entry_for_write(dst, t) = src->u.clock[t];
}

/* Entries joined four at a time (GCC's vector extension: SSE2 here, the
 * same code anywhere); a mask of the entries where b is larger picks them. */
typedef uint32_t rp_vc_lanes __attribute__((vector_size(16)));
#define RP_VC_LANES 4u

/* dst[i] = max(dst[i], src[i]) for i < n, without a branch per entry. */
static void join_flat(uint32_t *dst, const uint32_t *src, uint32_t n)
{
    uint32_t i = 0;

    for (; i + RP_VC_LANES <= n; i += RP_VC_LANES) {
        rp_vc_lanes a, b, larger;

        __builtin_memcpy(&a, dst + i, sizeof a);
        __builtin_memcpy(&b, src + i, sizeof b);
        larger = (rp_vc_lanes)(b > a);
        a = (a & ~larger) | (b & larger);
        __builtin_memcpy(dst + i, &a, sizeof a);
    }
    for (; i < n; i++)
        dst[i] = src[i] > dst[i] ? src[i] : dst[i];
}

/* Every other case: dst grows, or either clock is in blocks. */
static void __attribute__((noinline)) join_slow(rp_vc *dst, const rp_vc *src)
{
    vc_grow(dst, src->len);
    if (is_blocked(src)) {
        for (uint32_t i = 0; i < pages_for(src->len); i++)
            join_page(dst, i, src->u.pages[i]);
    } else if (is_blocked(dst)) {
        join_flat_into_blocks(dst, src);
    } else {
        join_flat(dst->u.clock, src->u.clock, src->len);
    }
}

/* Synchronising objects join on every load and store (rp_filter.h): the
 * common case, two flat clocks and dst long enough, takes no frame. */
void vc_join(rp_vc *dst, const rp_vc *src)
{
    if (((dst->cap | src->cap) & RP_VC_BLOCKED) == 0 && src->len <= dst->len) {
        if (dst != src)
            join_flat(dst->u.clock, src->u.clock, src->len);
        return;
    }
    join_slow(dst, src);
}

void vc_copy(rp_vc *dst, const rp_vc *src)
{
    if (dst == src)
        return;
    if (!is_blocked(src)) {
        vc_clear(dst);
        vc_grow(dst, src->len);
        rp_memcpy(dst->u.clock, src->u.clock, src->len * sizeof(uint32_t));
        return;
    }
    if (is_blocked(dst)) {
        release_pages(dst);
        dst->len = 0;
    } else {
        vc_free(dst);
        dst->cap = RP_VC_BLOCKED;
    }
    reserve_pages(dst, pages_for(src->len), true);
    for (uint32_t i = 0; i < pages_for(src->len); i++)
        dst->u.pages[i] = page_share(src->u.pages[i]);
    dst->len = src->len;
}

bool vc_leq(const rp_vc *a, const rp_vc *b)
{
    const uint32_t span = 1u << RP_VC_PAGE_SPAN_BITS;
    for (uint32_t i = 0; i < a->len; i++) {
        if (is_blocked(a) && is_blocked(b) && (i & (span - 1)) == 0 && i < b->len
            && a->u.pages[i >> RP_VC_PAGE_SPAN_BITS] == b->u.pages[i >> RP_VC_PAGE_SPAN_BITS]) {
            i += span - 1;
            continue;
        }
        if (vc_get(a, i) > vc_get(b, i))
            return false;
    }
    return true;
}

/* A flat clock keeps its array; a blocked one becomes flat and empty (a
 * clock is blocked exactly when it is longer than rp_vc_flat_max). */
void vc_clear(rp_vc *vc)
{
    if (is_blocked(vc))
        vc_free(vc);
    else if (vc->len != 0)
        rp_memset(vc->u.clock, 0, vc->len * sizeof(uint32_t));
    vc->len = 0;
}
