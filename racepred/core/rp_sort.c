/* rp_sort.c — heapsort of uint64 keys (see rp_sort.h). */
#include "rp_sort.h"

#include "rp_event.h"
#include "rp_shim.h"

static void sift_down(uint64_t *keys, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && keys[child + 1] > keys[child])
            child++;
        if (keys[root] >= keys[child])
            return;
        uint64_t tmp = keys[root];
        keys[root] = keys[child];
        keys[child] = tmp;
        root = child;
    }
}

void sort_u64(uint64_t *keys, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(keys, i, n);
    for (size_t end = n; end-- > 1;) {
        uint64_t tmp = keys[0];
        keys[0] = keys[end];
        keys[end] = tmp;
        sift_down(keys, 0, end);
    }
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

uint64_t *touched_bytes(const struct rp_event *log, uint32_t n, size_t *count)
{
    size_t total = 0, k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (rp_event_is_access(&log[i]))
            total += log[i].size;
    uint64_t *v = rp_malloc("rp.touched", (total + 1) * sizeof *v);
    for (uint32_t i = 0; i < n; i++)
        if (rp_event_is_access(&log[i]))
            for (uint32_t b = 0; b < log[i].size; b++)
                v[k++] = log[i].obj + b;
    *count = sort_unique_u64(v, k);
    return v;
}
