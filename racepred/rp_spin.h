/* rp_spin.h — loads that a spin loop polls.
 *
 * Threads wait for each other with flags:
 *     while (!atomic_load_explicit(&ready, memory_order_acquire))
 *         ;
 * On x86 an acquire (or relaxed) load is a plain mov and a release store
 * a plain mov too, so such a flag looks like a plain variable written by
 * one thread and read by another: a race on the flag, and a race on every
 * datum it publishes (what Helgrind and DRD report).  rp_atomics.h makes a
 * variable synchronisation once an atomic read-modify-write used it; a
 * flag only ever loaded and stored never gets there.  The loop itself
 * says what the variable is: a loop that stores nothing and whose way out
 * depends on a load from an address the loop does not change can only
 * end when another thread writes that address.  Such a load is a *spin
 * read*, and its address becomes a synchronisation variable (seeded with
 * the write it reads, rp_instrument.c).  This is Helgrind+'s and Intel
 * Inspector's spin-loop rule (Jannesari and Tichy, "Identifying ad-hoc
 * synchronization for enhanced race detection", IPDPS 2010).
 *
 * What is recognised, in one superblock's IR:
 *   - a loop: a branch (an exit or the block's last jump) back to an
 *     instruction at or before it in the same block (or to a `pause`
 *     just before one), the loop being the instructions from there to
 *     the branch; or a block that ends at a `pause` (jump kind Ijk_Yield),
 *     the spin-wait hint, the whole block being the loop;
 *   - that stores nothing but into its own stack frame: no other store,
 *     no guarded store, no atomic (but a locked read-modify-write of a
 *     frame slot, gcc's sequentially consistent fence `lock or $0,
 *     (%rsp)`, which is a store to the frame), no helper that writes memory (a loop
 *     that stores could be waiting for itself); unoptimised code keeps
 *     its temporaries in the frame, followed from store to load, and a
 *     frame slot the loop stores is never a spin read;
 *   - a load in it whose address depends only on constants and on guest
 *     registers the loop does not write (the same address every time
 *     round: -O2 code reloads such an address only when it is volatile or
 *     atomic), and whose value decides a branch of the loop (followed
 *     through temporaries and registers).
 * A loop that starts in the middle of its block (VEX decoded the code
 * before it into the same block) runs its first time round there, and
 * there VEX has folded the values registers had before the loop into
 * constants: after `mov $1, %eax`, the loop's `add $1, %rax` reads
 * "rax = 2", and an address `(%r14,%rax,8)` looks fixed.  So in such a
 * block a load counts only when its instruction's own address registers
 * (decoded from its encoding) are ones the loop does not write, or when
 * its address comes from the stack frame (unoptimised code), which VEX
 * never folds.  The block that starts at the loop, which runs it from the
 * second time round, is judged on its IR alone.  (The block cannot simply
 * be cut before the loop: VEX has already removed register writes that
 * later writes in the block made dead.)
 *
 * A loop whose way back leaves the block (a call of a function that only
 * waits: `while (!flag) sched_yield();`, usleep, nanosleep...; a pause
 * and a counter: libstdc++'s atomic wait): the rest of the loop is
 * decoded from the machine code (rp_waitcall.h), every path from the
 * block's branch followed until it comes back into the block (or to
 * another copy of the check) or leaves the loop.  The paths that come
 * back store only into the frame, and one of them at least waits on the
 * way (pause, a call of a waiting function) or polls another fixed
 * address (`while (!a && !b)`: each check a block, each the other's way
 * back); the registers they write count as written
 * by the loop, unless every one of them reloads the register from a
 * frame slot the loop never stores (the same value every time round).
 * The loop in the block is then judged as above.  When the block ends at
 * the call (or VEX followed the call into its PLT entry, which then ends
 * the block), the load may decide the loop on the way back, after the
 * call: `do { v = flag; sched_yield(); } while (!v)` tests v in a
 * register the call preserves, or at -O0 in a frame slot, before a
 * branch one side of which comes back and the other leaves the loop; or
 * the way back copies the value, from the frame slot the block stored it
 * in to another, which the check at the block's head tests (clang -O0's
 * `omp atomic read acquire` poll, whose call is __kmpc_flush).
 *
 * Not recognised: loops that call other functions, loops that store,
 * loops no way of which back through code outside the check's block
 * waits or polls (a counted loop).  See docs/manual.md,
 * "Spin loops".
 */
#ifndef RP_SPIN_H
#define RP_SPIN_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

/* Sets spin[i] for each statement i of sb (a WrTmp of a Load) that is a
 * spin read, False elsewhere; spin has sb->stmts_used entries. */
void rp_spin_find(const IRSB *sb, const VexGuestLayout *layout, Bool *spin);

#endif
