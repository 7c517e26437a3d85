/* OpenMP, race-free: what orders tasks that run as threads of their own
 * (rp_tasks.h): dependences (out, in, inout, mutexinoutset, an undeferred
 * task's), `taskwait depend`, taskwait, a taskgroup's end and the end of
 * the parallel region; tasks reading their firstprivate copies; an untied
 * task (under libomp, on its runners' threads, its parts on any of them)
 * between tasks of their own threads that depend on it or it on them.  Run
 * again with --omp-task-threads=3 and =0, where tasks past the first
 * three (all of them) run as their runners' events. */
#include <omp.h>
#include <stdio.h>

int x, y, z, u, v, total, group, nested_sum, slots[8];

static void nested(void)
{
    int left = 0, right = 0;

#pragma omp task shared(left)
    left = 1;
#pragma omp task shared(right)
    right = 2;
#pragma omp taskwait
    nested_sum = left + right;
}

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        int i;

#pragma omp task depend(out : x)
        x = 1;
#pragma omp task depend(in : x) depend(out : y)
        y = x + 1;
#pragma omp task depend(in : x)
        z = x;
#pragma omp task depend(mutexinoutset : total)
        total += 1;
#pragma omp task depend(mutexinoutset : total)
        total += 2;
#pragma omp taskwait depend(in : y)
        printf("%d\n", y);
#pragma omp task depend(inout : x) if (0)
        x += 10;
        printf("%d\n", x);
#pragma omp taskgroup
        {
#pragma omp task
            group = 1;
#pragma omp task
            nested();
        }
        printf("%d %d\n", group, nested_sum);
#pragma omp task depend(in : x) depend(out : u) untied
        {
            u = x + 1;
#pragma omp taskyield
            u++;
        }
#pragma omp task depend(in : u)
        v = u;
        for (i = 0; i < 8; i++) {
#pragma omp task firstprivate(i)
            slots[i] = i * i;
        }
    }
    printf("%d %d %d %d\n", total, z, v, slots[7]);
    return 0;
}
