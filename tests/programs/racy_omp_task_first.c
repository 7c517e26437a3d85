/* OpenMP, racy: the root thread alone, then a task before the first
 * parallel region (libgomp runs it at once, on the root thread, as a
 * thread of its own: rp_tasks.h), then
 * the two threads of a region update the counter the task did, through
 * the same function.  The code translated while the root thread was
 * alone (without its access calls) must be translated again when the
 * first thread is created, although the task took a thread number
 * before it. */
#include <omp.h>
#include <stdio.h>

static int counter;

static void bump(void)
{
    counter++;
}

/* Called through a pointer, so that Valgrind translates it once for
 * every caller (it would otherwise copy it into its direct callers). */
static void (*volatile bump_fn)(void) = bump;

int main(void)
{
    bump_fn();
#pragma omp task
    bump_fn();
#pragma omp parallel num_threads(2)
    bump_fn();
    printf("%d\n", counter > 0);
    return 0;
}
