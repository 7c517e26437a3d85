/* rp_syscalls.h — what the program's own system calls do to memory and to
 * ordering.
 *
 * Memory.  The kernel reads and writes the program's buffers (write's
 * source, read's destination, recvmsg's iovecs...), and a thread that
 * reads into a buffer another thread is still filling races with it as
 * surely as with a store.  Valgrind's syscall wrappers announce every such
 * range; racepred turns each into a read or write event of the calling
 * thread (after the call, for what the kernel wrote: only the bytes it
 * did write).
 *
 * Ordering.  Threads hand data over through file descriptors: a byte
 * written into a pipe wakes a thread blocked reading it, which then uses
 * what the writer prepared.  As ThreadSanitizer does, every descriptor
 * belongs to a synchronisation object: both ends of a pipe or socket pair
 * to one of their own, an eventfd or epoll instance to its own, every
 * other socket to one shared by all sockets (so that a connect orders
 * before the accept that takes it), every file opened to one shared by
 * all files; a descriptor racepred did not see made (stdin, stdout,
 * stderr, inherited ones) to none: logging to stderr orders nothing.  A write,
 * send, close, connect or epoll_ctl is a send on the object; a successful
 * read, receive, accept or epoll_wait a receive; dup and fcntl(F_DUPFD)
 * copy the object (--fd-sync=no: descriptors order nothing, as under
 * Helgrind and DRD).  And as ThreadSanitizer does, installing a signal
 * handler (rt_sigaction) is a send on the signal's object, and delivering
 * the signal to a thread a receive: the handler sees what was done before
 * it was installed.
 *
 * Descriptors as memory.  As in ThreadSanitizer, a descriptor is also a
 * location of 8 bytes (rp_syscalls_fd_address): every call that uses it
 * reads it, close writes it (then forgets it: the number may come back),
 * a call that makes it forgets and writes it, dup2 and dup3 read both.
 * So a close racing with another thread's write on the descriptor, or a
 * use of a number another thread has just opened anew, is a race, named
 * "file descriptor N" in the report.
 *
 * Only calls the program makes: a system call libc makes on its own
 * behalf (fwrite flushing its buffer, fread filling it, a lock's futex)
 * is as invisible as the rest of the ignored code (rp_filter.h), since
 * libc orders those buffers with locks racepred does not see.  A call
 * counts when its instruction, or its caller's, is the program's code.
 * futex is never an access: its word is a synchronisation variable.
 */
#ifndef RP_SYSCALLS_H
#define RP_SYSCALLS_H

#include "pub_tool_basics.h"

/* --fd-sync: whether descriptors are synchronisation (default yes). */
extern Bool rp_syscalls_fd_sync;

/* The location that stands for descriptor fd: above every user and
 * synchronisation address. */
#define RP_FD_LOCATIONS 0xFFFF900000000000ULL
#define RP_FD_MAX (1u << 20)

static inline Addr rp_syscalls_fd_address(UWord fd)
{
    return (Addr)(RP_FD_LOCATIONS + 8 * (ULong)fd);
}

/* Whether addr is a descriptor's location; *fd: which. */
static inline Bool rp_syscalls_fd_of(Addr addr, UWord *fd)
{
    if (addr < RP_FD_LOCATIONS || addr - RP_FD_LOCATIONS >= 8ULL * RP_FD_MAX)
        return False;
    *fd = (UWord)((addr - RP_FD_LOCATIONS) / 8);
    return True;
}

/* Registers the system-call hooks; call from pre_clo_init. */
void rp_syscalls_init(void);

#endif
