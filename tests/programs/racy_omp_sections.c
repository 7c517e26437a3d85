/* OpenMP, racy: the two sections of one construct write one variable
 * without synchronisation.  Under Valgrind the thread handed the first
 * section would take the second one too, and program order would hide
 * the race, unless it yields first (rp_intercepts_omp.c).  The barrier
 * before the construct has both threads running when it starts. */
#include <omp.h>
#include <stdio.h>

int last;

int main(void)
{
#pragma omp parallel num_threads(2)
    {
#pragma omp barrier
#pragma omp sections
        {
#pragma omp section
            last = 1;
#pragma omp section
            last = 2;
        }
    }
    printf("ok\n");
    return 0;
}
