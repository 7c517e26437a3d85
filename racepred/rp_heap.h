/* rp_heap.h — the client's heap blocks, as the malloc wrappers of the
 * preload report them, and its mappings, as Valgrind's core reports them.
 *
 * Two uses:
 *   - a block just handed out is fresh memory (RP_EV_FORGET over its usable
 *     bytes): glibc recycles freed blocks across threads, synchronising
 *     inside libc where racepred does not look, so the new owner's accesses
 *     must not be paired with the previous owner's;
 *   - reports describe a racy heap address like Helgrind does: "is 4 bytes
 *     inside a block of size 16 alloc'd", the allocation stack, the thread;
 *     or, for a block freed since (a race with its free), "free'd".
 * Memory mapped or unmapped (mmap, munmap, the break) is fresh the same
 * way: a range mapped again never races with its previous life.
 * Blocks live in a table from malloc to free.  Lookups by an inner address
 * scan the table; they happen once per distinct error, never per access.
 */
#ifndef RP_HEAP_H
#define RP_HEAP_H

#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_execontext.h"
#include "pub_tool_xarray.h"
#include "pub_tool_addrinfo.h"
#include "rp_event.h"

void rp_heap_init(void);

/* [addr, addr + len) is fresh memory, `tid` its new user: no byte of it is
 * an atomic variable any more (rp_atomics.h), and the detectors forget its
 * history (RP_EV_FORGET). */
void rp_heap_fresh(rp_tid_t tid, Addr addr, SizeT len);

/* `vg_tid` got [addr, addr + size) from the allocator, which really
 * reserved `usable` bytes from addr. */
void rp_heap_block_new(ThreadId vg_tid, Addr addr, SizeT size, SizeT usable);

/* A block realloc resized in place (by `vg_tid`) to `size` bytes asked
 * for, `usable` reserved: a grown tail is fresh memory. */
void rp_heap_block_resized(ThreadId vg_tid, Addr addr, SizeT size, SizeT usable);

/* realloc (by `vg_tid`, called from `caller`) moved the block at `old` to
 * [addr, addr + size), `usable` reserved: the old block is freed, the new
 * one is new memory holding the old one's bytes (what a private block held
 * goes with them: rp_privblocks_moved). */
void rp_heap_block_moved(ThreadId vg_tid, Addr old, Addr addr, SizeT size, SizeT usable,
                         Addr caller);

/* --free-is-write (default yes): a free writes its block. */
extern Bool rp_heap_free_is_write;

/* `vg_tid` is about to free the block at `addr`, called from `caller`.
 * With rp_heap_free_is_write the free is a write of every byte of the
 * block (of its first 64 when the thread holds a lock), at the caller's
 * code location: an access of another thread that is not ordered before
 * it races with it (a use of memory some thread may free meanwhile), as
 * in ThreadSanitizer and Helgrind's --free-is-write=yes. */
void rp_heap_block_free(ThreadId vg_tid, Addr addr, Addr caller);

/* Fills `ai` for an address inside a live block, else inside one of the
 * 1,024 blocks freed last ("free'd", with the free's caller and the
 * allocation stack); False if there is none. */
Bool rp_heap_describe(Addr addr, AddrInfo *ai);

#endif
