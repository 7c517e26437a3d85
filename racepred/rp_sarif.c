/* rp_sarif.c — SARIF 2.1.0 output (rp_sarif.h). */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_execontext.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_xarray.h"

#include "rp_detector.h"
#include "rp_outfile.h"
#include "rp_sarif.h"
#include "rp_wreport.h"

#define RP_SARIF_SCHEMA \
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#define RP_SARIF_PATH_MAX 4096

typedef struct {
    rp_sarif_race race;
    ULong count;
} sarif_record;

static rp_outfile file;
static Bool keeping;
static XArray *records;     /* of sarif_record */
static const HChar *srcroot; /* the start directory, ending in '/' */

Bool rp_sarif_open(const HChar *value)
{
    if (!rp_outfile_open(&file, "--sarif-file", value))
        return False;
    records = VG_(newXA)(VG_(malloc), "rp.sarif.records", VG_(free),
                         sizeof(sarif_record));
    keeping = True;
    return True;
}

UInt rp_sarif_add(const rp_sarif_race *race)
{
    sarif_record r;

    if (!keeping)
        return 0;
    r.race = *race;
    r.count = 1;
    return (UInt)VG_(addToXA)(records, &r) + 1;
}

void rp_sarif_repeat(UInt handle, UInt found_by)
{
    sarif_record *rec;

    if (handle == 0 || !keeping)
        return;
    rec = VG_(indexXA)(records, handle - 1);
    rec->count++;
    rec->race.found_by |= found_by;
}

/* ---- JSON ---------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static UInt utf8_length(const UChar *s)
{
    UInt n, i;
    UInt c = s[0];

    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4;
    else
        return 0;
    for (i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    /* Overlong three- and four-byte forms, surrogates, beyond U+10FFFF. */
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0)
        || (c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))
        return 0;
    return n;
}

/* A JSON string literal: quotes, backslash and control characters escaped,
 * valid UTF-8 kept, any other byte replaced by U+FFFD. */
static void json_string(const HChar *s)
{
    const UChar *p = (const UChar *)s;

    rp_outfile_puts(&file, "\"");
    while (*p != 0) {
        UInt n;

        if (*p == '"' || *p == '\\') {
            rp_outfile_printf(&file, "\\%c", *p++);
        } else if (*p < 0x20) {
            rp_outfile_printf(&file, "\\u%04x", *p++);
        } else if (*p < 0x80) {
            rp_outfile_write(&file, p++, 1);
        } else if ((n = utf8_length(p)) != 0) {
            rp_outfile_write(&file, p, n);
            p += n;
        } else {
            rp_outfile_puts(&file, "\\ufffd");
            p++;
        }
    }
    rp_outfile_puts(&file, "\"");
}

/* "key": "value" with both escaped. */
static void json_field(const HChar *key, const HChar *value)
{
    json_string(key);
    rp_outfile_puts(&file, ": ");
    json_string(value);
}

/* ---- Locations ----------------------------------------------------- */

/* Percent-encodes what RFC 3986 does not allow in a path. */
static void uri_append(HChar *out, SizeT size, const HChar *path)
{
    SizeT n = VG_(strlen)(out);
    const UChar *p;

    for (p = (const UChar *)path; *p != 0 && n + 4 < size; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')
            || (*p >= '0' && *p <= '9') || VG_(strchr)("/-._~!$&'()*+,;=:@", *p) != NULL)
            out[n++] = (HChar)*p;
        else
            n += VG_(snprintf)(out + n, size - n, "%%%02X", *p);
    }
    out[n] = '\0';
}

/* The artifactLocation of a source file: relative to %SRCROOT% when it is
 * under the start directory (or when nothing says where it is). */
static void artifact_location(const HChar *dir, const HChar *name)
{
    HChar path[RP_SARIF_PATH_MAX];
    HChar uri[3 * RP_SARIF_PATH_MAX];
    SizeT root = VG_(strlen)(srcroot);

    if (name[0] == '/' || dir[0] == '\0')
        VG_(snprintf)(path, sizeof path, "%s", name);
    else
        VG_(snprintf)(path, sizeof path, "%s/%s", dir, name);
    uri[0] = '\0';
    rp_outfile_puts(&file, "\"artifactLocation\": {");
    if (path[0] != '/' || VG_(strncmp)(path, srcroot, root) == 0) {
        uri_append(uri, sizeof uri, path[0] == '/' ? path + root : path);
        json_field("uri", uri);
        rp_outfile_puts(&file, ", ");
        json_field("uriBaseId", "%SRCROOT%");
    } else {
        VG_(strcpy)(uri, "file://");
        uri_append(uri, sizeof uri, path);
        json_field("uri", uri);
    }
    rp_outfile_puts(&file, "}");
}

/* A location object for one code address: file and line when known, the
 * address always, the function as a logical location; `id` (if not 0) and
 * `message` (if not NULL) for related locations. */
static void code_location(DiEpoch ep, Addr ip, UInt id, const HChar *message)
{
    const HChar *fn, *name, *dir;
    UInt line;

    rp_outfile_puts(&file, "{");
    if (id != 0)
        rp_outfile_printf(&file, "\"id\": %u, ", id);
    if (message != NULL) {
        rp_outfile_puts(&file, "\"message\": {");
        json_field("text", message);
        rp_outfile_puts(&file, "}, ");
    }
    rp_outfile_puts(&file, "\"physicalLocation\": {");
    if (VG_(get_filename_linenum)(ep, ip, &name, &dir, &line)) {
        artifact_location(dir, name);
        rp_outfile_printf(&file, ", \"region\": {\"startLine\": %u}, ",
                          line > 0 ? line : 1);
    }
    rp_outfile_printf(&file, "\"address\": {\"absoluteAddress\": %lu}}", ip);
    if (VG_(get_fnname)(ep, ip, &fn)) {
        rp_outfile_puts(&file, ", \"logicalLocations\": [{");
        json_field("name", fn);
        rp_outfile_puts(&file, ", \"kind\": \"function\"}]");
    }
    rp_outfile_puts(&file, "}");
}

typedef struct {
    Addr *ips;
    UInt n;
    UInt max;
} frames;

static void collect_ip(UInt n, DiEpoch ep, Addr ip, void *opaque)
{
    frames *f = opaque;

    (void)ep;
    if (n < f->max)
        f->ips[f->n++] = ip;
}

/* The frames of an ExeContext as the report prints them (to main). */
static frames get_frames(ExeContext *ec)
{
    UInt max = (UInt)VG_(get_ExeContext_n_ips)(ec);
    frames f = { VG_(malloc)("rp.sarif.frames", (max + 1) * sizeof(Addr)), 0, max };

    VG_(apply_ExeContext)(collect_ip, &f, ec);
    return f;
}

/* The innermost frame with a file and line, else the innermost. */
static Addr best_frame(ExeContext *ec)
{
    frames f = get_frames(ec);
    DiEpoch ep = VG_(get_ExeContext_epoch)(ec);
    const HChar *name, *dir;
    UInt line, i;
    Addr best = f.n > 0 ? f.ips[0] : 0;

    for (i = 0; i < f.n; i++)
        if (VG_(get_filename_linenum)(ep, f.ips[i], &name, &dir, &line)) {
            best = f.ips[i];
            break;
        }
    VG_(free)(f.ips);
    return best;
}

static void stack(ExeContext *ec, const HChar *message)
{
    frames f = get_frames(ec);
    DiEpoch ep = VG_(get_ExeContext_epoch)(ec);
    UInt i;

    rp_outfile_puts(&file, "{\"message\": {");
    json_field("text", message);
    rp_outfile_puts(&file, "}, \"frames\": [");
    for (i = 0; i < f.n; i++) {
        const HChar *obj;

        rp_outfile_puts(&file, i == 0 ? "{" : ", {");
        if (VG_(get_objname)(ep, f.ips[i], &obj)) {
            json_field("module", obj);
            rp_outfile_puts(&file, ", ");
        }
        rp_outfile_puts(&file, "\"location\": ");
        code_location(ep, f.ips[i], 0, NULL);
        rp_outfile_puts(&file, "}");
    }
    rp_outfile_puts(&file, "]}");
    VG_(free)(f.ips);
}

/* ---- Results ------------------------------------------------------- */

static const HChar *kind(const rp_sarif_access *a)
{
    return rp_access_kind(a->is_write, a->is_free);
}

static void describe_access(HChar *buf, SizeT size, const rp_sarif_access *a,
                            const HChar *what)
{
    VG_(snprintf)(buf, size, "%s%s of size %u by thread #%u", what,
                  kind(a), a->size, a->thread);
}

static void access_properties(const HChar *key, const rp_sarif_access *a)
{
    UInt i;

    rp_outfile_printf(&file, "\"%s\": {\"kind\": \"%s\", \"size\": %u, "
                      "\"thread\": %u, \"locksHeld\": ", key, kind(a),
                      a->size, a->thread);
    if (a->locks_unknown) {
        rp_outfile_puts(&file, "null}");
        return;
    }
    rp_outfile_puts(&file, "[");
    for (i = 0; i < a->n_locks; i++)
        rp_outfile_printf(&file, "%s\"%#lx\"", i == 0 ? "" : ", ", a->locks[i]);
    rp_outfile_puts(&file, "]}");
}

static void result_message(const rp_sarif_race *r)
{
    HChar text[512];

    VG_(snprintf)(text, sizeof text, "Data race (%s, %s) during %s of size %u "
                  "at %#lx by thread #%u; it conflicts with a previous %s of "
                  "size %u by thread #%u", r->detector,
                  r->status, kind(&r->access),
                  r->access.size, r->addr, r->access.thread,
                  kind(&r->previous), r->previous.size, r->previous.thread);
    rp_outfile_puts(&file, "\"message\": {");
    json_field("text", text);
    rp_outfile_puts(&file, "}");
}

static void related_locations(const rp_sarif_race *r)
{
    HChar text[256];
    ExeContext *prev = r->previous.where;

    /* --history-level=none and no heap block: nothing to relate. */
    if (prev == NULL && r->allocated_at == NULL)
        return;
    describe_access(text, sizeof text, &r->previous, "previous ");
    rp_outfile_puts(&file, ",\n   \"relatedLocations\": [");
    if (prev != NULL)
        code_location(VG_(get_ExeContext_epoch)(prev), best_frame(prev), 1, text);
    if (r->allocated_at != NULL) {
        VG_(snprintf)(text, sizeof text, "allocation of the block of size %lu "
                      "(the address is %ld bytes inside)", r->block_size,
                      r->block_offset);
        if (prev != NULL)
            rp_outfile_puts(&file, ", ");
        code_location(VG_(get_ExeContext_epoch)(r->allocated_at),
                      best_frame(r->allocated_at), 2, text);
    }
    rp_outfile_puts(&file, "]");
}

static void stacks(const rp_sarif_race *r)
{
    HChar text[256];

    rp_outfile_puts(&file, ",\n   \"stacks\": [");
    describe_access(text, sizeof text, &r->access, "");
    stack(r->access.where, text);
    if (r->previous.where != NULL) {
        describe_access(text, sizeof text, &r->previous, "previous ");
        rp_outfile_puts(&file, ", ");
        stack(r->previous.where, text);
    }
    if (r->allocated_at != NULL) {
        rp_outfile_puts(&file, ", ");
        stack(r->allocated_at, "allocation");
    }
    rp_outfile_puts(&file, "]");
}

/* The witness as one threadFlow: its key steps, then the adjacent
 * accesses (rp_wreport.h). */
static void code_flow(const rp_sarif_race *r)
{
    const rp_witness_desc *d = r->witness;
    ExeContext *where = r->access.where;
    HChar text[700];
    UInt k;

    if (d == NULL)
        return;
    rp_outfile_puts(&file, ",\n   \"codeFlows\": [{\"message\": {");
    json_field("text", "witness: a reordering of this run in which the accesses are adjacent");
    rp_outfile_puts(&file, "}, \"threadFlows\": [{\"locations\": [");
    for (k = 0; rp_wreport_step(d, k, text, sizeof text); k++) {
        Addr ip = k < d->n_steps ? (Addr)(d->steps[k].site & 0xFFFFFFFFFFFFULL)
                                 : best_frame(where);

        rp_outfile_puts(&file, k == 0 ? "{\"location\": " : ", {\"location\": ");
        if (ip != 0) {
            code_location(k < d->n_steps ? VG_(current_DiEpoch)()
                                         : VG_(get_ExeContext_epoch)(where),
                          ip, 0, text);
        } else {
            rp_outfile_puts(&file, "{\"message\": {");
            json_field("text", text);
            rp_outfile_puts(&file, "}}");
        }
        rp_outfile_puts(&file, "}");
    }
    rp_outfile_puts(&file, "]}]}]");
}

/* , "foundBy": ["hb", "wcp"] (registry order). */
static void found_by(UInt mask)
{
    const HChar *sep = "";
    UInt i;

    rp_outfile_puts(&file, ", \"foundBy\": [");
    for (i = 0; i < rp_detector_count(); i++) {
        if (mask & (1u << i)) {
            rp_outfile_printf(&file, "%s\"%s\"", sep, rp_detector_at(i)->name);
            sep = ", ";
        }
    }
    rp_outfile_puts(&file, "]");
}

static void result(const sarif_record *rec)
{
    const rp_sarif_race *r = &rec->race;
    ExeContext *where = r->access.where;

    rp_outfile_puts(&file, "  {\"ruleId\": \"data-race\", \"ruleIndex\": 0, "
                    "\"level\": \"error\",\n   ");
    result_message(r);
    rp_outfile_puts(&file, ",\n   \"locations\": [");
    code_location(VG_(get_ExeContext_epoch)(where), best_frame(where), 0, NULL);
    rp_outfile_puts(&file, "]");
    related_locations(r);
    stacks(r);
    code_flow(r);
    rp_outfile_printf(&file, ",\n   \"occurrenceCount\": %llu,\n   \"properties\": {",
                      rec->count);
    json_field("detector", r->detector);
    found_by(r->found_by);
    rp_outfile_puts(&file, ", ");
    json_field("status", r->status);
    rp_outfile_printf(&file, ", \"observed\": %s, \"address\": \"%#lx\", ",
                      r->observed ? "true" : "false", r->addr);
    access_properties("access", &r->access);
    rp_outfile_puts(&file, ", ");
    access_properties("previousAccess", &r->previous);
    rp_outfile_puts(&file, "}}");
}

static void driver(void)
{
    rp_outfile_puts(&file,
"   \"tool\": {\"driver\": {\"name\": \"racepred\", \"version\": \"" RP_VERSION_STRING "\",\n"
"    \"rules\": [{\"id\": \"data-race\", \"name\": \"DataRace\",\n"
"     \"shortDescription\": {\"text\": \"Data race\"},\n"
"     \"fullDescription\": {\"text\": \"Two threads access the same memory, at least one of them writes, and no synchronisation orders the accesses (observed), or another schedule of the program would make them adjacent (predicted).\"},\n"
"     \"help\": {\"text\": \"Order the two accesses: protect both with the same lock, or hand the data over through a synchronisation the program already uses (join, condition variable, semaphore, atomic). The stacks show both accesses; the detector named in the properties says how the race was found. If the race is intended, annotate it (ANNOTATE_BENIGN_RACE) or suppress it with a racepred:Race suppression.\",\n"
"              \"markdown\": \"Order the two accesses: protect both with the same lock, or hand the data over through a synchronisation the program already uses (`pthread_join`, a condition variable, a semaphore, an atomic). The stacks show both accesses. An intended race can be annotated (`ANNOTATE_BENIGN_RACE`) or suppressed (`racepred:Race` in a suppression file).\"},\n"
"     \"defaultConfiguration\": {\"level\": \"error\"},\n"
"     \"properties\": {\"tags\": [\"concurrency\", \"reliability\"], \"precision\": \"high\", \"problem.severity\": \"error\"}}]}},\n");
}

static void original_uri_base_ids(void)
{
    HChar uri[3 * RP_SARIF_PATH_MAX];

    VG_(strcpy)(uri, "file://");
    uri_append(uri, sizeof uri, srcroot);
    rp_outfile_puts(&file, "   \"originalUriBaseIds\": {\"%SRCROOT%\": {");
    json_field("uri", uri);
    rp_outfile_puts(&file, "}},\n");
}

void rp_sarif_finish(void)
{
    Word i, n;
    HChar *root;

    if (!keeping)
        return;
    keeping = False;
    root = VG_(malloc)("rp.sarif.root", VG_(strlen)(VG_(get_startup_wd)()) + 2);
    VG_(strcpy)(root, VG_(get_startup_wd)());
    if (root[0] == '\0' || root[VG_(strlen)(root) - 1] != '/')
        VG_(strcat)(root, "/");
    srcroot = root;
    rp_outfile_puts(&file, "{\"$schema\": \"" RP_SARIF_SCHEMA "\",\n"
                    " \"version\": \"2.1.0\",\n \"runs\": [{\n");
    driver();
    original_uri_base_ids();
    rp_outfile_puts(&file, "   \"columnKind\": \"utf16CodeUnits\",\n   \"results\": [\n");
    n = VG_(sizeXA)(records);
    for (i = 0; i < n; i++) {
        result(VG_(indexXA)(records, i));
        rp_outfile_puts(&file, i + 1 < n ? ",\n" : "\n");
    }
    rp_outfile_puts(&file, "  ]}]}\n");
    rp_outfile_close(&file);
    VG_(deleteXA)(records);
    VG_(free)(root);
}
