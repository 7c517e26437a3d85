/* rp_trace.c — text trace reader (see rp_trace.h for the contract).
 *
 * One pass over the lines: a cursor (`scan`) walks the current line, each
 * syntax rule is one small function returning false after recording the
 * error, and the well-formedness state (lock holders, thread life cycle) is
 * updated as events are appended.
 */
#include "rp_trace.h"

#include "rp_array.h"
#include "rp_shim.h"
#include "rp_sort.h"

#define NO_INDEX UINT32_MAX
#define NO_HOLDER UINT32_MAX

/* Names with dense indices, interned through an open-addressing index. */
typedef struct name_table {
    char **names;
    uint32_t count, cap;
    uint32_t *index;        /* 0 = empty, else name number + 1 */
    uint32_t index_cap;     /* a power of two, at most half full */
} name_table;

typedef struct thread_state {
    bool started;           /* has acted or was forked */
    bool joined;
} thread_state;

typedef struct scan {
    const char *p;
    const char *end;        /* end of the line */
} scan;

typedef struct parser {
    rp_trace *trace;
    rp_trace_error *err;
    unsigned line;
    name_table vars, locks, threads;
    uint32_t *lock_holder;  /* per lock: holding thread or NO_HOLDER */
    thread_state *thread_states;
    uint32_t cap_events, cap_expects, cap_lock_holder, cap_thread_states;
} parser;

/* ---- small helpers ------------------------------------------------------- */

static char *copy_string(const char *s, size_t len)
{
    char *copy = rp_malloc("rp.trace.name", len + 1);
    rp_memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_name_char(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static size_t append(char *dst, size_t at, const char *src, size_t len)
{
    while (len-- > 0 && at + 1 < RP_TRACE_MESSAGE_MAX)
        dst[at++] = *src++;
    dst[at] = '\0';
    return at;
}

/* Records "message 'detail'" (detail may be NULL) for the current line. */
static bool fail(parser *ps, const char *message, const char *detail, size_t detail_len)
{
    char *m = ps->err->message;
    size_t at = append(m, 0, message, rp_strlen(message));
    if (detail != NULL) {
        at = append(m, at, " '", 2);
        at = append(m, at, detail, detail_len);
        append(m, at, "'", 1);
    }
    ps->err->line = ps->line;
    return false;
}

static size_t format_u32(char *buf, uint32_t n)
{
    char digits[10];
    size_t len = 0;
    do {
        digits[len++] = (char)('0' + n % 10);
        n /= 10;
    } while (n != 0);
    for (size_t i = 0; i < len; i++)
        buf[i] = digits[len - 1 - i];
    return len;
}

/* ---- name tables ------------------------------------------------------------- */

static uint64_t hash_name(const char *s, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h;
}

static uint32_t *index_slot(const name_table *t, const char *s, size_t len)
{
    uint32_t mask = t->index_cap - 1;
    for (uint32_t i = (uint32_t)hash_name(s, len) & mask;; i = (i + 1) & mask) {
        uint32_t n = t->index[i];
        if (n == 0)
            return &t->index[i];
        const char *name = t->names[n - 1];
        if (rp_strlen(name) == len && rp_memcmp(name, s, len) == 0)
            return &t->index[i];
    }
}

static void index_grow(name_table *t)
{
    rp_free(t->index);
    t->index_cap = t->index_cap == 0 ? 64 : t->index_cap * 2;
    t->index = rp_calloc("rp.trace.index", t->index_cap, sizeof(uint32_t));
    for (uint32_t n = 0; n < t->count; n++)
        *index_slot(t, t->names[n], rp_strlen(t->names[n])) = n + 1;
}

static uint32_t name_find(const name_table *t, const char *s, size_t len)
{
    if (t->index_cap == 0)
        return NO_INDEX;
    uint32_t n = *index_slot(t, s, len);
    return n == 0 ? NO_INDEX : n - 1;
}

static uint32_t name_intern(name_table *t, const char *s, size_t len)
{
    uint32_t n = name_find(t, s, len);
    if (n != NO_INDEX)
        return n;
    if (2 * (t->count + 1) > t->index_cap)
        index_grow(t);
    t->names = rp_array_reserve("rp.trace.array", t->names, t->count, &t->cap, sizeof(char *));
    t->names[t->count] = copy_string(s, len);
    *index_slot(t, s, len) = t->count + 1;
    return t->count++;
}

static void name_table_free(name_table *t)
{
    for (uint32_t n = 0; n < t->count; n++)
        rp_free(t->names[n]);
    rp_free(t->names);
    rp_free(t->index);
}

/* ---- lexical rules ------------------------------------------------------------- */

static void skip_spaces(scan *s)
{
    while (s->p < s->end && is_space(*s->p))
        s->p++;
}

static bool at_end(const scan *s)
{
    return s->p == s->end;
}

static bool accept(scan *s, const char *word)
{
    size_t len = rp_strlen(word);
    if ((size_t)(s->end - s->p) < len || rp_memcmp(s->p, word, len) != 0)
        return false;
    s->p += len;
    return true;
}

static size_t name_length(const scan *s)
{
    const char *q = s->p;
    while (q < s->end && is_name_char(*q))
        q++;
    return (size_t)(q - s->p);
}

static bool parse_number(parser *ps, scan *s, uint32_t *out)
{
    const char *start = s->p;
    uint64_t n = 0;
    if (at_end(s) || !is_digit(*s->p))
        return fail(ps, "expected a number", NULL, 0);
    while (!at_end(s) && is_digit(*s->p)) {
        n = n * 10 + (uint64_t)(*s->p++ - '0');
        if (n > RP_TRACE_NUMBER_MAX)
            return fail(ps, "number too large", start, (size_t)(s->end - start));
    }
    *out = (uint32_t)n;
    return true;
}

/* 'T' N: the dense thread id (interned as "T<N>"). */
static bool parse_thread(parser *ps, scan *s, uint32_t *tid)
{
    const char *start = s->p;
    uint32_t number;
    char name[12] = "T";
    if (!accept(s, "T") || at_end(s) || !is_digit(*s->p)) {
        size_t len = name_length(s) + (size_t)(s->p - start);
        return fail(ps, "bad thread name (expected T<number>)", len == 0 ? NULL : start, len);
    }
    if (!parse_number(ps, s, &number))
        return false;
    if (!at_end(s) && is_name_char(*s->p))
        return fail(ps, "bad thread name (expected T<number>)", start,
                    name_length(s) + (size_t)(s->p - start));
    *tid = name_intern(&ps->threads, name, 1 + format_u32(name + 1, number));
    ps->thread_states = rp_array_reserve("rp.trace.array", ps->thread_states, *tid,
                                         &ps->cap_thread_states, sizeof(thread_state));
    if (*tid >= ps->trace->n_threads) {
        ps->thread_states[*tid].started = false;
        ps->thread_states[*tid].joined = false;
        ps->trace->n_threads = ps->threads.count;
    }
    return true;
}

/* '(' NAME ')', returning the name's extent. */
static bool parse_argument_name(parser *ps, scan *s, const char **name, size_t *len)
{
    if (!accept(s, "("))
        return fail(ps, "missing '('", NULL, 0);
    *name = s->p;
    *len = name_length(s);
    if (*len == 0)
        return fail(ps, "missing name inside '( )'", NULL, 0);
    s->p += *len;
    if (!accept(s, ")"))
        return fail(ps, "missing ')'", NULL, 0);
    return true;
}

/* '(' 'T' N ')'. */
static bool parse_argument_thread(parser *ps, scan *s, uint32_t *tid)
{
    if (!accept(s, "("))
        return fail(ps, "missing '('", NULL, 0);
    if (!parse_thread(ps, s, tid))
        return false;
    if (!accept(s, ")"))
        return fail(ps, "missing ')'", NULL, 0);
    return true;
}

/* ---- events ------------------------------------------------------------------- */

static rp_event *append_event(parser *ps, uint8_t kind, rp_tid_t tid, uint64_t obj,
                              uint32_t size)
{
    rp_trace *t = ps->trace;
    t->events = rp_array_reserve("rp.trace.array", t->events, t->n_events, &ps->cap_events,
                                 sizeof(rp_event));
    rp_event *e = &t->events[t->n_events++];
    e->id = t->n_events;
    e->site = t->n_events;
    e->kind = kind;
    e->tid = tid;
    e->obj = obj;
    e->size = size;
    return e;
}

static const char *thread_name(const parser *ps, uint32_t tid)
{
    return ps->threads.names[tid];
}

static bool fail_thread(parser *ps, const char *message, uint32_t tid)
{
    const char *name = thread_name(ps, tid);
    return fail(ps, message, name, rp_strlen(name));
}

static uint32_t intern_lock(parser *ps, const char *name, size_t len)
{
    uint32_t lock = name_intern(&ps->locks, name, len);
    if (lock == ps->trace->n_locks) {
        ps->lock_holder = rp_array_reserve("rp.trace.array", ps->lock_holder, lock,
                                           &ps->cap_lock_holder, sizeof(uint32_t));
        ps->lock_holder[lock] = NO_HOLDER;
        ps->trace->n_locks = ps->locks.count;
    }
    return lock;
}

static bool lock_event(parser *ps, scan *s, uint32_t tid, bool is_acquire)
{
    const char *name;
    size_t len;
    if (!parse_argument_name(ps, s, &name, &len))
        return false;
    uint32_t lock = intern_lock(ps, name, len);
    uint32_t *holder = &ps->lock_holder[lock];
    if (is_acquire && *holder == tid)
        return fail(ps, "acquire of a lock this thread already holds (locks are not reentrant)",
                    name, len);
    if (is_acquire && *holder != NO_HOLDER)
        return fail(ps, "acquire of a lock held by another thread", name, len);
    if (!is_acquire && *holder != tid)
        return fail(ps, "release of a lock this thread does not hold", name, len);
    *holder = is_acquire ? tid : NO_HOLDER;
    append_event(ps, is_acquire ? RP_EV_ACQUIRE : RP_EV_RELEASE, tid, lock, 0);
    return true;
}

static bool access_event(parser *ps, scan *s, uint32_t tid, bool is_write)
{
    const char *name;
    size_t len;
    if (!parse_argument_name(ps, s, &name, &len))
        return false;
    uint32_t var = name_intern(&ps->vars, name, len);
    ps->trace->n_vars = ps->vars.count;
    append_event(ps, is_write ? RP_EV_WRITE : RP_EV_READ, tid, rp_trace_var_addr(var), 1);
    return true;
}

static bool fork_event(parser *ps, scan *s, uint32_t tid)
{
    uint32_t child;
    if (!parse_argument_thread(ps, s, &child))
        return false;
    if (child == tid)
        return fail_thread(ps, "a thread cannot fork itself:", tid);
    if (ps->thread_states[child].started)
        return fail_thread(ps, "fork of a thread that has already started:", child);
    ps->thread_states[child].started = true;
    append_event(ps, RP_EV_FORK, tid, child, 0);
    return true;
}

static bool join_event(parser *ps, scan *s, uint32_t tid)
{
    uint32_t known_threads = ps->threads.count;
    uint32_t child;
    if (!parse_argument_thread(ps, s, &child))
        return false;
    if (child >= known_threads)
        return fail_thread(ps, "join of an unknown thread:", child);
    if (child == tid)
        return fail_thread(ps, "a thread cannot join itself:", tid);
    if (ps->thread_states[child].joined)
        return fail_thread(ps, "thread joined twice:", child);
    ps->thread_states[child].joined = true;
    append_event(ps, RP_EV_JOIN, tid, child, 0);
    return true;
}

static bool operation(parser *ps, scan *s, uint32_t tid)
{
    size_t len = name_length(s);
    const char *op = s->p;
    s->p += len;
    if (len == 1 && (op[0] == 'w' || op[0] == 'r'))
        return access_event(ps, s, tid, op[0] == 'w');
    if (len == 3 && (rp_memcmp(op, "acq", 3) == 0 || rp_memcmp(op, "rel", 3) == 0))
        return lock_event(ps, s, tid, op[0] == 'a');
    if (len == 4 && rp_memcmp(op, "fork", 4) == 0)
        return fork_event(ps, s, tid);
    if (len == 4 && rp_memcmp(op, "join", 4) == 0)
        return join_event(ps, s, tid);
    if (len == 2 && rp_memcmp(op, "br", 2) == 0) {
        append_event(ps, RP_EV_BRANCH, tid, 0, 0);
        return true;
    }
    if (len == 0)
        return fail(ps, "missing operation", NULL, 0);
    return fail(ps, "unknown operation", op, len);
}

static bool event_line(parser *ps, scan *s)
{
    uint32_t tid;
    if (!parse_thread(ps, s, &tid))
        return false;
    if (at_end(s) || !is_space(*s->p))
        return fail(ps, "expected a space after the thread name", NULL, 0);
    skip_spaces(s);
    if (ps->thread_states[tid].joined)
        return fail_thread(ps, "event of a thread after it was joined:", tid);
    if (!operation(ps, s, tid))
        return false;
    ps->thread_states[tid].started = true;
    skip_spaces(s);
    if (!at_end(s))
        return fail(ps, "trailing junk", s->p, (size_t)(s->end - s->p));
    return true;
}

/* ---- expect lines ----------------------------------------------------------------- */

static uint64_t pair_key(const rp_trace_pair *p)
{
    return (uint64_t)p->first << 32 | p->second;
}

static bool parse_pair(parser *ps, scan *s, rp_trace_pair *pair)
{
    if (!parse_number(ps, s, &pair->first))
        return false;
    if (!accept(s, "-"))
        return fail(ps, "bad pair in expect line (expected I-J)", NULL, 0);
    if (!parse_number(ps, s, &pair->second))
        return false;
    if (pair->first == 0 || pair->first >= pair->second)
        return fail(ps, "bad pair in expect line (need 1 <= I < J)", NULL, 0);
    return true;
}

static bool parse_pairs(parser *ps, scan *s, rp_trace_expect *x)
{
    uint32_t cap = 0;
    if (accept(s, "none"))
        return true;
    for (;;) {
        x->pairs = rp_array_reserve("rp.trace.array", x->pairs, x->n_pairs, &cap,
                                    sizeof(rp_trace_pair));
        if (!parse_pair(ps, s, &x->pairs[x->n_pairs]))
            return false;
        x->n_pairs++;
        if (at_end(s) || !is_space(*s->p))
            return true;
        skip_spaces(s);
        if (at_end(s) || *s->p == ';')
            return true;
    }
}

static void sort_pairs(rp_trace_expect *x)
{
    uint64_t *keys = rp_malloc("rp.trace.sort", (x->n_pairs + 1) * sizeof(uint64_t));
    for (uint32_t i = 0; i < x->n_pairs; i++)
        keys[i] = pair_key(&x->pairs[i]);
    x->n_pairs = (uint32_t)sort_unique_u64(keys, x->n_pairs);
    for (uint32_t i = 0; i < x->n_pairs; i++) {
        x->pairs[i].first = (uint32_t)(keys[i] >> 32);
        x->pairs[i].second = (uint32_t)keys[i];
    }
    rp_free(keys);
}

static bool parse_expect_body(parser *ps, scan *s, rp_trace_expect *x)
{
    size_t len = name_length(s);
    if (len == 0)
        return fail(ps, "bad expect line: missing relation name", NULL, 0);
    x->relation = copy_string(s->p, len);
    s->p += len;
    if (!accept(s, ":"))
        return fail(ps, "bad expect line: missing ':' after the relation", NULL, 0);
    skip_spaces(s);
    if (!parse_pairs(ps, s, x))
        return false;
    skip_spaces(s);
    if (!accept(s, ";"))
        return fail(ps, "bad expect line: missing ' ; TAG'", NULL, 0);
    skip_spaces(s);
    len = name_length(s);
    if (len == 0)
        return fail(ps, "bad expect line: missing tag after ';'", NULL, 0);
    x->tag = copy_string(s->p, len);
    s->p += len;
    skip_spaces(s);
    if (!at_end(s))
        return fail(ps, "trailing junk", s->p, (size_t)(s->end - s->p));
    return true;
}

static bool expect_line(parser *ps, scan *s)
{
    rp_trace *t = ps->trace;
    t->expects = rp_array_reserve("rp.trace.array", t->expects, t->n_expects, &ps->cap_expects,
                                  sizeof(rp_trace_expect));
    rp_trace_expect *x = &t->expects[t->n_expects++];
    rp_memset(x, 0, sizeof *x);
    x->line = ps->line;
    if (!parse_expect_body(ps, s, x))
        return false;
    sort_pairs(x);
    for (uint32_t i = 0; i + 1 < t->n_expects; i++)
        if (rp_strcmp(t->expects[i].relation, x->relation) == 0)
            return fail(ps, "second expect line for relation", x->relation,
                        rp_strlen(x->relation));
    return true;
}

/* ---- lines and the whole buffer ----------------------------------------------- */

static bool parse_line(parser *ps, scan *s)
{
    skip_spaces(s);
    if (at_end(s))
        return true;
    if (*s->p == '#')
        return accept(s, "# expect ") ? expect_line(ps, s) : true;
    return event_line(ps, s);
}

/* Expected pairs must name positions of the trace. */
static bool check_expect_positions(parser *ps)
{
    const rp_trace *t = ps->trace;
    for (uint32_t i = 0; i < t->n_expects; i++) {
        const rp_trace_expect *x = &t->expects[i];
        if (x->n_pairs != 0 && x->pairs[x->n_pairs - 1].second > t->n_events) {
            ps->line = x->line;
            return fail(ps, "expect line names a position past the last event for",
                        x->relation, rp_strlen(x->relation));
        }
    }
    return true;
}

static bool parse_lines(parser *ps, const char *text, size_t len)
{
    const char *end = text + len;
    for (const char *p = text; p < end; ps->line++) {
        const char *eol = p;
        while (eol < end && *eol != '\n')
            eol++;
        scan s = { p, eol };
        if (!parse_line(ps, &s))
            return false;
        p = eol + (eol < end);
    }
    return check_expect_positions(ps);
}

static char **take_names(name_table *t)
{
    char **names = t->names;
    t->names = NULL;
    t->count = 0;
    return names;
}

bool rp_trace_parse(const char *text, size_t len, rp_trace *trace, rp_trace_error *err)
{
    parser ps;
    rp_memset(&ps, 0, sizeof ps);
    rp_memset(trace, 0, sizeof *trace);
    rp_memset(err, 0, sizeof *err);
    ps.trace = trace;
    ps.err = err;
    ps.line = 1;
    bool ok = parse_lines(&ps, text, len);
    trace->var_names = take_names(&ps.vars);
    trace->lock_names = take_names(&ps.locks);
    trace->thread_names = take_names(&ps.threads);
    name_table_free(&ps.vars);
    name_table_free(&ps.locks);
    name_table_free(&ps.threads);
    rp_free(ps.lock_holder);
    rp_free(ps.thread_states);
    if (!ok)
        rp_trace_free(trace);
    return ok;
}

static void free_names(char **names, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        rp_free(names[i]);
    rp_free(names);
}

void rp_trace_free(rp_trace *trace)
{
    rp_free(trace->events);
    free_names(trace->var_names, trace->n_vars);
    free_names(trace->lock_names, trace->n_locks);
    free_names(trace->thread_names, trace->n_threads);
    for (uint32_t i = 0; i < trace->n_expects; i++) {
        rp_free(trace->expects[i].relation);
        rp_free(trace->expects[i].tag);
        rp_free(trace->expects[i].pairs);
    }
    rp_free(trace->expects);
    rp_memset(trace, 0, sizeof *trace);
}

const char *rp_trace_var_name(const rp_trace *trace, uint64_t addr)
{
    if (addr < RP_TRACE_VAR_BASE || (addr - RP_TRACE_VAR_BASE) % 8 != 0)
        return NULL;
    uint64_t var = (addr - RP_TRACE_VAR_BASE) / 8;
    return var < trace->n_vars ? trace->var_names[var] : NULL;
}

const rp_trace_expect *rp_trace_find_expect(const rp_trace *trace, const char *relation)
{
    for (uint32_t i = 0; i < trace->n_expects; i++)
        if (rp_strcmp(trace->expects[i].relation, relation) == 0)
            return &trace->expects[i];
    return NULL;
}
