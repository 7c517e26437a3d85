/* rp_errors.h — races as Valgrind errors.
 *
 * A race a detector reports becomes one error of kind `Race` in Valgrind's
 * error manager, which gives racepred deduplication, suppressions
 * (`racepred:Race` with fun:/obj: frames), --gen-suppressions,
 * --error-exitcode and the error summary for free.
 *
 * Text form (Helgrind's shape):
 *
 *   ---Thread-Announcement------------------------------------------
 *
 *   Thread #2 was created
 *      at 0x4955B42: clone (clone.S:83)
 *      ...
 *      by 0x1091F7: main (racy.c:33)
 *
 *   ----------------------------------------------------------------
 *
 *    Lock at 0x10C0A0 was first observed
 *      at 0x483E64B: pthread_mutex_lock (rp_intercepts.c:90)
 *      by 0x1091F8: main (racy.c:20)
 *    Address 0x10c0a0 is 0 bytes inside data symbol "mu"
 *
 *   Data race (hb, observed) during write of size 4 at 0x10C080 by thread #1
 *   Locks held: 1, at address 0x10C0A0
 *      at 0x109241: main (racy.c:22)
 *
 *   This conflicts with a previous write of size 4 by thread #2
 *   Locks held: none
 *      at 0x1091B6: worker (racy.c:10)
 *    Address 0x10c080 is 0 bytes inside data symbol "global_counter"
 *
 * Each thread a report names is announced once, before the first such
 * report, with the stack that created it ("Thread #1 is the program's root
 * thread" for the first).  The first stack is the full stack of the access
 * that completed the race, taken when it happened, for detectors that
 * report online; a race a detector reports later (after post-processing,
 * from finish()) shows that access as a one-frame stack, and such races
 * are deduplicated by racepred rather than by Valgrind's error table.  The
 * earlier access is shown as --history-level says (rp_history.h): its
 * instruction as a one-frame stack (approx), its full stack (full), or
 * "(location not recorded: --history-level=none)".  "Locks held" comes
 * from the lockset ids in the sites of both accesses (rp_site.h); each
 * lock is announced once in text mode, with where it was first locked,
 * and in every error that names it in XML mode.  The
 * address is described as a heap block ("is 4 bytes inside a block of size
 * 16 alloc'd", the allocation stack, "Block was alloc'd by thread #1") or
 * by Valgrind's core (data symbol, stack, mapped file).  Thread numbers are
 * racepred's (#1 = the root thread, then in creation order).  "observed"
 * means the two accesses were unordered by happens-before in this run;
 * "predicted" means a detector found a reordering in which they race.
 *
 * In XML mode (--xml=yes) the same is written as <announcethread>
 * records and, per error, <kind>Race</kind>, <xwhat>, the stack,
 * an <auxwhat>Locks held: ...</auxwhat> after each access's stack,
 * <xauxwhat> with the earlier access, its stack, the lock announcements
 * (<auxwhat>Lock at 0x... was first observed</auxwhat> and a stack) and an
 * <auxwhat> for the address.
 */
#ifndef RP_ERRORS_H
#define RP_ERRORS_H

#include "pub_tool_basics.h"
#include "rp_detector.h"

/* Registers the error-manager callbacks; call from pre_clo_init. */
void rp_errors_init(void);

/* --show-unconfirmed: report predicted races that no witness confirmed. */
extern Bool rp_errors_show_unconfirmed;
/* Predicted races without a witness seen so far (shown or not). */
extern ULong rp_errors_unconfirmed;

/* At exit, unless --xml=yes: how many races shown involve code without
 * line information, where atomics cannot be told from plain accesses. */
void rp_errors_note_undebugged(void);

/* The engine's report function (rp_race_fn); ctx is unused. */
void rp_errors_report(void *ctx, const rp_race *race);

/* Races on [addr, addr + size) are benign by the user's word
 * (ANNOTATE_BENIGN_RACE_SIZED, VALGRIND_HG_DISABLE_CHECKING): not reported.
 * The detectors still see the accesses; only the report is dropped. */
void rp_errors_ignore_range(Addr addr, SizeT size);

/* Undoes rp_errors_ignore_range for every ignored range overlapping
 * [addr, addr + size) (VALGRIND_HG_ENABLE_CHECKING). */
void rp_errors_track_range(Addr addr, SizeT size);

#endif
