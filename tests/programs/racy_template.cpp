// racy_template.cpp — a race inside code whose symbol names carry the
// characters XML must escape: a template (<, >) and operator&= (&).  The
// XML output must stay well formed (checked with xmllint by run.sh).
#include <pthread.h>

template <typename T> struct Flags {
    T bits;
    Flags &operator&=(T mask) { bits &= mask; return *this; }   // racy
};

static Flags<unsigned> shared_flags = { ~0u };

template <typename T> static void *clear_bit(void *arg)
{
    shared_flags &= static_cast<T>(~(1u << reinterpret_cast<long>(arg)));
    return nullptr;
}

int main()
{
    pthread_t t[2];

    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], nullptr, clear_bit<unsigned>, reinterpret_cast<void *>(i));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], nullptr);
    return shared_flags.bits == ~3u ? 0 : 1;
}
