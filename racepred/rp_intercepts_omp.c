/* rp_intercepts_omp.c — the preload's wrappers of libgomp, the GNU OpenMP
 * runtime: how the work of a `sections` construct is handed out.
 *
 * libgomp's own synchronisation needs no wrapper: it is a synchronising
 * object (rp_filter.h), whose loads and stores are acquires and releases.
 * What racepred cannot see without help is a race between two sections
 * of one construct when one thread runs both: program order then orders
 * them, and no detector reports a race inside one thread.  Under
 * Valgrind, which runs one thread at a time, that is the rule, not the
 * exception: the thread that opens the construct takes every section
 * before the team's other threads get the CPU (DataRaceBench's
 * nestlock, atomic3 and critical-section3 programs were silent for this
 * reason alone).  So a thread that has just been handed a section yields
 * the CPU (sched_yield) before it runs it, and the next section goes to
 * another thread of the team when one is ready.  The system call is what
 * makes Valgrind switch threads at once (racepred's fair scheduling hands
 * the CPU to the next thread in line); an Ijk_Yield exit of the
 * translated code only shortens the timeslice to 300 blocks, in which a
 * thread runs a short section and takes the next.  A yield is a schedule
 * the program could have had natively; the program's behaviour does not
 * change, only which of its schedules Valgrind picks.
 *
 * Loops with a dynamic schedule are left alone: they hand out one chunk
 * per call, often one iteration, and a yield per chunk would cost a
 * thread switch per iteration.
 */
#include <sched.h>

#include "rp_preload.h"

#define RP_GOMP_FUNC(ret_ty, f, args...)                                     \
    ret_ty I_WRAP_SONAME_FNNAME_ZU(libgompZdsoZa, f)(args);                  \
    ret_ty I_WRAP_SONAME_FNNAME_ZU(libgompZdsoZa, f)(args)

/* Yields at most this many times for one section. */
#define RP_GOMP_YIELDS 20

/* A thread that got section `section` (0: none left) lets the others in:
 * it yields until another thread has had the CPU.  One yield is not
 * always enough on a loaded machine: the thread the system has not run
 * yet cannot queue for Valgrind's lock, and the CPU comes straight back. */
static unsigned after_handout(unsigned section)
{
    unsigned long switches;
    int i;

    if (section == 0)
        return section;
    switches = RP_REQUEST_EXPR(RP_USERREQ_SWITCHES, 0, 0);
    for (i = 0; i < RP_GOMP_YIELDS; i++) {
        sched_yield();
        if (RP_REQUEST_EXPR(RP_USERREQ_SWITCHES, 0, 0) != switches)
            break;
    }
    return section;
}

RP_GOMP_FUNC(unsigned, GOMP_sections_start, unsigned count)
{
    OrigFn fn;
    unsigned section;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_W(section, fn, count);
    return after_handout(section);
}

/* GCC 9 and later, for sections with reductions or task reductions. */
RP_GOMP_FUNC(unsigned, GOMP_sections2_start, unsigned count, void *reductions, void **mem)
{
    OrigFn fn;
    unsigned section;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WWW(section, fn, count, reductions, mem);
    return after_handout(section);
}

RP_GOMP_FUNC(unsigned, GOMP_sections_next, void)
{
    OrigFn fn;
    unsigned section;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_v(section, fn);
    return after_handout(section);
}
