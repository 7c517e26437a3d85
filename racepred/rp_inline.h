/* rp_inline.h — which objects' inlined calls Valgrind reads.
 *
 * Valgrind reads the calls inlined at an instruction only for the tools
 * m_main.c names (Memcheck, Helgrind, DRD, Massif, DHAT): for the others a
 * frame of inlined code shows the function it was inlined into, with the
 * inlined code's line (a Rust thread's race at "__rust_begin_short_backtrace
 * (racy_rust.rs:16)"; with inlined frames, "work (racy_rust.rs:16)" called
 * by its closure), and the lock functions (rp_lockwords.h) go unseen.
 *
 * Unless the command line says (--read-inline-info=yes|no), racepred reads
 * them for the objects loaded before the program starts (the program
 * itself, where Rust's std and C++'s templates are inlined, and the dynamic
 * linker) and not for the libraries the program maps later: glibc's
 * separate debug information (libc6-dbg) with its inlined calls took 5 MB
 * more of every run, for code racepred does not instrument.  The setting
 * is one flag of the core's, outside the tool API, which the debug
 * information reader consults when it reads an object and the queries
 * when they ask for inlined calls: it is off only during an mmap, when a
 * library is read.
 */
#ifndef RP_INLINE_H
#define RP_INLINE_H

#include "pub_tool_basics.h"

/* At the tool's first initialisation, before any object is read. */
void rp_inline_init(void);

/* Around every system call of the program. */
void rp_inline_pre_syscall(UInt sysno);
void rp_inline_post_syscall(UInt sysno);

#endif
