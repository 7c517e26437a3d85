/* rp_outfile.h — the files racepred writes besides Valgrind's log
 * (--record-trace, --sarif-file), and code locations as text.
 *
 * A file is created while the options are parsed, so a bad path stops the
 * run at once; writes are buffered and go out with VG_(write).  Only the
 * process that opened a file writes it: after fork() the child's copy is
 * abandoned (nothing it buffered or writes later reaches the file), so a
 * forked child never corrupts or overwrites the parent's output.
 */
#ifndef RP_OUTFILE_H
#define RP_OUTFILE_H

#include "pub_tool_basics.h"

#define RP_OUTFILE_BUFFER 65536

typedef struct rp_outfile {
    Int fd;             /* -1 when closed or abandoned */
    Int owner_pid;      /* the process that opened it */
    HChar *path;
    Bool failed;        /* a write failed; reported once */
    UInt len;
    HChar buf[RP_OUTFILE_BUFFER];
} rp_outfile;

/* Creates (truncates) the file named by the option's value, expanding %p
 * and %q{VAR} as --log-file does.  Returns False if it cannot be created. */
Bool rp_outfile_open(rp_outfile *f, const HChar *option, const HChar *value);
Bool rp_outfile_is_open(const rp_outfile *f);

void rp_outfile_write(rp_outfile *f, const void *data, SizeT len);
void rp_outfile_puts(rp_outfile *f, const HChar *s);
void rp_outfile_printf(rp_outfile *f, const HChar *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Writes what is buffered and closes; says on Valgrind's log if any
 * write failed. */
void rp_outfile_close(rp_outfile *f);

/* "fn (file:line)", "fn (in object)", "??? (in object)" or "???": the
 * code location of a guest instruction, as a report's frame shows it
 * without the address.  Returns a pointer into buf. */
const HChar *rp_outfile_code_location(DiEpoch ep, Addr ip, HChar *buf, SizeT size);

#endif
