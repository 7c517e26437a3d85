/* OpenMP, racy: dependences order some tasks and not others.  Each task
 * runs as a thread of its own (rp_tasks.h), so whichever thread runs
 * them, and in whichever order, `racy` is written by a task that depends
 * on `a` and read by one that depends on `b`: unordered, a race.
 * `chained` is written and read by two tasks that depend on it, out then
 * in: ordered.  And a dependence orders sibling tasks only: the two
 * children below, each of a different parent, both write `cousins` with
 * depend(inout: cousins) and race (DataRaceBench's non-sibling-taskdep). */
#include <omp.h>
#include <stdio.h>

int a, b, chained, racy, cousins, sink, sink2;

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task depend(out : a)
        racy = 1;
#pragma omp task depend(in : b)
        sink = racy;
#pragma omp task depend(out : chained)
        chained = 1;
#pragma omp task depend(in : chained)
        sink2 = chained;
#pragma omp task depend(inout : cousins)
        {
#pragma omp task depend(inout : cousins)
            cousins++;
        }
#pragma omp task depend(inout : cousins)
        {
#pragma omp task depend(inout : cousins)
            cousins++;
        }
#pragma omp taskwait
        printf("%d %d\n", chained, sink2);
    }
    return 0;
}
