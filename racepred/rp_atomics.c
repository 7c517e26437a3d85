/* rp_atomics.c — the set of synchronisation variables; see rp_atomics.h. */
#include "pub_tool_basics.h"

#include "rp_atomics.h"
#include "rp_u64map.h"

UChar rp_atomics_filter[(1u << RP_ATOMICS_FILTER_BITS) / 8];

/* Word number (address >> 3) -> its marked bytes (bit i: byte i) in bits
 * 0-7 and the bytes where a variable starts (the first byte of an RMW) in
 * bits 8-15, stored as the map's value, never 0.  The core's map, not
 * Valgrind's hash table: its lookup is a multiply and a probe, no
 * division. */
static rp_u64map words;
static Bool words_ready;

/* Bumped whenever a byte is marked or unmarked (rp_atomics_polled). */
static ULong version;

/* One thread's loads of marked variables while no thread sends and the
 * set stays as it is (rp_atomics_polled, rp_atomics_spins): the address
 * of its last poll (a receive passed on), and its last SPIN_LOADS loads,
 * instruction and address. */
#define SPIN_LOADS 8
static struct {
    Bool valid;
    UInt tid;
    ULong sends;
    ULong version;
    Bool polled;
    Addr poll;
    UInt n;
    Addr site[SPIN_LOADS];
    Addr addr[SPIN_LOADS];
} window;

static Bool in_window(UInt tid, ULong sends)
{
    return window.valid && window.tid == tid && window.sends == sends
        && window.version == version;
}

/* Makes the window tid's at `sends` sends, empty unless it was already. */
static void window_enter(UInt tid, ULong sends)
{
    if (in_window(tid, sends))
        return;
    window.valid = True;
    window.tid = tid;
    window.sends = sends;
    window.version = version;
    window.polled = False;
    window.n = 0;
}

static void filter_set(UWord word)
{
    UWord bit = word & ((1u << RP_ATOMICS_FILTER_BITS) - 1);

    rp_atomics_filter[bit >> 3] |= (UChar)(1u << (bit & 7));
}

#define STARTS_SHIFT 8

static UWord state_of(UWord word)
{
    return words_ready ? (UWord)u64map_get(&words, word) : 0;
}

static UChar bytes_of(UWord word)
{
    return (UChar)state_of(word);
}

/* A word none of whose bytes stays marked loses its starts too. */
static void set_state(UWord word, UWord state)
{
    version++;
    if ((UChar)state == 0)
        u64map_remove(&words, word);
    else
        u64map_put(&words, word, (void *)state);
}

Bool rp_atomics_holds(Addr addr)
{
    return (bytes_of(addr >> 3) >> (addr & 7)) & 1;
}

Addr rp_atomics_object(Addr addr)
{
    UWord starts = state_of(addr >> 3) >> STARTS_SHIFT;
    UInt offset = (UInt)(addr & 7);

    /* The variable holding the byte starts at the last start at or
     * before it; with none (an RMW from the word before), the word. */
    while (offset > 0 && !((starts >> offset) & 1))
        offset--;
    return (addr & ~(Addr)7) + offset;
}

/* Marks bytes [first, last] of one word, `first` the start of a variable
 * when `starts` (the RMW begins in this word); True if the word changed. */
static Bool mark_word(UWord word, UInt first, UInt last, Bool starts)
{
    UWord bytes = ((1u << (last + 1)) - 1) & ~((1u << first) - 1);
    UWord had = state_of(word);
    UWord now = had | bytes | (starts ? 1u << (first + STARTS_SHIFT) : 0);

    if (now == had)
        return False;
    if ((UChar)had == 0)
        filter_set(word);
    set_state(word, now);
    return True;
}

Bool rp_atomics_mark(Addr addr, UWord size)
{
    Addr last = addr + (size == 0 ? 0 : size - 1);
    UWord word;
    Bool fresh = False;

    if (!words_ready) {
        u64map_init(&words);
        words_ready = True;
    }
    /* The same variable is hit again and again (a spin loop, a counter):
     * a lookup, no allocation, after the first time. */
    for (word = addr >> 3; word <= last >> 3; word++)
        fresh |= mark_word(word, word == addr >> 3 ? (UInt)(addr & 7) : 0,
                           word == last >> 3 ? (UInt)(last & 7) : 7, word == addr >> 3);
    return fresh;
}

/* Unmarks the bytes of one word that lie in [addr, addr + size), and
 * the starts there. */
static void forget_in_word(UWord word, Addr addr, SizeT size)
{
    UWord had, keep;
    UInt i;

    if (!rp_atomics_may_hold(word << 3))
        return;
    had = keep = state_of(word);

    for (i = 0; i < 8; i++)
        if ((word << 3) + i - addr < size)
            keep &= ~((1u << i) | (1u << (i + STARTS_SHIFT)));
    if (keep != had)
        set_state(word, keep);
}

void rp_atomics_forget(Addr addr, SizeT size)
{
    UWord first, last;

    if (!words_ready || size == 0 || words.count == 0)
        return;
    first = addr >> 3;
    last = (addr + size - 1) >> 3;
    forget_in_word(first, addr, size);
    if (last == first)
        return;
    forget_in_word(last, addr, size);
    /* The whole words between.  A range no larger than the map (a heap
     * block): its words, most of which the filter rules out at once; a
     * larger one (an unmapped area): one pass over the map. */
    if (last - first - 1 <= words.cap) {
        UWord word;

        for (word = first + 1; word < last; word++)
            if (rp_atomics_may_hold(word << 3) && u64map_remove(&words, word) != NULL)
                version++;
    } else if (u64map_remove_range(&words, first + 1, last - first - 1, NULL, NULL) != 0) {
        version++;
    }
}

Bool rp_atomics_polled(UInt tid, Addr addr, ULong sends)
{
    return in_window(tid, sends) && window.polled && window.poll == addr;
}

void rp_atomics_note_poll(UInt tid, Addr addr, ULong sends)
{
    window_enter(tid, sends);
    window.polled = True;
    window.poll = addr;
}

Bool rp_atomics_spins(UInt tid, Addr addr, Addr site, ULong sends)
{
    UInt i;

    window_enter(tid, sends);
    for (i = 0; i < window.n && i < SPIN_LOADS; i++)
        if (window.site[i] == site && window.addr[i] == addr)
            return True;
    window.site[window.n % SPIN_LOADS] = site;
    window.addr[window.n % SPIN_LOADS] = addr;
    window.n++;
    return False;
}
