/* OpenMP, race-free: each section of a construct writes its own
 * variables, and the team reads all of them after the construct's
 * implicit barrier; the sections are spread over the threads
 * (rp_intercepts_omp.c), so the barrier is what orders the reads. */
#include <omp.h>
#include <stdio.h>

#define SECTIONS 3

long part[SECTIONS];

int main(void)
{
    long total = 0;

#pragma omp parallel num_threads(2) reduction(+ : total)
    {
#pragma omp barrier
#pragma omp sections
        {
#pragma omp section
            part[0] = 1;
#pragma omp section
            part[1] = 2;
#pragma omp section
            part[2] = 3;
        }
        for (int i = 0; i < SECTIONS; i++)
            total += part[i];
    }
    printf("%ld\n", total);
    return 0;
}
