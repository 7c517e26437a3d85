/* OpenMP, racy: two tasks without a dependence write one variable.  One
 * thread would run both under Valgrind, or run them one after the other
 * through libgomp's task queue, unless a task starts by yielding
 * (rp_intercepts_omp.c). */
#include <omp.h>
#include <stdio.h>

int last;

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task
        last = 1;
#pragma omp task
        last = 2;
    }
    printf("ok\n");
    return 0;
}
