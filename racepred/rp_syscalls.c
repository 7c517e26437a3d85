/* rp_syscalls.c — the program's system calls as accesses and as
 * synchronisation (rp_syscalls.h). */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "rp_filter.h"
#include "rp_instrument.h"
#include "rp_libc.h"
#include "rp_reserve.h"
#include "rp_privblocks.h"
#include "rp_stacks.h"
#include "rp_inline.h"
#include "rp_syscalls.h"
#include "rp_threads.h"
#include "rp_tool.h"

/* Synchronisation objects of descriptors and signals: above every user
 * address (amd64 user code and data live below 2^47), so they meet no
 * lock or atomic variable. */
#define KEY_BASE (1ULL << 63)
#define KEY_FILES (KEY_BASE | 1)
#define KEY_SOCKETS (KEY_BASE | 2)
#define KEY_SIGNALS (KEY_BASE | (1ULL << 62))
#define KEY_FRESH_SHIFT 8

Bool rp_syscalls_fd_sync = True;

/* Descriptors past this one order nothing and are no locations. */
#define MAX_TRACKED_FD RP_FD_MAX

/* What a descriptor's object is; 0: none. */
static ULong *fd_keys;
static UInt n_fd_keys;
static ULong fresh_keys;

/* Writes the kernel made during a call, held until the call's receive is
 * done (Valgrind announces them before the tool's post-syscall hook). */
#define HELD_WRITES 8

/* The system call a thread is in. */
typedef struct rp_call {
    Bool in_call;
    UInt sysno;
    Bool caller_known;
    Addr caller;           /* the program's instruction making it; 0: none */
    UInt n_held;
    Addr held_addr[HELD_WRITES];
    SizeT held_size[HELD_WRITES];
} rp_call;

static rp_call *calls;
static UInt n_calls;

static rp_call *call_of(ThreadId tid)
{
    if (tid >= n_calls)
        calls = rp_tool_grow_zeroed("rp.syscalls.calls", calls, &n_calls, tid, sizeof *calls);
    return &calls[tid];
}

static ULong fresh_key(void)
{
    return KEY_BASE | ++fresh_keys << KEY_FRESH_SHIFT;
}

/* 0 for a descriptor no call racepred saw made (stdin, stdout, stderr,
 * inherited ones): those order nothing, or every thread that logs to
 * stderr would be ordered before every later read of any file. */
static ULong fd_key(UWord fd)
{
    return fd < n_fd_keys ? fd_keys[fd] : 0;
}

static void set_fd_key(UWord fd, ULong key)
{
    if (fd >= MAX_TRACKED_FD)
        return;
    if (fd >= n_fd_keys)
        fd_keys = rp_tool_grow_zeroed("rp.syscalls.fds", fd_keys, &n_fd_keys, (UInt)fd,
                                      sizeof *fd_keys);
    fd_keys[fd] = key;
}

/* The program's instruction that makes the call: the system call
 * instruction itself, or the call of the libc function that holds it;
 * 0 when neither is the program's (libc on its own behalf). */
static Addr program_caller(ThreadId tid, rp_call *c)
{
    Addr ips[2];
    UInt n, i;

    if (c->caller_known)
        return c->caller;
    c->caller_known = True;
    c->caller = 0;
    n = VG_(get_StackTrace)(tid, ips, 2, NULL, NULL, 0);
    for (i = 0; i < n; i++)
        if (rp_filter_instruments(ips[i])) {
            c->caller = ips[i];
            break;
        }
    return c->caller;
}

static void emit_sync(ThreadId tid, rp_event_kind kind, ULong key)
{
    rp_tool_emit(kind, rp_threads_of_vg(tid), key, 0, 0);
}

/* A send or receive on fd's object, when the program makes the call. */
static void fd_sync(ThreadId tid, rp_call *c, rp_event_kind kind, UWord fd)
{
    ULong key = fd_key(fd);

    if (rp_syscalls_fd_sync && key != 0 && program_caller(tid, c) != 0)
        emit_sync(tid, kind, key);
}

/* Only a range that is all client memory: the kernel refuses the others
 * (EFAULT), and a garbage length (write(fd, buf, SIZE_MAX)) must not make
 * the detectors walk the address space. */
static void emit_access(ThreadId tid, rp_call *c, rp_event_kind kind, Addr a, SizeT size)
{
    if (size != 0 && c->sysno != __NR_futex && program_caller(tid, c) != 0
        && VG_(am_is_valid_for_client)(a, size, VKI_PROT_NONE))
        rp_libc_emit(tid, kind, a, size, c->caller);
}

/* The descriptor's location (rp_syscalls.h), in a call of the program's. */
static void fd_location(ThreadId tid, rp_call *c, rp_event_kind kind, UWord fd)
{
    Addr loc = rp_syscalls_fd_address(fd);

    if (fd >= MAX_TRACKED_FD || rp_instrument_floor || program_caller(tid, c) == 0)
        return;
    if (kind == RP_EV_FORGET)
        rp_tool_emit(RP_EV_FORGET, rp_threads_of_vg(tid), loc, 8, 0);
    else
        rp_libc_emit(tid, kind, loc, 8, c->caller);
}

/* A descriptor a call made: fresh, then written by its maker. */
static void fd_made(ThreadId tid, rp_call *c, UWord fd)
{
    fd_location(tid, c, RP_EV_FORGET, fd);
    fd_location(tid, c, RP_EV_WRITE, fd);
}

/* Calls whose first argument is a descriptor they use (read) and do not
 * close. */
static Bool uses_fd(UInt sysno)
{
    switch (sysno) {
    case __NR_read: case __NR_pread64: case __NR_readv: case __NR_preadv:
    case __NR_preadv2: case __NR_recvfrom: case __NR_recvmsg: case __NR_recvmmsg:
    case __NR_write: case __NR_pwrite64: case __NR_writev: case __NR_pwritev:
    case __NR_pwritev2: case __NR_sendto: case __NR_sendmsg: case __NR_sendmmsg:
    case __NR_accept: case __NR_accept4: case __NR_connect: case __NR_bind:
    case __NR_listen: case __NR_shutdown: case __NR_getsockopt: case __NR_setsockopt:
    case __NR_getsockname: case __NR_getpeername: case __NR_epoll_ctl:
    case __NR_epoll_wait: case __NR_epoll_pwait: case __NR_lseek: case __NR_fstat:
    case __NR_fsync: case __NR_fdatasync: case __NR_ftruncate: case __NR_ioctl:
    case __NR_fcntl: case __NR_getdents64: case __NR_sendfile: case __NR_dup:
    case __NR_dup2: case __NR_dup3:
        return True;
    default:
        return False;
    }
}

/* Calls that write data into a descriptor. */
static Bool writes_fd_data(UInt sysno)
{
    switch (sysno) {
    case __NR_write: case __NR_pwrite64: case __NR_writev: case __NR_pwritev:
    case __NR_pwritev2: case __NR_sendto: case __NR_sendmsg: case __NR_sendmmsg:
        return True;
    default:
        return False;
    }
}

static Bool writes_fd(UInt sysno)
{
    return writes_fd_data(sysno) || sysno == __NR_close || sysno == __NR_connect
           || sysno == __NR_epoll_ctl;
}

/* Calls that hand the caller's memory or a pointer it chose to whoever
 * reads on (a stack address among them may reach another thread): data
 * written out (scan_sent_data looks at what most of them send), epoll's
 * and a timer's or signal's user data. */
static Bool sends_data(UInt sysno)
{
    if (writes_fd_data(sysno))
        return True;
    switch (sysno) {
    case __NR_msgsnd: case __NR_mq_timedsend: case __NR_mq_notify:
    case __NR_process_vm_writev: case __NR_vmsplice: case __NR_epoll_ctl:
    case __NR_timer_create: case __NR_rt_sigqueueinfo: case __NR_rt_tgsigqueueinfo:
        return True;
    default:
        return False;
    }
}

/* What a scan of the data a call sends may cost: beyond it (or when the
 * data cannot be read: the kernel will refuse it), everything may leave. */
#define RP_SENT_SCAN_MAX ((SizeT)64 << 20)

/* [lo, lo + len) is sent: the addresses of the thread's private stack
 * frames and heap blocks among its words leave; False if it cannot be
 * read, or the call's scans would pass *budget. */
static Bool scan_sent(ThreadId tid, Addr lo, SizeT len, SizeT *budget)
{
    if (len == 0)
        return True;
    if (len > *budget || !VG_(am_is_valid_for_client)(lo, len, VKI_PROT_READ))
        return False;
    *budget -= len;
    rp_privblocks_sent(rp_threads_of_vg(tid), lo, lo + len);
    rp_stacks_sent(tid, lo, lo + len);
    return True;
}

/* The most entries a vector of I/O vectors or of messages may have: the
 * kernel's UIO_MAXIOV, past which it refuses the call. */
#define RP_SENT_VECTOR_MAX 1024u

/* Whether a vector of `count` entries of entry_size bytes at vec may be
 * sent and can be read. */
static Bool sent_vector_readable(Addr vec, UWord count, SizeT entry_size)
{
    return count <= RP_SENT_VECTOR_MAX
        && VG_(am_is_valid_for_client)(vec, count * entry_size, VKI_PROT_READ);
}

static Bool scan_sent_iovecs(ThreadId tid, Addr iov, UWord count, SizeT *budget)
{
    const struct vki_iovec *v = (const struct vki_iovec *)iov;

    if (!sent_vector_readable(iov, count, sizeof *v))
        return False;
    for (UWord i = 0; i < count; i++)
        if (!scan_sent(tid, (Addr)v[i].iov_base, v[i].iov_len, budget))
            return False;
    return True;
}

static Bool scan_sent_message(ThreadId tid, Addr msg, SizeT *budget)
{
    const struct vki_msghdr *m = (const struct vki_msghdr *)msg;

    return VG_(am_is_valid_for_client)(msg, sizeof *m, VKI_PROT_READ)
        && scan_sent_iovecs(tid, (Addr)m->msg_iov, m->msg_iovlen, budget)
        && scan_sent(tid, (Addr)m->msg_control, m->msg_controllen, budget);
}

static Bool scan_sent_messages(ThreadId tid, Addr vec, UWord count, SizeT *budget)
{
    const struct vki_mmsghdr *v = (const struct vki_mmsghdr *)vec;

    if (!sent_vector_readable(vec, count, sizeof *v))
        return False;
    for (UWord i = 0; i < count; i++)
        if (!scan_sent_message(tid, (Addr)&v[i].msg_hdr, budget))
            return False;
    return True;
}

/* A call that writes data out, whose bytes are all it hands on: only the
 * addresses among them leave the thread (its other private frames and
 * blocks stay private: a worker's progress message costs nothing).  False
 * for the others, which hand on a pointer of the caller's choosing. */
static Bool scan_sent_data(ThreadId tid, UInt sysno, const UWord *args)
{
    SizeT budget = RP_SENT_SCAN_MAX;

    switch (sysno) {
    case __NR_write: case __NR_pwrite64: case __NR_sendto: case __NR_mq_timedsend:
        return scan_sent(tid, args[1], args[2], &budget);
    case __NR_msgsnd:
        return args[2] <= budget && scan_sent(tid, args[1], sizeof(long) + args[2], &budget);
    case __NR_writev: case __NR_pwritev: case __NR_pwritev2:
        return scan_sent_iovecs(tid, args[1], args[2], &budget);
    case __NR_sendmsg:
        return scan_sent_message(tid, args[1], &budget);
    case __NR_sendmmsg:
        return scan_sent_messages(tid, args[1], args[2], &budget);
    default:
        return False;
    }
}

static Bool reads_fd(UInt sysno)
{
    switch (sysno) {
    case __NR_read: case __NR_pread64: case __NR_readv: case __NR_preadv:
    case __NR_preadv2: case __NR_recvfrom: case __NR_recvmsg: case __NR_recvmmsg:
    case __NR_accept: case __NR_accept4: case __NR_epoll_wait: case __NR_epoll_pwait:
        return True;
    default:
        return False;
    }
}

static void pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt n_args)
{
    rp_call *c = call_of(tid);

    (void)n_args;
    rp_inline_pre_syscall(sysno);
    c->in_call = True;
    c->sysno = sysno;
    c->caller_known = False;
    c->n_held = 0;
    if (!rp_threads_is_live(tid))
        return;
    rp_threads_make_current(tid);
    if (uses_fd(sysno))
        fd_location(tid, c, RP_EV_READ, args[0]);
    else if (sysno == __NR_close)
        fd_location(tid, c, RP_EV_WRITE, args[0]);
    if (sysno == __NR_dup2 || sysno == __NR_dup3)
        fd_location(tid, c, RP_EV_READ, args[1]);
    if (sends_data(sysno) && !scan_sent_data(tid, sysno, args)) {
        rp_stacks_escape(tid);
        rp_privblocks_escape_thread(rp_threads_of_vg(tid));
    }
    if (writes_fd(sysno))
        fd_sync(tid, c, RP_EV_SYNC_SEND, args[0]);
    else if (sysno == __NR_rt_sigaction && args[1] != 0 && args[0] < 1024)
        emit_sync(tid, RP_EV_SYNC_SEND, KEY_SIGNALS | args[0]);
}

/* Descriptors a successful call made, copied or closed. */
static void note_descriptors(UInt sysno, UWord *args, UWord res)
{
    ULong key;

    switch (sysno) {
    case __NR_pipe: case __NR_pipe2: case __NR_socketpair: {
        const Int *pair = (const Int *)(sysno == __NR_socketpair ? args[3] : args[0]);

        key = fresh_key();
        set_fd_key((UWord)pair[0], key);
        set_fd_key((UWord)pair[1], key);
        break;
    }
    case __NR_eventfd: case __NR_eventfd2: case __NR_epoll_create: case __NR_epoll_create1:
        set_fd_key(res, fresh_key());
        break;
    case __NR_socket: case __NR_accept: case __NR_accept4:
        set_fd_key(res, KEY_SOCKETS);
        break;
    case __NR_open: case __NR_openat: case __NR_creat:
        set_fd_key(res, KEY_FILES);
        break;
    case __NR_dup:
        set_fd_key(res, fd_key(args[0]));
        break;
    case __NR_dup2: case __NR_dup3:
        set_fd_key(args[1], fd_key(args[0]));
        break;
    case __NR_fcntl:
        if (args[1] == VKI_F_DUPFD || args[1] == VKI_F_DUPFD_CLOEXEC)
            set_fd_key(res, fd_key(args[0]));
        break;
    case __NR_close:
        set_fd_key(args[0], 0);
        break;
    default:
        break;
    }
}

/* The locations of descriptors a successful call made or closed. */
static void locate_descriptors(ThreadId tid, rp_call *c, UInt sysno, UWord *args, UWord res)
{
    switch (sysno) {
    case __NR_pipe: case __NR_pipe2: case __NR_socketpair: {
        const Int *pair = (const Int *)(sysno == __NR_socketpair ? args[3] : args[0]);

        fd_made(tid, c, (UWord)pair[0]);
        fd_made(tid, c, (UWord)pair[1]);
        break;
    }
    case __NR_eventfd: case __NR_eventfd2: case __NR_epoll_create: case __NR_epoll_create1:
    case __NR_socket: case __NR_accept: case __NR_accept4: case __NR_open: case __NR_openat:
    case __NR_creat: case __NR_dup:
        fd_made(tid, c, res);
        break;
    case __NR_fcntl:
        if (args[1] == VKI_F_DUPFD || args[1] == VKI_F_DUPFD_CLOEXEC)
            fd_made(tid, c, res);
        break;
    case __NR_dup2: case __NR_dup3:
        /* ThreadSanitizer's choice: the new number is read, not written
         * (daemons dup /dev/null over stdin while other threads run). */
        fd_location(tid, c, RP_EV_FORGET, args[1]);
        fd_location(tid, c, RP_EV_READ, args[1]);
        break;
    case __NR_close:
        fd_location(tid, c, RP_EV_FORGET, args[0]);
        break;
    default:
        break;
    }
}

static void post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt n_args, SysRes res)
{
    rp_call *c = call_of(tid);
    UInt i;

    (void)n_args;
    rp_inline_post_syscall(sysno);
    rp_reserve_post_syscall(sysno, res);
    c->in_call = False;
    if (!sr_isError(res))
        note_descriptors(sysno, args, sr_Res(res));
    if (!rp_threads_is_live(tid))
        return;
    rp_threads_make_current(tid);
    if (!sr_isError(res))
        locate_descriptors(tid, c, sysno, args, sr_Res(res));
    if (!sr_isError(res) && reads_fd(sysno))
        fd_sync(tid, c, RP_EV_SYNC_RECV, args[0]);
    for (i = 0; i < c->n_held; i++)
        emit_access(tid, c, RP_EV_WRITE, c->held_addr[i], c->held_size[i]);
    c->n_held = 0;
}

static void on_pre_mem_read(CorePart part, ThreadId tid, const HChar *what, Addr a, SizeT size)
{
    (void)what;
    if (part == Vg_CoreSysCall && rp_threads_is_live(tid))
        emit_access(tid, call_of(tid), RP_EV_READ, a, size);
}

static void on_post_mem_write(CorePart part, ThreadId tid, Addr a, SizeT size)
{
    rp_call *c;

    if (part != Vg_CoreSysCall || !rp_threads_is_live(tid))
        return;
    c = call_of(tid);
    if (c->in_call && c->n_held < HELD_WRITES) {
        c->held_addr[c->n_held] = a;
        c->held_size[c->n_held++] = size;
        return;
    }
    emit_access(tid, c, RP_EV_WRITE, a, size);
}

/* The handler runs after everything done before it was installed. */
static void on_pre_deliver_signal(ThreadId tid, Int sig, Bool alt_stack)
{
    (void)alt_stack;
    if (!rp_threads_is_live(tid) || sig < 0 || sig >= 1024)
        return;
    rp_threads_make_current(tid);
    emit_sync(tid, RP_EV_SYNC_RECV, KEY_SIGNALS | (ULong)sig);
}

void rp_syscalls_init(void)
{
    VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
    VG_(track_pre_mem_read)(on_pre_mem_read);
    VG_(track_post_mem_write)(on_post_mem_write);
    VG_(track_pre_deliver_signal)(on_pre_deliver_signal);
}
