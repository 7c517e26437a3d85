/* rp_stdtrace.c — RAPID STD traces through the text reader (rp_stdtrace.h).
 *
 * Two passes over the lines: the first checks the syntax of every line and
 * interns the names (threads, variables, locks: three tables), the second
 * writes the equivalent text-format line (or an empty one) for each line.
 */
#include "rp_stdtrace.h"

#include "rp_array.h"
#include "rp_shim.h"
#include "rp_u64map.h"

typedef struct names {
    char **v;
    uint32_t n, cap;
    rp_u64map index;    /* FNV-1a hash -> name number + 1 */
    bool all_plain;     /* every name fits the text format */
} names;

typedef struct std_line {
    const char *thread, *op, *obj;
    size_t thread_len, op_len, obj_len;
} std_line;

typedef struct outbuf {
    char *p;
    size_t n, cap;
} outbuf;

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static bool is_plain(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool same(const char *a, size_t alen, const char *b)
{
    return rp_strlen(b) == alen && rp_memcmp(a, b, alen) == 0;
}

static uint64_t hash(const char *s, size_t len)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static uint32_t intern(names *t, const char *s, size_t len)
{
    uint64_t h = hash(s, len);
    uintptr_t k = (uintptr_t)u64map_get(&t->index, h);
    if (k != 0 && same(s, len, t->v[k - 1]))
        return (uint32_t)k - 1;
    for (uint32_t i = 0; k != 0 && i < t->n; i++)   /* hash collision */
        if (same(s, len, t->v[i]))
            return i;
    t->v = rp_array_reserve_from("rp.std", t->v, t->n, &t->cap, sizeof *t->v, 16);
    char *copy = rp_malloc("rp.std", len + 1);
    rp_memcpy(copy, s, len);
    copy[len] = '\0';
    t->v[t->n] = copy;
    if (k == 0)
        u64map_put(&t->index, h, (void *)(uintptr_t)(t->n + 1));
    return t->n++;
}

static void names_free(names *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        rp_free(t->v[i]);
    rp_free(t->v);
    u64map_free(&t->index);
}

static bool fail(rp_trace_error *err, unsigned line, const char *message)
{
    size_t n = rp_strlen(message);
    if (n >= RP_TRACE_MESSAGE_MAX)
        n = RP_TRACE_MESSAGE_MAX - 1;
    err->line = line;
    rp_memcpy(err->message, message, n);
    err->message[n] = '\0';
    return false;
}

static bool name_ok(const char *s, size_t len)
{
    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '|' || s[i] == '(' || s[i] == ')' || is_blank(s[i]))
            return false;
    return true;
}

/* Splits one non-empty line; false with a message on a syntax error. */
static bool split(const char *s, const char *end, std_line *l, rp_trace_error *err, unsigned line)
{
    const char *bar = s;
    while (bar < end && *bar != '|')
        bar++;
    if (bar == end)
        return fail(err, line, "expected THREAD|OP(OBJECT)|LOCATION");
    l->thread = s;
    l->thread_len = (size_t)(bar - s);
    if (!name_ok(l->thread, l->thread_len))
        return fail(err, line, "bad thread name before the first '|'");
    const char *op = bar + 1, *paren = op;
    while (paren < end && *paren != '(' && *paren != '|')
        paren++;
    if (paren == end || *paren != '(')
        return fail(err, line, "expected OP(OBJECT) after the first '|'");
    l->op = op;
    l->op_len = (size_t)(paren - op);
    const char *close = paren + 1;
    while (close < end && *close != ')' && *close != '|')
        close++;
    if (close == end || *close != ')')
        return fail(err, line, "missing ')' after the object");
    l->obj = paren + 1;
    l->obj_len = (size_t)(close - l->obj);
    if (!name_ok(l->obj, l->obj_len))
        return fail(err, line, "bad or empty object name");
    static const char *const ops[] = { "r", "w", "acq", "rel", "fork", "join" };
    bool known = false;
    for (unsigned k = 0; k < 6; k++)
        known |= same(l->op, l->op_len, ops[k]);
    if (!known)
        return fail(err, line, "unknown operation (known: r, w, acq, rel, fork, join)");
    const char *rest = close + 1;
    if (rest < end && *rest != '|')
        return fail(err, line, "expected '|' after OP(OBJECT)");
    if (rest < end) {
        for (const char *q = rest + 1; q < end; q++)
            if (*q == '|')
                return fail(err, line, "too many '|' fields (expected THREAD|OP(OBJECT)|LOCATION)");
    }
    return true;
}

static bool thread_number(const char *s, size_t len)
{
    if (len < 2 || len > 10 || s[0] != 'T')
        return false;
    for (size_t i = 1; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

static void note_plain(names *t, const char *s, size_t len, bool thread)
{
    bool ok = thread ? thread_number(s, len) : true;
    for (size_t i = 0; !thread && i < len; i++)
        ok &= is_plain(s[i]);
    if (!ok)
        t->all_plain = false;
}

static void put(outbuf *o, const char *s, size_t len)
{
    if (o->n + len + 1 > o->cap) {
        while (o->n + len + 1 > o->cap)
            o->cap = o->cap == 0 ? 4096 : 2 * o->cap;
        o->p = rp_realloc("rp.std", o->p, o->cap);
    }
    rp_memcpy(o->p + o->n, s, len);
    o->n += len;
}

static void put_u32(outbuf *o, uint32_t v)
{
    char buf[12];
    size_t n = 0;
    do {
        buf[sizeof buf - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    put(o, buf + sizeof buf - n, n);
}

/* A name as the text format sees it: itself, or prefix + number. */
static void put_name(outbuf *o, names *t, const char *s, size_t len, const char *prefix)
{
    if (t->all_plain) {
        put(o, s, len);
        return;
    }
    put(o, prefix, rp_strlen(prefix));
    put_u32(o, intern(t, s, len));
}

typedef bool (*line_fn)(void *ctx, const char *s, const char *end, unsigned line);

/* Calls fn on every line (trimmed); blank and '#' lines get s == end. */
static bool for_each_line(const char *text, size_t len, line_fn fn, void *ctx)
{
    const char *p = text, *stop = text + len;
    for (unsigned line = 1; p < stop; line++) {
        const char *eol = p;
        while (eol < stop && *eol != '\n')
            eol++;
        const char *s = p, *e = eol;
        while (s < e && is_blank(*s))
            s++;
        while (e > s && is_blank(e[-1]))
            e--;
        if (s < e && *s == '#')
            e = s;
        if (!fn(ctx, s, e, line))
            return false;
        p = eol < stop ? eol + 1 : eol;
    }
    return true;
}

typedef struct std_state {
    names threads, vars, locks;
    outbuf out;
    rp_trace_error *err;
} std_state;

static bool first_pass(void *ctx, const char *s, const char *end, unsigned line)
{
    std_state *st = ctx;
    std_line l;
    if (s == end)
        return true;
    if (!split(s, end, &l, st->err, line))
        return false;
    note_plain(&st->threads, l.thread, l.thread_len, true);
    if (l.op[0] == 'f' || l.op[0] == 'j')
        note_plain(&st->threads, l.obj, l.obj_len, true);
    else if (l.op[0] == 'r' && l.op_len == 1)
        note_plain(&st->vars, l.obj, l.obj_len, false);
    else if (l.op[0] == 'w')
        note_plain(&st->vars, l.obj, l.obj_len, false);
    else
        note_plain(&st->locks, l.obj, l.obj_len, false);
    return true;
}

static bool second_pass(void *ctx, const char *s, const char *end, unsigned line)
{
    std_state *st = ctx;
    std_line l;
    (void)line;
    if (s != end) {
        split(s, end, &l, st->err, line);
        put_name(&st->out, &st->threads, l.thread, l.thread_len, "T");
        put(&st->out, " ", 1);
        put(&st->out, l.op, l.op_len);
        put(&st->out, "(", 1);
        bool is_thread = l.op[0] == 'f' || l.op[0] == 'j';
        bool is_var = !is_thread && (l.op[0] == 'w' || l.op_len == 1);
        put_name(&st->out, is_thread ? &st->threads : is_var ? &st->vars : &st->locks, l.obj,
                 l.obj_len, is_thread ? "T" : is_var ? "v" : "l");
        put(&st->out, ")", 1);
    }
    put(&st->out, "\n", 1);
    return true;
}

/* Puts the STD names back into a table of the parsed trace. */
static void restore(char **table, uint32_t count, const names *t)
{
    for (uint32_t i = 0; i < count; i++) {
        const char *alias = table[i] + 1;
        uint32_t k = 0;
        while (*alias >= '0' && *alias <= '9')
            k = k * 10 + (uint32_t)(*alias++ - '0');
        if (k >= t->n)
            continue;
        size_t len = rp_strlen(t->v[k]);
        rp_free(table[i]);
        table[i] = rp_malloc("rp.trace.name", len + 1);
        rp_memcpy(table[i], t->v[k], len + 1);
    }
}

bool rp_std_detect(const char *text, size_t len)
{
    const char *p = text, *stop = text + len;
    while (p < stop) {
        while (p < stop && (is_blank(*p) || *p == '\n'))
            p++;
        if (p < stop && *p == '#') {
            while (p < stop && *p != '\n')
                p++;
            continue;
        }
        for (; p < stop && *p != '\n'; p++)
            if (*p == '|')
                return true;
        return false;
    }
    return false;
}

bool rp_std_parse(const char *text, size_t len, rp_trace *trace, rp_trace_error *err)
{
    std_state st;
    rp_memset(&st, 0, sizeof st);
    rp_memset(trace, 0, sizeof *trace);
    st.err = err;
    st.threads.all_plain = st.vars.all_plain = st.locks.all_plain = true;
    u64map_init(&st.threads.index);
    u64map_init(&st.vars.index);
    u64map_init(&st.locks.index);
    bool ok = for_each_line(text, len, first_pass, &st);
    if (ok) {
        for_each_line(text, len, second_pass, &st);
        ok = rp_trace_parse(st.out.p == NULL ? "" : st.out.p, st.out.n, trace, err);
    }
    if (ok) {
        if (!st.threads.all_plain)
            restore(trace->thread_names, trace->n_threads, &st.threads);
        if (!st.vars.all_plain)
            restore(trace->var_names, trace->n_vars, &st.vars);
        if (!st.locks.all_plain)
            restore(trace->lock_names, trace->n_locks, &st.locks);
    }
    rp_free(st.out.p);
    names_free(&st.threads);
    names_free(&st.vars);
    names_free(&st.locks);
    return ok;
}
