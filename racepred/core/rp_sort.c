/* rp_sort.c — radix sort of uint64 keys (see rp_sort.h). */
#include "rp_sort.h"

#include "rp_event.h"
#include "rp_shim.h"

#include <stdbool.h>

#define INSERTION_MAX 48

static void insertion_sort(uint64_t *keys, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t key = keys[i];
        size_t j = i;
        for (; j > 0 && keys[j - 1] > key; j--)
            keys[j] = keys[j - 1];
        keys[j] = key;
    }
}

/* One stable counting pass on the byte at `shift`, src into dst; false
 * (nothing moved) when every key has the same byte there. */
static bool radix_pass(const uint64_t *src, uint64_t *dst, size_t n, unsigned shift)
{
    size_t count[256] = { 0 };
    for (size_t i = 0; i < n; i++)
        count[(src[i] >> shift) & 0xFF]++;
    if (count[(src[0] >> shift) & 0xFF] == n)
        return false;
    for (size_t b = 0, pos = 0; b < 256; b++) {
        size_t c = count[b];
        count[b] = pos;
        pos += c;
    }
    for (size_t i = 0; i < n; i++)
        dst[count[(src[i] >> shift) & 0xFF]++] = src[i];
    return true;
}

void sort_u64(uint64_t *keys, size_t n)
{
    if (n <= INSERTION_MAX) {
        insertion_sort(keys, n);
        return;
    }
    uint64_t *buffer = rp_malloc("rp.sort", n * sizeof *buffer);
    uint64_t *src = keys, *dst = buffer;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        if (radix_pass(src, dst, n, shift)) {
            uint64_t *t = src;
            src = dst;
            dst = t;
        }
    }
    if (src != keys)
        rp_memcpy(keys, src, n * sizeof *keys);
    rp_free(buffer);
}

size_t sort_unique_u64(uint64_t *keys, size_t n)
{
    if (n == 0)
        return 0;
    sort_u64(keys, n);
    size_t out = 1;
    for (size_t i = 1; i < n; i++)
        if (keys[i] != keys[out - 1])
            keys[out++] = keys[i];
    return out;
}

size_t lower_bound_u64(const uint64_t *sorted, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The bytes of every access, one key per byte: for logs whose accesses do
 * not pack (below). */
static uint64_t *touched_by_byte(const struct rp_event *log, uint32_t n, size_t total,
                                 size_t *count)
{
    size_t k = 0;
    uint64_t *v = rp_malloc("rp.touched", (total + 1) * sizeof *v);
    for (uint32_t i = 0; i < n; i++)
        if (rp_event_is_access(&log[i]))
            for (uint32_t b = 0; b < log[i].size; b++)
                v[k++] = log[i].obj + b;
    *count = sort_unique_u64(v, k);
    /* Accesses repeat their bytes: give the duplicates' room back (a
     * copy, since Valgrind's realloc keeps a block that shrinks). */
    uint64_t *unique = rp_malloc("rp.touched", (*count + 1) * sizeof *v);
    rp_memcpy(unique, v, *count * sizeof *v);
    rp_free(v);
    return unique;
}

/* The bytes the sorted packed accesses cover, in order, once each: into
 * out unless it is NULL; returns how many. */
static size_t expand_accesses(const uint64_t *keys, size_t n, uint64_t *out)
{
    size_t count = 0;
    uint64_t next = 0;     /* the first byte after those written */
    for (size_t i = 0; i < n; i++) {
        uint64_t addr = keys[i] >> 8, end = addr + (keys[i] & 0xFF) + 1;
        for (uint64_t b = addr > next ? addr : next; b < end; b++) {
            if (out != NULL)
                out[count] = b;
            count++;
        }
        if (end > next)
            next = end;
    }
    return count;
}

/* Packed keys: an access's address above its size - 1, a key per 256
 * bytes of a longer one (a free writes a whole block). */
#define PIECE 256u

static size_t access_keys(const struct rp_event *e, uint64_t *out)
{
    size_t n = 0;
    for (uint64_t off = 0; off < e->size; off += PIECE, n++) {
        uint64_t len = e->size - off < PIECE ? e->size - off : PIECE;
        if (out != NULL)
            out[n] = (e->obj + off) << 8 | (len - 1);
    }
    return n;
}

/* Sorting the accesses, not their bytes: a key per access of at most 256
 * bytes (more for a longer one), for accesses below 2^56 (every user-space
 * address): 4 to 8 times fewer keys to sort than bytes. */
uint64_t *touched_bytes(const struct rp_event *log, uint32_t n, size_t *count)
{
    size_t total = 0, n_keys = 0;
    bool packs = true;
    for (uint32_t i = 0; i < n; i++) {
        if (!rp_event_is_access(&log[i]) || log[i].size == 0)
            continue;
        total += log[i].size;
        n_keys += access_keys(&log[i], NULL);
        packs = packs && ((log[i].obj + log[i].size - 1) >> 56) == 0
                && log[i].obj + log[i].size - 1 >= log[i].obj;
    }
    if (!packs)
        return touched_by_byte(log, n, total, count);
    uint64_t *keys = rp_malloc("rp.touched.keys", (n_keys + 1) * sizeof *keys);
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (rp_event_is_access(&log[i]) && log[i].size != 0)
            k += access_keys(&log[i], keys + k);
    k = sort_unique_u64(keys, k);
    *count = expand_accesses(keys, k, NULL);
    uint64_t *v = rp_malloc("rp.touched", (*count + 1) * sizeof *v);
    expand_accesses(keys, k, v);
    rp_free(keys);
    return v;
}

#define PAGE_BITS 12

void lastw_init(rp_lastw *lw, const uint64_t *touched, size_t n_touched)
{
    lw->touched = touched;
    lw->n_touched = n_touched;
    lw->last = rp_calloc("rp.lastw", n_touched + 1, sizeof *lw->last);
    u64map_init(&lw->pages);
    for (size_t j = 0; j < n_touched; j++)
        if (j == 0 || touched[j] >> PAGE_BITS != touched[j - 1] >> PAGE_BITS)
            u64map_put(&lw->pages, touched[j] >> PAGE_BITS, (void *)(uintptr_t)(j + 1));
}

void lastw_free(rp_lastw *lw)
{
    rp_free(lw->last);
    lw->last = NULL;
    u64map_free(&lw->pages);
}

size_t lastw_pos(const rp_lastw *lw, uint64_t obj)
{
    uintptr_t first = (uintptr_t)u64map_get(&lw->pages, obj >> PAGE_BITS);
    if (first == 0)
        return lower_bound_u64(lw->touched, lw->n_touched, obj);
    size_t lo = first - 1, room = lw->n_touched - lo;
    size_t span = room < ((size_t)1 << PAGE_BITS) ? room : (size_t)1 << PAGE_BITS;
    return lo + lower_bound_u64(lw->touched + lo, span, obj);
}

void lastw_write(rp_lastw *lw, uint64_t obj, uint64_t size, uint32_t i)
{
    for (size_t j = lastw_pos(lw, obj); j < lw->n_touched && lw->touched[j] - obj < size; j++)
        lw->last[j] = i + 1;
}
