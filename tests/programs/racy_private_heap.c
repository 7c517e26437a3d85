/* Racy, built -O0: heap blocks of a page or more that a publisher thread
 * allocates and writes while they are private to it (rp_privheap.h), then
 * lets their address leave in each way the rule watches, then writes once
 * more; the worker reads that byte without synchronisation with the
 * publisher's last write, and each such race must be reported.  Each way
 * has a publisher of its own, whose stack is private until it lets an
 * address of it leave (main's frames are shared once it created a thread,
 * and a block's address kept there would leave at once):
 *   - by_store:     the address stored into a global, under a mutex;
 *   - by_copy:      a structure holding it copied by memcpy (the preload's
 *                   wrapper: the copy is seen, its stores are not) into a
 *                   global, under the mutex;
 *   - by_container: the address kept in another private block, whose own
 *                   address is then stored into the global;
 *   - by_pipe:      written into a pipe the worker reads;
 *   - by_stack:     kept in a local of the publisher, whose address is
 *                   stored;
 *   - by_frame:     kept in a local of the publisher whose address is kept
 *                   in another private block, whose own address is then
 *                   stored (the block shares the frame, the frame the
 *                   block);
 *   - by_create:    handed to a thread it creates (which reads, not the
 *                   worker);
 *   - by_create_frame, by_create_block: the created thread's argument is
 *                   the address of a local, or of another private block,
 *                   that holds the block's address (a creation lets leave
 *                   only what its argument leads to);
 *   - by_realloc_move, by_realloc_shrink: as by_frame, but the block
 *                   holding the local's address is first moved by realloc
 *                   (a block in use right after it keeps it from growing
 *                   in place), or shrunk in place below a page, so that
 *                   it is private no more: the frame address goes with
 *                   the bytes.
 * The pipes `go` and `back` only order the run (--fd-sync=no): the
 * publisher's last write comes first, and its frame is live while the
 * worker reads.  With an escape not seen, that write would be skipped as
 * private and the worker's read, another thread's first access to the
 * block, would only make it shared: no report. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 8192

struct holder {
    int *block;
    char pad[56];
};

static int go[2], back[2], data[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int *published;
static struct holder copied;
static int **published_container;
static int ***published_local;
static int ***published_holder;
static volatile size_t holder_size = sizeof(struct holder);

static void signal_fd(int fd)
{
    if (write(fd, "x", 1) != 1)
        _exit(1);
}

static void wait_fd(int fd)
{
    char c;

    if (read(fd, &c, 1) != 1)
        _exit(1);
}

static int *take(int **from)
{
    int *p;

    pthread_mutex_lock(&mu);
    p = *from;
    pthread_mutex_unlock(&mu);
    return p;
}

static void *worker(void *arg)
{
    int sum = 0, *p;

    (void)arg;
    wait_fd(go[0]);
    sum += take(&published)[1];
    signal_fd(back[1]);
    wait_fd(go[0]);
    pthread_mutex_lock(&mu);
    p = copied.block;
    pthread_mutex_unlock(&mu);
    sum += p[2];
    signal_fd(back[1]);
    wait_fd(go[0]);
    pthread_mutex_lock(&mu);
    p = *published_container;
    pthread_mutex_unlock(&mu);
    sum += p[3];
    signal_fd(back[1]);
    if (read(data[0], &p, sizeof p) != sizeof p)
        _exit(1);
    wait_fd(go[0]);
    sum += p[4];
    signal_fd(back[1]);
    wait_fd(go[0]);
    pthread_mutex_lock(&mu);
    p = **published_local;
    pthread_mutex_unlock(&mu);
    sum += p[5];
    signal_fd(back[1]);
    wait_fd(go[0]);
    pthread_mutex_lock(&mu);
    p = *published_holder[0];
    pthread_mutex_unlock(&mu);
    sum += p[7];
    signal_fd(back[1]);
    for (int k = 8; k <= 9; k++) {
        wait_fd(go[0]);
        pthread_mutex_lock(&mu);
        p = *published_holder[0];
        pthread_mutex_unlock(&mu);
        sum += p[k];
        signal_fd(back[1]);
    }
    return (void *)(long)sum;
}

/* Written by plain stores (a memset's would be events of libc's, seen
 * whatever the rule says). */
static int *private_block(void)
{
    int *b = malloc(BLOCK);

    for (size_t i = 0; i < BLOCK / sizeof *b; i++)
        b[i] = 0;
    return b;
}

static void *by_store(void *arg)
{
    int *b = private_block();

    pthread_mutex_lock(&mu);
    published = b;
    pthread_mutex_unlock(&mu);
    b[1] = 10;
    signal_fd(go[1]);
    wait_fd(back[0]);
    return arg;
}

static void *by_copy(void *arg)
{
    struct holder h = { private_block(), { 0 } };

    pthread_mutex_lock(&mu);
    memcpy(&copied, &h, holder_size);
    pthread_mutex_unlock(&mu);
    h.block[2] = 20;
    signal_fd(go[1]);
    wait_fd(back[0]);
    return arg;
}

static void *by_container(void *arg)
{
    int **container = (int **)private_block();
    int *b = private_block();

    container[0] = b;
    pthread_mutex_lock(&mu);
    published_container = container;
    pthread_mutex_unlock(&mu);
    b[3] = 30;
    signal_fd(go[1]);
    wait_fd(back[0]);
    return arg;
}

static void *by_pipe(void *arg)
{
    int *b = private_block();

    if (write(data[1], &b, sizeof b) != sizeof b)
        _exit(1);
    b[4] = 40;
    signal_fd(go[1]);
    wait_fd(back[0]);
    return arg;
}

static void *by_stack(void *arg)
{
    int *b = private_block();
    int **local = &b;

    pthread_mutex_lock(&mu);
    published_local = &local;
    pthread_mutex_unlock(&mu);
    b[5] = 50;
    signal_fd(go[1]);
    wait_fd(back[0]);
    return arg;
}

static void *by_frame(void *arg)
{
    int *b = private_block();
    int ***holder = (int ***)private_block();

    holder[0] = &b;
    pthread_mutex_lock(&mu);
    published_holder = holder;
    pthread_mutex_unlock(&mu);
    b[7] = 70;
    signal_fd(go[1]);
    wait_fd(back[0]);
    return arg;
}

static void *by_realloc_move(void *arg)
{
    int *b = private_block();
    int ***holder = (int ***)private_block();
    void *guard = malloc(64);

    holder[0] = &b;
    holder = realloc(holder, 4 * BLOCK);
    pthread_mutex_lock(&mu);
    published_holder = holder;
    pthread_mutex_unlock(&mu);
    b[8] = 80;
    signal_fd(go[1]);
    wait_fd(back[0]);
    free(guard);
    return arg;
}

static void *by_realloc_shrink(void *arg)
{
    int *b = private_block();
    int ***holder = (int ***)private_block();

    holder[0] = &b;
    holder = realloc(holder, 64);
    pthread_mutex_lock(&mu);
    published_holder = holder;
    pthread_mutex_unlock(&mu);
    b[9] = 90;
    signal_fd(go[1]);
    wait_fd(back[0]);
    return arg;
}

static void *reader(void *arg)
{
    int *b = arg;
    long v;

    wait_fd(go[0]);
    v = b[6];
    signal_fd(back[1]);
    return (void *)v;
}

/* The argument points to where the block's address is kept. */
static void *indirect_reader(void *arg)
{
    int **where = arg;
    long v;

    wait_fd(go[0]);
    v = (*where)[10];
    signal_fd(back[1]);
    return (void *)v;
}

static void *by_create_frame(void *arg)
{
    int *b = private_block();
    pthread_t t;
    void *v;

    (void)arg;
    pthread_create(&t, NULL, indirect_reader, &b);
    b[10] = 100;
    signal_fd(go[1]);
    wait_fd(back[0]);
    pthread_join(t, &v);
    return v;
}

static void *by_create_block(void *arg)
{
    int **container = (int **)private_block();
    pthread_t t;
    void *v;

    (void)arg;
    container[0] = private_block();
    pthread_create(&t, NULL, indirect_reader, container);
    container[0][10] = 110;
    signal_fd(go[1]);
    wait_fd(back[0]);
    pthread_join(t, &v);
    return v;
}

static void *by_create(void *arg)
{
    int *b = private_block();
    pthread_t t;
    void *v;

    (void)arg;
    pthread_create(&t, NULL, reader, b);
    b[6] = 60;
    signal_fd(go[1]);
    wait_fd(back[0]);
    pthread_join(t, &v);
    return v;
}

int main(void)
{
    void *(*const publishers[])(void *) = { by_store, by_copy, by_container, by_pipe,
                                            by_stack, by_frame, by_realloc_move,
                                            by_realloc_shrink, by_create_frame,
                                            by_create_block, by_create };
    pthread_t w, t;
    void *sum, *v;

    if (pipe(go) != 0 || pipe(back) != 0 || pipe(data) != 0)
        return 1;
    pthread_create(&w, NULL, worker, NULL);
    for (size_t i = 0; i < sizeof publishers / sizeof *publishers; i++) {
        pthread_create(&t, NULL, publishers[i], NULL);
        pthread_join(t, &v);
    }
    pthread_join(w, &sum);
    return (long)sum == 390 && (long)v == 60 ? 0 : 1;
}
