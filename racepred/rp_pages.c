/* rp_pages.c — pages for the core's big tables (rp_pages_alloc in
 * core/rp_shim.h: shadow chunks), inside the tool.
 *
 * Straight from the address space manager, not the arena: an arena's
 * calloc writes every page (and reuses memory it must clear), where fresh
 * anonymous memory is zero and resident only where written.  Pages are
 * carved from regions of PAGES_REGION_BYTES, since a mapping per chunk
 * would exhaust the manager's table of segments (a program touching a
 * byte every 64 KiB over 1 GiB stopped Valgrind).  Freed pages go to a
 * free list per size and are cleared when reused; a region none of whose
 * pages is in use any more is unmapped, so that what the detectors free
 * (all of it when --max-memory stops detection) goes back to the system.
 * A request larger than a quarter region, of a ninth size, or made when
 * no whole region fits in the address space (a program near its
 * ulimit -v), is mapped on its own and unmapped when freed.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"

#include "rp_array.h"
#include "rp_shim.h"

#define PAGES_REGION_BYTES ((SizeT)16 << 20)
#define PAGES_SIZES 8

typedef struct {
    UChar *base;
    SizeT carved;          /* bytes handed out from base on, in use or free */
    SizeT live;            /* of them in use */
} pages_region;

typedef struct {
    SizeT bytes;
    void **free;
    UInt n_free, cap_free;
} pages_size;

static pages_size sizes[PAGES_SIZES];
static UInt n_sizes;
static pages_region *regions;
static UInt n_regions, cap_regions;
/* The region new pages are carved from (an index into regions), or none. */
static Int current = -1;

static pages_size *size_of(SizeT bytes)
{
    for (UInt i = 0; i < n_sizes; i++)
        if (sizes[i].bytes == bytes)
            return &sizes[i];
    if (n_sizes == PAGES_SIZES)
        return NULL;
    sizes[n_sizes].bytes = bytes;
    return &sizes[n_sizes++];
}

static pages_region *region_of(const void *p)
{
    for (UInt i = 0; i < n_regions; i++)
        if ((const UChar *)p >= regions[i].base
            && (const UChar *)p < regions[i].base + PAGES_REGION_BYTES)
            return &regions[i];
    return NULL;
}

static void *map_alone(const char *cost_centre, SizeT bytes)
{
    void *p = VG_(am_shadow_alloc)(bytes);
    if (p == NULL)
        VG_(out_of_memory_NORETURN)(cost_centre, bytes);
    return p;
}

static void unmap(void *p, SizeT bytes)
{
    SysRes r = VG_(am_munmap_valgrind)((Addr)p, bytes);
    tl_assert(!sr_isError(r));
}

/* A region whose pages are all free: off the free lists, unmapped. */
static void region_release(pages_region *r)
{
    UInt index = (UInt)(r - regions);

    for (UInt s = 0; s < n_sizes; s++) {
        UInt kept = 0;
        for (UInt i = 0; i < sizes[s].n_free; i++) {
            UChar *p = sizes[s].free[i];
            if (p < r->base || p >= r->base + PAGES_REGION_BYTES)
                sizes[s].free[kept++] = p;
        }
        sizes[s].n_free = kept;
    }
    unmap(r->base, PAGES_REGION_BYTES);
    regions[index] = regions[--n_regions];
    if (current == (Int)n_regions)
        current = (Int)index;
}

/* Carves bytes from a new region, which becomes the current one; the
 * region before it goes if nothing of it is in use. */
static void *carve_from_new_region(const char *cost_centre, SizeT bytes)
{
    UChar *base = VG_(am_shadow_alloc)(PAGES_REGION_BYTES);
    pages_region *r;

    if (base == NULL)
        return map_alone(cost_centre, bytes);
    if (current >= 0 && regions[current].live == 0) {
        region_release(&regions[current]);
        current = -1;
    }
    regions = rp_array_reserve("rp.pages.regions", regions, n_regions, &cap_regions,
                               sizeof *regions);
    r = &regions[n_regions];
    r->base = base;
    r->carved = bytes;
    r->live = bytes;
    current = (Int)n_regions++;
    return base;
}

void *rp_pages_alloc(const char *cost_centre, size_t bytes)
{
    pages_size *size = size_of(bytes);
    pages_region *r;
    void *p;

    tl_assert(bytes > 0 && bytes % VKI_PAGE_SIZE == 0);
    if (size == NULL || bytes > PAGES_REGION_BYTES / 4)
        return map_alone(cost_centre, bytes);
    if (size->n_free > 0) {
        p = size->free[--size->n_free];
        region_of(p)->live += bytes;
        VG_(memset)(p, 0, bytes);
        return p;
    }
    if (current < 0 || PAGES_REGION_BYTES - regions[current].carved < bytes)
        return carve_from_new_region(cost_centre, bytes);
    r = &regions[current];
    p = r->base + r->carved;
    r->carved += bytes;
    r->live += bytes;
    return p;
}

void rp_pages_free(void *p, size_t bytes)
{
    pages_region *r = region_of(p);
    pages_size *size;

    if (r == NULL) {
        unmap(p, bytes);
        return;
    }
    size = size_of(bytes);
    tl_assert(size != NULL && r->live >= bytes);
    r->live -= bytes;
    if (r->live == 0 && (Int)(r - regions) != current) {
        region_release(r);
        return;
    }
    size->free = rp_array_reserve("rp.pages.free", size->free, size->n_free, &size->cap_free,
                                  sizeof *size->free);
    size->free[size->n_free++] = p;
}
