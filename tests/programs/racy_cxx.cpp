// Two threads write the same member of an object made with new, without a
// lock: a race on a heap block, described with the line of the new.
//
// The pipe only fixes which thread runs first, so the report is the same
// on every run; it is not synchronisation for racepred.
#include <pthread.h>
#include <unistd.h>
#include <cstdio>

struct Account {
    long id;
    long balance;
};

static int order[2];

static void *first(void *arg)
{
    Account *a = static_cast<Account *>(arg);

    a->balance += 10;
    if (write(order[1], "x", 1) != 1)
        return nullptr;
    return nullptr;
}

static void *second(void *arg)
{
    Account *a = static_cast<Account *>(arg);
    char c;

    if (read(order[0], &c, 1) != 1)
        return nullptr;
    a->balance += 20;
    return nullptr;
}

int main()
{
    pthread_t t1, t2;

    if (pipe(order) != 0)
        return 2;
    Account *a = new Account{7, 0};
    pthread_create(&t1, nullptr, first, a);
    pthread_create(&t2, nullptr, second, a);
    pthread_join(t1, nullptr);
    pthread_join(t2, nullptr);
    std::printf("balance=%ld\n", a->balance);
    delete a;
    return 0;
}
