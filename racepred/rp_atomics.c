/* rp_atomics.c — the set of synchronisation variables; see rp_atomics.h. */
#include "pub_tool_basics.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_mallocfree.h"

#include "rp_atomics.h"

typedef struct {
    struct _VgHashNode *next;
    UWord key;          /* word number: address >> 3 */
    UChar bytes;        /* bit i: byte i of the word is marked */
} rp_atomic_word;

UChar rp_atomics_filter[(1u << RP_ATOMICS_FILTER_BITS) / 8];

static VgHashTable *words;

static void filter_set(UWord word)
{
    UWord bit = word & ((1u << RP_ATOMICS_FILTER_BITS) - 1);

    rp_atomics_filter[bit >> 3] |= (UChar)(1u << (bit & 7));
}

Bool rp_atomics_holds(Addr addr)
{
    const rp_atomic_word *w;

    if (words == NULL)
        return False;
    w = VG_(HT_lookup)(words, addr >> 3);
    return w != NULL && ((w->bytes >> (addr & 7)) & 1);
}

/* Marks bytes [first, last] of one word; True if one was not marked. */
static Bool mark_word(UWord word, UInt first, UInt last)
{
    UChar bytes = (UChar)(((1u << (last + 1)) - 1) & ~((1u << first) - 1));
    rp_atomic_word *w = VG_(HT_lookup)(words, word);

    if (w == NULL) {
        w = VG_(malloc)("rp.atomics.word", sizeof *w);
        w->key = word;
        w->bytes = 0;
        VG_(HT_add_node)(words, w);
        filter_set(word);
    }
    if ((w->bytes | bytes) == w->bytes)
        return False;
    w->bytes |= bytes;
    return True;
}

Bool rp_atomics_mark(Addr addr, UWord size)
{
    Addr last = addr + (size == 0 ? 0 : size - 1);
    UWord word;
    Bool fresh = False;

    if (words == NULL)
        words = VG_(HT_construct)("rp.atomics.words");
    /* The same variable is hit again and again (a spin loop, a counter):
     * a lookup, no allocation, after the first time. */
    for (word = addr >> 3; word <= last >> 3; word++)
        fresh |= mark_word(word, word == addr >> 3 ? (UInt)(addr & 7) : 0,
                           word == last >> 3 ? (UInt)(last & 7) : 7);
    return fresh;
}

/* Unmarks the word's bytes in [addr, addr + size); drops an empty word. */
static void forget_in_word(rp_atomic_word *w, Addr addr, SizeT size)
{
    Addr base = w->key << 3;
    UInt i;

    for (i = 0; i < 8; i++)
        if (base + i - addr < size)
            w->bytes &= (UChar)~(1u << i);
    if (w->bytes == 0)
        VG_(free)(VG_(HT_remove)(words, w->key));
}

void rp_atomics_forget(Addr addr, SizeT size)
{
    UWord first, last, word;
    rp_atomic_word **all;
    UInt n, i;

    if (words == NULL || size == 0 || VG_(HT_count_nodes)(words) == 0)
        return;
    first = addr >> 3;
    last = (addr + size - 1) >> 3;
    if (last - first < VG_(HT_count_nodes)(words)) {
        /* A small range (a heap block): probe its words, most of which the
         * filter rules out at once. */
        for (word = first; word <= last; word++) {
            rp_atomic_word *w;

            if (!rp_atomics_may_hold(word << 3))
                continue;
            w = VG_(HT_lookup)(words, word);
            if (w != NULL)
                forget_in_word(w, addr, size);
        }
        return;
    }
    /* A large range (an unmapped area): walk the set instead. */
    all = (rp_atomic_word **)VG_(HT_to_array)(words, &n);
    for (i = 0; i < n; i++)
        if (all[i]->key >= first && all[i]->key <= last)
            forget_in_word(all[i], addr, size);
    VG_(free)(all);
}
