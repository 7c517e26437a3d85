/* OpenMP, racy: every iteration of a parallel loop adds to one shared
 * counter without a reduction, atomic or critical section. */
#include <omp.h>
#include <stdio.h>

#define N 64

int hits;

int main(void)
{
    omp_set_num_threads(2);
#pragma omp parallel for
    for (int i = 0; i < N; i++)
        if (i % 2 == 0)
            hits++;
    printf("ok\n");
    return 0;
}
