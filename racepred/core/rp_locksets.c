/* rp_locksets.c — held locks and interned locksets (rp_locksets.h). */
#include "rp_locksets.h"

#include "rp_array.h"
#include "rp_shim.h"
#include "rp_u64map.h"

#define NO_SET UINT32_MAX

typedef struct lk_entry {
    uint64_t lock;
    uint32_t count;        /* nesting depth (held locks only) */
    bool shared;
} lk_entry;

typedef struct lk_set {
    lk_entry *locks;       /* sorted by (lock, shared); count unused */
    uint32_t n;
    uint32_t next_same_hash;
} lk_set;

typedef struct lk_held {
    lk_entry *locks;       /* sorted by (lock, shared) */
    uint32_t n, cap;
    uint32_t tag;
} lk_held;

struct rp_locksets {
    lk_held *held;
    uint32_t n_held, cap_held;
    lk_set *sets;
    uint32_t n_sets, cap_sets;
    rp_u64map set_by_hash;     /* hash → 1 + index of the first set with it */
};

/* ---- interning ------------------------------------------------------------- */

static uint64_t hash_entries(const lk_entry *locks, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ (locks[i].lock * 2 + locks[i].shared)) * 0x100000001b3ull;
    return h;
}

static bool same_entries(const lk_set *s, const lk_entry *locks, uint32_t n)
{
    if (s->n != n)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (s->locks[i].lock != locks[i].lock || s->locks[i].shared != locks[i].shared)
            return false;
    return true;
}

static uint32_t add_set(rp_locksets *ls, const lk_entry *locks, uint32_t n, uint32_t next)
{
    ls->sets = rp_array_reserve_from("rp.locksets.sets", ls->sets, ls->n_sets, &ls->cap_sets,
                                     sizeof(lk_set), 16);
    lk_set *s = &ls->sets[ls->n_sets];
    s->locks = rp_malloc("rp.locksets.locks", (n + 1) * sizeof(lk_entry));
    if (n != 0)
        rp_memcpy(s->locks, locks, n * sizeof(lk_entry));
    s->n = n;
    s->next_same_hash = next;
    return ls->n_sets++;
}

static uint32_t intern(rp_locksets *ls, const lk_entry *locks, uint32_t n)
{
    uint64_t hash = hash_entries(locks, n);
    uintptr_t first = (uintptr_t)u64map_get(&ls->set_by_hash, hash);
    uint32_t head = first == 0 ? NO_SET : (uint32_t)(first - 1);
    for (uint32_t i = head; i != NO_SET; i = ls->sets[i].next_same_hash)
        if (same_entries(&ls->sets[i], locks, n))
            return i;
    uint32_t tag = add_set(ls, locks, n, head);
    u64map_put(&ls->set_by_hash, hash, (void *)(uintptr_t)(tag + 1));
    return tag;
}

/* ---- held locks ------------------------------------------------------------- */

static lk_held *held_of(rp_locksets *ls, rp_tid_t tid)
{
    ls->held = rp_array_extend("rp.locksets.held", ls->held, tid, &ls->n_held, &ls->cap_held,
                               sizeof(lk_held));
    return &ls->held[tid];
}

static bool entry_before(const lk_entry *e, uint64_t lock, bool shared)
{
    return e->lock < lock || (e->lock == lock && e->shared < shared);
}

static uint32_t held_position(const lk_held *h, uint64_t lock, bool shared)
{
    uint32_t i = 0;
    while (i < h->n && entry_before(&h->locks[i], lock, shared))
        i++;
    return i;
}

static bool held_at(const lk_held *h, uint32_t i, uint64_t lock, bool shared)
{
    return i < h->n && h->locks[i].lock == lock && h->locks[i].shared == shared;
}

static void held_insert(lk_held *h, uint32_t i, uint64_t lock, bool shared)
{
    h->locks = rp_array_reserve_from("rp.locksets.held", h->locks, h->n, &h->cap,
                                     sizeof(lk_entry), 4);
    for (uint32_t j = h->n; j > i; j--)
        h->locks[j] = h->locks[j - 1];
    h->locks[i].lock = lock;
    h->locks[i].shared = shared;
    h->locks[i].count = 0;
    h->n++;
}

void locksets_acquire(rp_locksets *ls, rp_tid_t tid, uint64_t lock, bool shared)
{
    lk_held *h = held_of(ls, tid);
    uint32_t i = held_position(h, lock, shared);
    if (!held_at(h, i, lock, shared)) {
        held_insert(h, i, lock, shared);
        h->tag = intern(ls, h->locks, h->n);
    }
    h->locks[i].count++;
}

void locksets_release(rp_locksets *ls, rp_tid_t tid, uint64_t lock, bool shared)
{
    lk_held *h = held_of(ls, tid);
    uint32_t i = held_position(h, lock, shared);
    if (!held_at(h, i, lock, shared) || --h->locks[i].count != 0)
        return;
    for (uint32_t j = i + 1; j < h->n; j++)
        h->locks[j - 1] = h->locks[j];
    h->n--;
    h->tag = intern(ls, h->locks, h->n);
}

uint32_t locksets_tag(rp_locksets *ls, rp_tid_t tid)
{
    return held_of(ls, tid)->tag;
}

/* ---- queries ---------------------------------------------------------------- */

/* The mode in which set s holds lock: 0 not held, 1 shared only, 2 exclusive. */
static int held_mode(const lk_set *s, uint64_t lock)
{
    int mode = 0;
    for (uint32_t i = 0; i < s->n; i++)
        if (s->locks[i].lock == lock)
            mode = s->locks[i].shared ? (mode > 1 ? mode : 1) : 2;
    return mode;
}

bool locksets_holds_exclusive(const rp_locksets *ls, uint32_t tag, uint64_t lock)
{
    return held_mode(&ls->sets[tag], lock) == 2;
}

bool locksets_disjoint(void *ctx, uint32_t first_tag, uint32_t second_tag)
{
    const rp_locksets *ls = ctx;
    const lk_set *a = &ls->sets[first_tag], *b = &ls->sets[second_tag];
    for (uint32_t i = 0; i < a->n; i++) {
        int other = held_mode(b, a->locks[i].lock);
        if (other == 2 || (other == 1 && !a->locks[i].shared))
            return false;
    }
    return true;
}

bool locksets_may_evict(void *ctx, uint32_t old_tag, uint32_t new_tag)
{
    const rp_locksets *ls = ctx;
    const lk_set *old = &ls->sets[old_tag], *new = &ls->sets[new_tag];
    for (uint32_t i = 0; i < new->n; i++) {
        int mode = held_mode(old, new->locks[i].lock);
        if (mode == 0 || (mode == 1 && !new->locks[i].shared))
            return false;
    }
    return true;
}

/* ---- life cycle --------------------------------------------------------------- */

rp_locksets *locksets_create(void)
{
    rp_locksets *ls = rp_calloc("rp.locksets", 1, sizeof *ls);
    u64map_init(&ls->set_by_hash);
    intern(ls, NULL, 0);
    return ls;
}

void locksets_destroy(rp_locksets *ls)
{
    if (ls == NULL)
        return;
    for (uint32_t t = 0; t < ls->n_held; t++)
        rp_free(ls->held[t].locks);
    rp_free(ls->held);
    for (uint32_t i = 0; i < ls->n_sets; i++)
        rp_free(ls->sets[i].locks);
    rp_free(ls->sets);
    u64map_free(&ls->set_by_hash);
    rp_free(ls);
}
