/* rp_vc.c — vector clocks (see rp_vc.h). */
#include "rp_vc.h"

#include "rp_shim.h"
#include "rp_slab.h"

/* Clock arrays of up to 4 << (VC_POOL_CLASSES - 1) entries come from
 * slabs (rp_slab.h), one per capacity class (4 << k entries): wcp, dc and
 * sdp keep a clock per critical section, per synchronisation object and
 * per part of a lock's granule, millions of 16- to 64-byte arrays on a
 * lock-heavy server.  Larger clocks use the allocator directly. */
#define VC_POOL_CLASSES 8

#define VC_CLASS(k) { .size = (4u << (k)) * sizeof(uint32_t), .cost_centre = "rp.vc.slab" }

static rp_slab classes[VC_POOL_CLASSES] = {
    VC_CLASS(0), VC_CLASS(1), VC_CLASS(2), VC_CLASS(3),
    VC_CLASS(4), VC_CLASS(5), VC_CLASS(6), VC_CLASS(7)
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

/* ---- blocks (clocks longer than rp_vc_flat_max) ----------------------------- */

static rp_slab block_slab = {
    .size = (sizeof(rp_vc_block) + 7) & ~(size_t)7, .cost_centre = "rp.vc.block"
};

/* Every entry 0; stands for any block nothing has written yet, in every
 * clock at once, and is never freed. */
static rp_vc_block zero_block;
static uint64_t blocks_in_use;

uint64_t vc_blocks_in_use(void)
{
    return blocks_in_use;
}

static bool is_blocked(const rp_vc *vc)
{
    return (vc->cap & RP_VC_BLOCKED) != 0;
}

static uint32_t blocks_for(uint32_t len)
{
    return (len + RP_VC_BLOCK - 1) >> RP_VC_BLOCK_BITS;
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
        blocks_in_use--;
    }
}

static rp_vc_block *block_copy(const rp_vc_block *from)
{
    rp_vc_block *b = slab_get(&block_slab);
    blocks_in_use++;
    b->refs = 1;
    rp_memcpy(b->clock, from->clock, sizeof b->clock);
    return b;
}

/* Block i of vc, its own to write (a shared one is copied first). */
static rp_vc_block *block_own(rp_vc *vc, uint32_t i)
{
    rp_vc_block *b = vc->u.blocks[i];
    if (b != &zero_block && b->refs == 1)
        return b;
    vc->u.blocks[i] = block_copy(b);
    block_release(b);
    return vc->u.blocks[i];
}

static void release_blocks(rp_vc *vc)
{
    for (uint32_t i = 0; i < blocks_for(vc->len); i++)
        block_release(vc->u.blocks[i]);
}

/* Room for n blocks in a blocked clock's array; new ones are zero.  A
 * clock that grows (a thread's, as threads start) doubles its array; a
 * copy's (a lock's last release: most clocks) is made exactly as long. */
static void reserve_blocks(rp_vc *vc, uint32_t n, bool exact)
{
    uint32_t cap = vc->cap & ~RP_VC_BLOCKED;
    uint32_t had = blocks_for(vc->len);
    if (n > cap) {
        if (exact)
            cap = n;
        while (cap < n)
            cap = cap < 4 ? 4 : 2 * cap;
        vc->u.blocks = rp_realloc("rp.vc.blocks", vc->u.blocks, cap * sizeof *vc->u.blocks);
        vc->cap = cap | RP_VC_BLOCKED;
    }
    for (uint32_t i = had; i < n; i++)
        vc->u.blocks[i] = &zero_block;
}

/* A flat clock becomes blocked (its length is about to pass rp_vc_flat_max). */
static void make_blocked(rp_vc *vc)
{
    uint32_t *flat = vc->u.clock;
    uint32_t flat_cap = vc->cap;
    uint32_t len = vc->len;
    vc->u.blocks = NULL;
    vc->cap = RP_VC_BLOCKED;
    vc->len = 0;
    reserve_blocks(vc, blocks_for(len), false);
    vc->len = len;
    for (uint32_t t = 0; t < len; t++)
        if (flat[t] != 0)
            block_own(vc, t >> RP_VC_BLOCK_BITS)->clock[t & (RP_VC_BLOCK - 1)] = flat[t];
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
        release_blocks(vc);
        rp_free(vc->u.blocks);
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
        reserve_blocks(vc, blocks_for(len), false);
    else
        grow_flat(vc, len);
    vc->len = len;
}

/* The entry of tid, writable (vc long enough already). */
static uint32_t *entry_for_write(rp_vc *vc, rp_tid_t tid)
{
    if (!is_blocked(vc))
        return &vc->u.clock[tid];
    return &block_own(vc, tid >> RP_VC_BLOCK_BITS)->clock[tid & (RP_VC_BLOCK - 1)];
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

/* dst's block i ⊔= b: nothing to do where dst already dominates, b itself
 * shared where b dominates, else a write. */
static void join_block(rp_vc *dst, uint32_t i, rp_vc_block *b)
{
    rp_vc_block *d = dst->u.blocks[i];
    bool b_above = false, d_above = false;
    if (d == b || b == &zero_block)
        return;
    for (uint32_t k = 0; k < RP_VC_BLOCK; k++) {
        b_above |= b->clock[k] > d->clock[k];
        d_above |= d->clock[k] > b->clock[k];
    }
    if (!b_above)
        return;
    if (!d_above) {
        dst->u.blocks[i] = block_share(b);
        block_release(d);
        return;
    }
    d = block_own(dst, i);
    for (uint32_t k = 0; k < RP_VC_BLOCK; k++)
        if (b->clock[k] > d->clock[k])
            d->clock[k] = b->clock[k];
}

/* A flat src into a blocked dst: only the entries that grow are written. */
static void join_flat_into_blocks(rp_vc *dst, const rp_vc *src)
{
    for (uint32_t t = 0; t < src->len; t++)
        if (src->u.clock[t] > vc_get(dst, t))
            *entry_for_write(dst, t) = src->u.clock[t];
}

void vc_join(rp_vc *dst, const rp_vc *src)
{
    vc_grow(dst, src->len);
    if (is_blocked(src)) {
        for (uint32_t i = 0; i < blocks_for(src->len); i++)
            join_block(dst, i, src->u.blocks[i]);
    } else if (is_blocked(dst)) {
        join_flat_into_blocks(dst, src);
    } else {
        for (uint32_t i = 0; i < src->len; i++)
            if (src->u.clock[i] > dst->u.clock[i])
                dst->u.clock[i] = src->u.clock[i];
    }
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
        release_blocks(dst);
        dst->len = 0;
    } else {
        vc_free(dst);
        dst->cap = RP_VC_BLOCKED;
    }
    reserve_blocks(dst, blocks_for(src->len), true);
    for (uint32_t i = 0; i < blocks_for(src->len); i++)
        dst->u.blocks[i] = block_share(src->u.blocks[i]);
    dst->len = src->len;
}

bool vc_leq(const rp_vc *a, const rp_vc *b)
{
    for (uint32_t i = 0; i < a->len; i++) {
        if (is_blocked(a) && is_blocked(b) && (i & (RP_VC_BLOCK - 1)) == 0
            && i < b->len && a->u.blocks[i >> RP_VC_BLOCK_BITS] == b->u.blocks[i >> RP_VC_BLOCK_BITS]) {
            i += RP_VC_BLOCK - 1;
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
