/* OpenMP, race-free: tasks ordered by their dependences (a chain of
 * out/in on one variable) and by taskwait; the tasks overlap where they
 * may (rp_intercepts_omp.c yields at their start). */
#include <omp.h>
#include <stdio.h>

int value, other;

int main(void)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task depend(out : value)
        value = 1;
#pragma omp task depend(inout : value)
        value += 2;
#pragma omp task
        other = 5;
#pragma omp task depend(in : value)
        printf("%d\n", value);
#pragma omp taskwait
        printf("%d\n", value + other);
    }
    return 0;
}
