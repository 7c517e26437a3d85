/* OpenMP, race-free: a task's private copies live in memory the runtime
 * hands out again for the next task without malloc (LLVM's libomp keeps
 * a free list per thread).  The creator yields after each task, so that
 * it often runs the task itself and then writes the next task's copies
 * where the last one read its own: a task of its own thread must leave
 * its bytes fresh at its end (rp_tasks.h), or those writes race with the
 * reads of a task nothing orders before them. */
#include <omp.h>
#include <stdio.h>

#define N_TASKS 24

int out[N_TASKS];

int main(void)
{
    int sum = 0;

#pragma omp parallel num_threads(2)
#pragma omp single
    for (int i = 0; i < N_TASKS; i++) {
        int data[4] = { i, i + 1, i + 2, i + 3 };

#pragma omp task firstprivate(i, data)
        out[i] = data[0] + data[3];
#pragma omp taskyield
    }
    for (int i = 0; i < N_TASKS; i++)
        sum += out[i];
    printf("%d\n", sum);
    return 0;
}
