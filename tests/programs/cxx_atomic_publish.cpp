// Data handed to another thread through std::atomic with release and
// acquire order, each read once, outside any loop: an int flag that
// publishes an array, and a pointer that publishes the node it points to.
// On x86 these atomic loads and stores are plain moves; racepred knows
// them by their source, libstdc++'s atomic headers (--atomic-sources).
// Race-free.  Built -O2 (the atomics inlined into the program) and -O0
// (the header's out-of-line functions; gcc makes their stores an xchg
// there, a read-modify-write, which racepred knew already).
//
// The pipe only makes the reader wait until the writer is done, so that
// it sees the flag and the pointer set; racepred runs it with
// --fd-sync=no, so that only the atomics order the threads.
#include <atomic>
#include <cstdio>
#include <pthread.h>
#include <unistd.h>

struct Node {
    int value;
    Node *next;
};

static int data[4];
static std::atomic<int> ready{0};
static std::atomic<Node *> head{nullptr};
static int order[2];

static void *writer(void *)
{
    for (int i = 0; i < 4; i++)
        data[i] = i + 1;
    ready.store(1, std::memory_order_release);
    Node *n = new Node{42, nullptr};
    head.store(n, std::memory_order_release);
    if (write(order[1], "x", 1) != 1)
        return nullptr;
    return nullptr;
}

int main()
{
    pthread_t t;
    char c;
    int sum = 0;

    if (pipe(order) != 0 || pthread_create(&t, nullptr, writer, nullptr) != 0)
        return 1;
    if (read(order[0], &c, 1) != 1)
        return 1;
    if (ready.load(std::memory_order_acquire) != 0)
        sum = data[0] + data[1] + data[2] + data[3];
    Node *n = head.load(std::memory_order_acquire);
    if (n != nullptr)
        sum += n->value;
    pthread_join(t, nullptr);
    delete n;
    printf("%d\n", sum);
    return 0;
}
