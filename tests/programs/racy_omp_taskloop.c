/* OpenMP, racy: the two tasks of a taskloop write one variable.  One
 * thread would run both under Valgrind, or run them one after the other
 * through libgomp's task queue, unless each task starts by yielding
 * (rp_intercepts_omp.c, "taskloops"). */
#include <omp.h>
#include <stdio.h>

int last;

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
#pragma omp taskloop num_tasks(2)
    for (int i = 0; i < 100; i++)
        last = i;
    printf("ok\n");
    return 0;
}
