/* rp_intercepts_heap.c — the preload's allocator wrappers.
 *
 * The allocator recycles freed blocks, across threads too, with its
 * synchronisation inside libc where racepred does not look.  Every block
 * handed out is announced to the tool (rp_heap.c: fresh memory, and a block
 * reports can name, with its allocation stack) and every block freed is
 * withdrawn.  Wrapped: malloc, calloc, realloc, free and the aligned
 * allocators (memalign, aligned_alloc, posix_memalign, valloc, pvalloc).
 * C++'s operator new and delete (every variant, aligned ones included) get
 * their memory from these in libstdc++, so they need no wrapper of their
 * own; glibc's internal allocations (strdup, fopen) call the allocator
 * directly and stay invisible, which is harmless: the memory is libc's.
 */
#include <malloc.h>
#include <stddef.h>

#include "rp_preload.h"

/* A block the allocator just handed out. */
static void announce_block(void *p, size_t size)
{
    if (p != NULL)
        RP_REQUEST3(RP_USERREQ_HEAP_BLOCK_NEW, p, size, malloc_usable_size(p));
}

RP_LIBC_FUNC(void *, malloc, size_t size)
{
    OrigFn fn;
    void *p;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_W(p, fn, size);
    announce_block(p, size);
    return p;
}

RP_LIBC_FUNC(void *, calloc, size_t count, size_t size)
{
    OrigFn fn;
    void *p;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WW(p, fn, count, size);
    announce_block(p, count * size);
    return p;
}

/* memalign and aligned_alloc are one function in glibc (one address, two
 * names); both names are bound to one wrapper, since Valgrind refuses two
 * different wrappers for one address. */
RP_LIBC_FUNC(void *, memalign, size_t alignment, size_t size)
{
    OrigFn fn;
    void *p;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WW(p, fn, alignment, size);
    announce_block(p, size);
    return p;
}

extern __typeof(I_WRAP_SONAME_FNNAME_ZZ(libcZdsoZa, memalign))
    I_WRAP_SONAME_FNNAME_ZZ(libcZdsoZa, alignedZualloc)
    __attribute__((alias(RP_STR(I_WRAP_SONAME_FNNAME_ZZ(libcZdsoZa, memalign)))));

RP_LIBC_FUNC(int, posixZumemalign, void **out, size_t alignment, size_t size)
{
    OrigFn fn;
    int ret;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WWW(ret, fn, out, alignment, size);
    if (ret == 0)
        announce_block(*out, size);
    return ret;
}

RP_LIBC_FUNC(void *, valloc, size_t size)
{
    OrigFn fn;
    void *p;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_W(p, fn, size);
    announce_block(p, size);
    return p;
}

RP_LIBC_FUNC(void *, pvalloc, size_t size)
{
    OrigFn fn;
    void *p;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_W(p, fn, size);
    announce_block(p, size);
    return p;
}

/* A block realloc moved is new memory and the old one is gone, though its
 * bytes live on in the new one (what they point to may be private to the
 * thread: rp_privblocks_moved); one it resized in place keeps its history
 * (the old bytes are the same object), and a tail it grew into is new
 * memory. */
RP_LIBC_FUNC(void *, realloc, void *old, size_t size)
{
    OrigFn fn;
    void *p;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WW(p, fn, old, size);
    if (p == NULL)
        return p;
    if (p == old) {
        RP_REQUEST3(RP_USERREQ_HEAP_BLOCK_RESIZED, p, size, malloc_usable_size(p));
        return p;
    }
    if (old == NULL)
        announce_block(p, size);
    else
        RP_REQUEST5(RP_USERREQ_HEAP_BLOCK_MOVED, old, p, size, malloc_usable_size(p),
                    __builtin_return_address(0));
    return p;
}

/* Withdrawn before the real call: once free returns, another thread may
 * get the same address from malloc.  The caller's address names the free
 * in reports (rp_heap.h, --free-is-write). */
RP_LIBC_FUNC(void, free, void *p)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    if (p != NULL)
        RP_REQUEST(RP_USERREQ_HEAP_BLOCK_FREE, p, __builtin_return_address(0));
    CALL_FN_v_W(fn, p);
}
