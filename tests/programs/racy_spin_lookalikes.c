/* Loops that read a shared variable again and again but are no spin
 * loops (rp_spin.h), so their races stay reported:
 *   sum_shared     the load's address never changes but its value
 *                  decides no branch (a counted loop adds it up);
 *   find_zero      the value decides the branch but the address moves
 *                  (an index the loop increments);
 *   count_polls    a polling loop that also stores to a global;
 *   find_zero_frame  the moving address is a pointer in the stack frame.
 * The test programs are built -O0, where the loops keep their counters
 * in the stack frame; find_zero_o2 and count_polls_o2 are the same loops
 * compiled -O2 (the index in a register, one superblock per loop; the
 * first time round, in the block of the code before it, VEX passes the
 * array's address as a constant), on
 * variables of their own (a thread's second read of a variable in one
 * span is a repeat that no detector sees).
 * The other thread writes each variable first and then writes a byte
 * into a pipe that main reads before its loops: run with --fd-sync=no,
 * so that the order is the same in every run and invisible to the
 * detectors (every loop then reads the other thread's write). */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int shared = 1;
static int cells[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
static int cells2[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
static int cells3[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
static int cells4[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
static int cells5[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };

static int stop, stop2;
static volatile long polls;
static int order[2];

static void *writer(void *arg)
{
    shared = 2;
    cells[5] = 0;
    cells2[1] = 0;
    cells3[5] = 0;
    cells4[2] = 0;
    cells5[1] = 0;
    stop = 1;
    stop2 = 1;
    if (write(order[1], "x", 1) != 1)
        perror("write");
    return arg;
}

static int sum_shared(void)
{
    int i, sum = 0;

    for (i = 0; i < 1000; i++)
        sum += shared;
    return sum;
}

static int find_zero(void)
{
    int i = 0;

    while (cells[i] != 0 && i < 7)
        i++;
    return i;
}

static void count_polls(void)
{
    while (!stop)
        polls++;
}

static int find_zero_frame(void)
{
    int *p = cells3;

    do
        p++;
    while (*p != 0);
    return (int)(p - cells3);
}

/* The -O2 loops test one condition each, so that VEX sees each loop in
 * one superblock (a block ends at its first conditional branch). */
__attribute__((optimize("O2"), noinline)) static int find_zero_o2(void)
{
    int i = 0;

    do
        i++;
    while (__atomic_load_n(&cells2[i], __ATOMIC_RELAXED) != 0);
    return i;
}

/* The same through a pointer argument; its race is in the second time
 * round, in the loop's own block. */
__attribute__((optimize("O2"), noinline)) static int find_zero_in(const int *array)
{
    int i = 0;

    do
        i++;
    while (__atomic_load_n(&array[i], __ATOMIC_RELAXED) != 0);
    return i;
}

/* Its race is in the first time round: the address is the argument's
 * register plus 4, which the loop does not write, but the copy of the
 * argument in another register, which it does. */
__attribute__((optimize("O2"), noinline)) static const int *skip_to_zero(const int *p)
{
    do
        p++;
    while (__atomic_load_n(p, __ATOMIC_RELAXED) != 0);
    return p;
}

__attribute__((optimize("O2"), noinline)) static void count_polls_o2(void)
{
    do
        polls++;
    while (!__atomic_load_n(&stop2, __ATOMIC_RELAXED));
}

/* Called through a pointer, so that its code starts a block (VEX does
 * not follow an indirect call) and its argument is no constant. */
static const int *(*volatile skip_call)(const int *) = skip_to_zero;

int main(void)
{
    pthread_t t;
    char byte;

    if (pipe(order) != 0)
        return 1;
    pthread_create(&t, NULL, writer, NULL);
    if (read(order[0], &byte, 1) != 1)
        perror("read");
    printf("sum %d\n", sum_shared() > 0);
    printf("zero %d\n", find_zero() > 0);
    printf("zero again %d\n", find_zero_o2() > 0);
    printf("zero in frame %d\n", find_zero_frame() > 0);
    printf("zero in argument %d\n", find_zero_in(cells4) > 0);
    printf("zero after %d\n", skip_call(cells5) > cells5);
    count_polls();
    count_polls_o2();
    pthread_join(t, NULL);
    printf("polled %ld\n", polls);
    return 0;
}
