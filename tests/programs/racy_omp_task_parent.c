/* OpenMP, racy: a task writes a variable its parent reads before the
 * taskwait.  Under Valgrind the parent's thread would run the task itself
 * at the taskwait, after the read, and program order would hide the race,
 * unless another thread takes the task: under libomp the task's creator
 * lets the others in (rp_intercepts_kmp.c), under libgomp the task does
 * when it starts (rp_intercepts_omp.c). */
#include <omp.h>
#include <stdio.h>

int shared_count = 2;

int main(void)
{
    int seen = 0;

#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task shared(shared_count)
        shared_count--;
        seen = shared_count;
#pragma omp taskwait
    }
    printf("%s\n", seen == 1 || seen == 2 ? "ok" : "wrong");
    return 0;
}
