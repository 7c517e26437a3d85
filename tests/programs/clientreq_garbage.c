/* Malformed client requests: a null object, huge and wrapping sizes, an
 * END without BEGIN, request numbers in racepred's range that do not
 * exist, and the preload's task requests with handles and keys nobody
 * made, or a length that wraps.  Each kind is reported once, in one line, and ignored; the
 * program runs to its end with its own exit code.  Unaligned objects and
 * ranges, and a range nothing is mapped at, are legal requests: they are
 * taken silently. */
#include <stdio.h>
#include "racepred.h"
#include "rp_clientreq.h"

int main(void)
{
    static int x;
    int i;
    unsigned long handle;

    for (i = 0; i < 3; i++) {
        RACEPRED_HAPPENS_BEFORE((char *)&x + 1);
        RACEPRED_HAPPENS_AFTER((char *)&x + 1);
        RACEPRED_CLEAN_MEMORY((char *)&x + 1, 3);
        RACEPRED_BENIGN_RACE((char *)&x + 3, 1);
        RACEPRED_CLEAN_MEMORY((void *)8, 4096);
        RACEPRED_HAPPENS_BEFORE(NULL);
        RACEPRED_HAPPENS_AFTER(0);
        RACEPRED_CLEAN_MEMORY(&x, (size_t)-1);
        RACEPRED_BENIGN_RACE(&x, (size_t)1 << 50);
        RACEPRED_BENIGN_RACE(NULL, 4);
        RACEPRED_IGNORE_END();
        VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__RACEPRED_IGNORE_END + 100,
                                        1, 2, 3, 4, 5);
        VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ_TOOL_BASE('R', 'P') + 0xffff,
                                        0, 0, 0, 0, 0);
        /* The preload's task requests (rp_tasks.h), with handles the tool
         * never handed out: taken silently. */
        VALGRIND_DO_CLIENT_REQUEST_STMT(RP_USERREQ_TASK_BEGIN, 12345, 0, 0, 0, 0);
        VALGRIND_DO_CLIENT_REQUEST_STMT(RP_USERREQ_TASK_DEPEND, 7, &x, 1, 0, 0);
        VALGRIND_DO_CLIENT_REQUEST_STMT(RP_USERREQ_TASK_END, (unsigned long)-1, 1, 0, 0, 0);
        VALGRIND_DO_CLIENT_REQUEST_STMT(RP_USERREQ_TASK_END, 0, 0, 0, 0, 0);
        VALGRIND_DO_CLIENT_REQUEST_STMT(RP_USERREQ_TASK_WAIT_DEPEND, NULL, 1, 0, 0, 0);
        VALGRIND_DO_CLIENT_REQUEST_STMT(RP_USERREQ_TASK_BEGIN_KEY, &i, 0, 0, 0, 0);
        /* A task keyed by x whose length wraps: its end forgets nothing. */
        handle = VALGRIND_DO_CLIENT_REQUEST_EXPR(0, RP_USERREQ_TASK_CREATE, 0, &x,
                                                 (unsigned long)-1, 0, 0);
        VALGRIND_DO_CLIENT_REQUEST_STMT(RP_USERREQ_TASK_BEGIN_KEY, &x, 0, 0, 0, 0);
        VALGRIND_DO_CLIENT_REQUEST_STMT(RP_USERREQ_TASK_END, handle, 0, 0, 0, 0);
    }
    x = 3;
    printf("x=%d\n", x);
    return 3;
}
