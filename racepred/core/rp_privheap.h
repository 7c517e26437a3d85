/* rp_privheap.h — heap blocks no other thread can reach yet.
 *
 * Most of what a compressor's worker touches is its own: zlib's window and
 * hash chains, bzip2's sort arrays, allocated by the worker and reached
 * through its own stack.  Each first access of a span to such memory is an
 * event the detectors must treat (pigz: 91 % of the 7 M events, pbzip2
 * about 80 %), though no other thread can access it while no address of
 * the block has left the thread.  The private stack (rp_privstack.h)
 * makes the same argument for stack frames; this is its heap twin.
 *
 * A block is private from its allocation to its escape.  Another thread
 * can reach it only through an address of it (its start or any byte
 * inside), which must leave its owner first:
 *   - stored by the owner into memory that is not one of its private
 *     blocks (a global, a shared block, a stack): privheap_store;
 *   - held by another private block of the owner that escapes, or by a
 *     stack range that becomes shared: an escaping range is scanned for
 *     addresses of private blocks, which escape with it (privheap_scan);
 *   - handed over by the owner's thread creation, a system call that sends
 *     data, or its end: every block of the owner escapes
 *     (privheap_escape_owner).
 * An access of the owner to a private block is no event.  What that can
 * miss is what the private stack misses: an access made before the escape
 * racing with another thread's access after it.  That thread got the
 * address from the store that published it; a publishing store that is a
 * plain racy write is reported itself, and one made through
 * synchronisation orders the owner's earlier accesses before the other
 * thread's, in every correct reordering too (the other thread's read of
 * the address must read the publishing store).  Addresses that leave
 * without being stored (computed, disguised by arithmetic, written by code
 * racepred ignores) are not seen: the first access of another thread makes
 * the block shared then (the front end counts those).
 *
 * Words are taken for addresses by their value alone, and under Valgrind
 * the heap lies low, where integers live too: zlib's hash chains, stored
 * four 16-bit entries to a vector lane, look like addresses of every
 * thread's blocks.  Only the owner can hold a real address of its private
 * block, so a store or a copy lets only the storing thread's blocks
 * escape, and an escaping block only its owner's.
 *
 * Only blocks of a page or more are kept (the ones whose first touches
 * cost), so that a page meets at most two of them (one ending in it, one
 * starting): a shadow of page numbers holds both indices, and one lookup
 * answers "whose private block holds this byte".  Pure bookkeeping: the
 * front end feeds it allocations, stores and escapes, and reads the client
 * memory it scans through plain pointers (the tool shares the client's
 * address space).
 */
#ifndef RP_PRIVHEAP_H
#define RP_PRIVHEAP_H

#include "rp_shadow.h"
#include "rp_u64map.h"

#include <stdbool.h>
#include <stdint.h>

#define RP_PRIVHEAP_PAGE_BITS 12
#define RP_PRIVHEAP_NONE UINT32_MAX

typedef struct rp_privheap_block {
    uint64_t lo, hi;            /* its bytes, [lo, hi); 0, 0: a free entry */
    uint32_t owner;             /* the thread that allocated it */
    uint32_t prev, next;        /* the owner's private blocks (index + 1, 0: none);
                                 * next also links the free entries */
    bool holds_frames;          /* an address of a stack frame was stored in it */
} rp_privheap_block;

/* The private blocks a page meets (index + 1, 0: none). */
typedef struct rp_privheap_page {
    uint32_t block[2];
} rp_privheap_page;

/* The page tags: a direct-mapped cache, by page number, of which bytes of
 * a page lie in one private block and whose it is: the access helpers'
 * test is one load and a few compares.  An entry holds (page << 12 |
 * owner + 1) << 16 | first << 8 | last, first and last the 16-byte units
 * of the page the block covers whole (owners from 4,095 on get none).
 * Two blocks of one owner side by side on a page share its tag, the
 * allocator's bytes between them included (only the allocator touches
 * those, and only through the owner's blocks); blocks of two owners on a
 * page, or pages whose entries collide, leave the others to the page
 * shadow. */
#define RP_PRIVHEAP_TAG_BITS 16
#define RP_PRIVHEAP_TAG_OWNERS ((uint32_t)1 << 12)

typedef struct rp_privheap {
    uint64_t *tags;             /* tag_mask + 1 entries; 0: none */
    uint64_t tag_mask;          /* 2^RP_PRIVHEAP_TAG_BITS - 1 (0 before privheap_init,
                                 * with tags at a zero word) */
    rp_shadow pages;            /* page number → rp_privheap_page */
    rp_privheap_block *blocks;
    uint32_t n_blocks, cap_blocks, free_head;
    rp_u64map by_lo;            /* a block's first byte → its index + 1 */
    uint32_t *heads;            /* by owner: its first private block (index + 1) */
    uint32_t n_heads;
    uint64_t env_lo, env_hi;    /* every private block ever lies in [env_lo, env_hi) */
    uint64_t *work;             /* blocks escaped, not yet scanned: lo, hi, owner */
    uint32_t n_work, cap_work;
    uint64_t n_made, n_escaped;
} rp_privheap;

/* Told for each block that escapes: [lo, lo + size) is shared from now on;
 * `holds_frames`: privheap_note_frame_address was told of it. */
typedef void (*rp_privheap_fn)(void *ctx, uint64_t lo, uint64_t size, bool holds_frames);

void privheap_init(rp_privheap *h);
void privheap_fini(rp_privheap *h);

/* `owner` allocated [lo, lo + size).  Private if it has a page's worth
 * of bytes; returns whether it is. */
bool privheap_block_new(rp_privheap *h, uint32_t owner, uint64_t lo, uint64_t size);

/* The block starting at lo is freed (or moved): it is no more, and
 * returns its owner if it was private, else RP_PRIVHEAP_NONE.  Nothing
 * escapes: the caller makes its memory fresh. */
uint32_t privheap_block_gone(rp_privheap *h, uint64_t lo);

/* realloc left `tid`'s block at old_lo as [new_lo, new_lo + size), its
 * bytes copied over (new_lo == old_lo: resized in place).  A private block
 * of tid's stays private, still marked if it holds frame addresses, while
 * it has a page's worth of bytes; a moved block is new memory, private to
 * tid if big enough, as privheap_block_new says.  A private block that
 * does not stay private takes what it held along: the private blocks of
 * its owner that its bytes (now at new_lo) point to escape, and fn is told
 * of the new range, with the mark.  Returns the old block's owner if it
 * was private, else RP_PRIVHEAP_NONE. */
uint32_t privheap_block_moved(rp_privheap *h, uint32_t tid, uint64_t old_lo, uint64_t new_lo,
                              uint64_t size, rp_privheap_fn fn, void *ctx);

/* Whether value may be an address of a private block: the test the
 * translated code makes before it calls privheap_store. */
static inline bool privheap_in_envelope(const rp_privheap *h, uint64_t value)
{
    return value - h->env_lo < h->env_hi - h->env_lo;
}

/* The private block holding the byte at addr, as index + 1, or 0. */
static inline uint32_t privheap_find(rp_privheap *h, uint64_t addr)
{
    const rp_privheap_page *page;

    if (!privheap_in_envelope(h, addr))
        return 0;
    page = shadow_slot_if_cached(&h->pages, addr >> RP_PRIVHEAP_PAGE_BITS);
    if (page == NULL && (page = shadow_find_refill(&h->pages, addr >> RP_PRIVHEAP_PAGE_BITS)) == NULL)
        return 0;
    for (unsigned k = 0; k < 2; k++) {
        uint32_t i = page->block[k];

        if (i != 0 && addr - h->blocks[i - 1].lo < h->blocks[i - 1].hi - h->blocks[i - 1].lo)
            return i;
    }
    return 0;
}

/* A page tag as laid out above: the page number, owner + 1 (0: none),
 * and the first and last units the block covers whole. */
static inline uint64_t privheap_tag(uint64_t page_number, uint64_t owner, uint64_t first,
                                    uint64_t last)
{
    return (((page_number << 12) | owner) << 16) | first << 8 | last;
}

/* tid's key to the page tags: the tag of a page one of its private
 * blocks covers whole, less the page number (owner + 1, first unit 0,
 * last unit 255).  Owners from 4,095 on get a key with owner 0, which no
 * tag holds. */
static inline uint64_t privheap_tag_key(uint32_t tid)
{
    uint64_t owner = tid + 1 < RP_PRIVHEAP_TAG_OWNERS ? (uint64_t)tid + 1 : 0;

    return privheap_tag(0, owner, 0, ((uint64_t)1 << (RP_PRIVHEAP_PAGE_BITS - 4)) - 1);
}

/* Whether [addr, addr + size) lies in private blocks of the owner of
 * `key` (privheap_tag_key): in one, or in two side by side and the bytes
 * between them (as the tags say), by the tag of its page alone (false
 * when the tag is another page's or another owner's).  The common case,
 * a page the block covers whole, is one compare: the expected tag is made
 * from the page of the access's last byte, so an access that runs into
 * the next page fails it and goes to the units' test, which refuses it. */
static inline bool privheap_tag_owns(const rp_privheap *h, uint64_t key, uint64_t addr,
                                     uint64_t size)
{
    uint64_t page_number = addr >> RP_PRIVHEAP_PAGE_BITS;
    uint64_t tag = h->tags[page_number & h->tag_mask];
    uint64_t offset = addr & (((uint64_t)1 << RP_PRIVHEAP_PAGE_BITS) - 1);

    if (tag == (privheap_tag((addr + size - 1) >> RP_PRIVHEAP_PAGE_BITS, 0, 0, 0) | key))
        return true;
    return key >> 16 != 0 && tag >> 16 == privheap_tag(page_number, key >> 16, 0, 0) >> 16
        && offset >> 4 >= ((tag >> 8) & 0xff) && (offset + size - 1) >> 4 <= (tag & 0xff);
}

/* Whether [addr, addr + size) lies in one private block of tid's, by the
 * page shadow's cache alone (false when the page's chunk is not in it):
 * what answers when the page's tag does not.  size is an access's, less
 * than a block's. */
static inline bool privheap_page_owns_cached(const rp_privheap *h, uint32_t tid, uint64_t addr,
                                             uint64_t size)
{
    const rp_privheap_page *page;

    if (!privheap_in_envelope(h, addr))
        return false;
    page = shadow_slot_if_cached(&h->pages, addr >> RP_PRIVHEAP_PAGE_BITS);
    if (page == NULL)
        return false;
    for (unsigned k = 0; k < 2; k++) {
        const rp_privheap_block *b = page->block[k] != 0 ? &h->blocks[page->block[k] - 1] : NULL;

        if (b != NULL && addr - b->lo < b->hi - b->lo)
            return b->owner == tid && addr - b->lo <= b->hi - b->lo - size;
    }
    return false;
}

/* Whether [addr, addr + size) lies in tid's private blocks (as
 * privheap_tag_owns says) or in one of them, answered from the tags and
 * the shadow's cache alone: the access helpers' first test, which must
 * call nothing.  The helpers make it in its two parts, with the running
 * thread's key kept ready: written as this one call, GCC takes it out of
 * line (.constprop), and pigz's helpers then ran 10 % slower. */
static inline bool privheap_owns_cached(const rp_privheap *h, uint32_t tid, uint64_t addr,
                                        uint64_t size)
{
    return privheap_tag_owns(h, privheap_tag_key(tid), addr, size)
        || privheap_page_owns_cached(h, tid, addr, size);
}

/* The owner of the private block holding addr, or RP_PRIVHEAP_NONE. */
static inline uint32_t privheap_owner(rp_privheap *h, uint64_t addr)
{
    uint32_t i = privheap_find(h, addr);

    return i != 0 ? h->blocks[i - 1].owner : RP_PRIVHEAP_NONE;
}

/* An address of a stack frame is stored at addr, in a private block: when
 * the block escapes, the frames it points into must be shared (the
 * escape's callback says so). */
void privheap_note_frame_address(rp_privheap *h, uint64_t addr);

/* The block holding addr escapes if private, and every private block its
 * bytes point to, transitively. */
void privheap_escape_at(rp_privheap *h, uint64_t addr, rp_privheap_fn fn, void *ctx);

/* `tid` stores `value` at addr: an address of one of its private blocks
 * escapes unless addr is in one of them too. */
void privheap_store(rp_privheap *h, uint32_t tid, uint64_t addr, uint64_t value,
                    rp_privheap_fn fn, void *ctx);

/* [lo, hi) becomes reachable by other threads: every private block of
 * `owner` (RP_PRIVHEAP_NONE: of anyone) an aligned word of it points to
 * escapes. */
void privheap_scan(rp_privheap *h, uint32_t owner, uint64_t lo, uint64_t hi, rp_privheap_fn fn,
                   void *ctx);

/* Every private block of `owner` escapes.  Nothing is scanned, nor told:
 * every block an address in them may lead to is the owner's and escapes
 * too, and the caller shares the owner's frames itself. */
void privheap_escape_owner(rp_privheap *h, uint32_t owner);

#endif
