#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gpuplan/catalog_load.h"
#include "gpuplan/output.h"
#include "gpuplan/scenario_json.h"

/* ---- the terminal guard ------------------------------------------------------------------- */

/* A stream over a terminal's file descriptor that drops control characters on the way out:
 * C0 but newline, tab and carriage return (the download progress line), DEL, and C1
 * (U+0080..U+009F as UTF-8, whose two bytes can straddle writes). */
typedef struct guard {
    int fd;
    bool lead; /* a 0xC2 byte held back from the last write */
} guard;

static void guard_put(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w, n -= (size_t)w;
    }
}

static ssize_t guard_write(void *cookie, const char *buf, size_t n) {
    guard *g = cookie;
    char out[4096];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (g->lead) {
            g->lead = false;
            if (c >= 0x80 && c <= 0x9f)
                continue; /* C1: dropped with its lead byte */
            out[k++] = (char)0xc2;
        }
        if (c == 0xc2) {
            g->lead = true;
            continue;
        }
        if ((c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f)
            continue;
        out[k++] = (char)c;
        if (k >= sizeof out - 1) {
            guard_put(g->fd, out, k);
            k = 0;
        }
    }
    guard_put(g->fd, out, k);
    return (ssize_t)n;
}

static FILE *guarded(int fd, int mode) {
    static guard gs[2];
    guard *g = &gs[fd == STDERR_FILENO];
    g->fd = fd;
    FILE *f = fopencookie(g, "w", (cookie_io_functions_t){.write = guard_write});
    if (f)
        setvbuf(f, NULL, mode, 0);
    return f;
}

void cli_guard_terminal(void) {
    FILE *f;
    if (isatty(STDOUT_FILENO) && (f = guarded(STDOUT_FILENO, _IOLBF)))
        stdout = f;
    if (isatty(STDERR_FILENO) && (f = guarded(STDERR_FILENO, _IONBF)))
        stderr = f;
}

int cli_fail(const gp_err *err) {
    if (err->where[0])
        fprintf(stderr, "gpuplan: %s: %s\n", err->where, err->msg);
    else
        fprintf(stderr, "gpuplan: %s\n", err->msg[0] ? err->msg : gp_status_str(err->code));
    return gp_status_exit_code(err->code);
}

int cli_usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("gpuplan: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

static gp_status mkdirs(const char *path, gp_err *err) {
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp)
        return gp_errorf(err, GP_E_IO, path, "path too long");
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
            return gp_errorf(err, GP_E_IO, tmp, "cannot create folder: %s", strerror(errno));
        *p = '/';
    }
    if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
        return gp_errorf(err, GP_E_IO, tmp, "cannot create folder: %s", strerror(errno));
    return GP_OK;
}

gp_status cli_data_dir(char *out, size_t cap, gp_err *err) {
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    if (xdg && *xdg == '/')
        snprintf(out, cap, "%s/gpuplan", xdg);
    else if (home && *home)
        snprintf(out, cap, "%s/.local/share/gpuplan", home);
    else
        return gp_errorf(err, GP_E_IO, NULL, "neither XDG_DATA_HOME nor HOME is set; use --db");
    return mkdirs(out, err);
}

gp_status cli_store(cli *c, gp_store **out, gp_err *err) {
    if (c->store) {
        *out = c->store;
        return GP_OK;
    }
    if (c->db_path && *c->db_path) {
        snprintf(c->path, sizeof c->path, "%s", c->db_path);
    } else {
        char dir[PATH_MAX - 16];
        if (cli_data_dir(dir, sizeof dir, err))
            return err->code;
        snprintf(c->path, sizeof c->path, "%s/gpuplan.db", dir);
    }
    if ((c->read_only ? gp_store_open_readonly : gp_store_open)(c->path, &c->store, err))
        return err->code;
    *out = c->store;
    return GP_OK;
}

gp_status cli_catalog(cli *c, gp_store **out, gp_err *err) {
    if (cli_store(c, out, err))
        return err->code;
    gp_bundle_stats bs;
    if (gp_catalog_load_bundle(*out, false, &bs, err))
        return err->code;
    if (bs.loaded && !c->quiet && isatty(STDERR_FILENO)) /* scripts get no chatter */
        fprintf(stderr, "gpuplan: loaded the bundled catalog (%zu files, %zu prices) in %.2f s\n",
                bs.files, bs.prices_added + bs.prices_unchanged, bs.seconds);
    return GP_OK;
}

gp_status cli_read_file(const char *path, size_t cap, gp_buf *out, gp_err *err) {
    gp_buf_init(out, cap);
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return gp_errorf(err, errno == ENOENT ? GP_E_INPUT : GP_E_IO, path, "cannot open: %s",
                         strerror(errno));
    char chunk[65536];
    size_t n;
    gp_status st = GP_OK;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (gp_buf_add(out, chunk, n) != GP_OK) {
            st = gp_errorf(err, GP_E_LIMIT, path, "larger than %zu bytes", cap);
            break;
        }
    }
    if (st == GP_OK && ferror(f))
        st = errno == EISDIR ? gp_errorf(err, GP_E_INPUT, path, "is a directory, not a file")
                             : gp_errorf(err, GP_E_IO, path, "read error: %s", strerror(errno));
    if (!is_stdin)
        fclose(f);
    if (st == GP_OK && !out->data)
        gp_buf_add(out, "", 0);
    if (st != GP_OK)
        gp_buf_done(out);
    return st;
}

gp_status cli_write_output(const char *path, const char *data, size_t len, gp_err *err) {
    return gp_output_write(path, data, len, err); /* stdout, in place, or atomic: output.h */
}

static bool looks_like_file(const char *arg) {
    if (strcmp(arg, "-") == 0 || strchr(arg, '/'))
        return true;
    size_t n = strlen(arg);
    if (n > 5 && strcmp(arg + n - 5, ".json") == 0)
        return true;
    struct stat sb;
    return stat(arg, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* MODEL.md "Catalog references": an option naming a catalog entry takes its hourly price and
 * GPUs per instance from the entry in force on as_of; the scenario JSON a report embeds gets
 * them filled in (and loses "catalog" and "purchase"), so the report reproduces from itself. */
static gp_status resolve_catalog(cli *c, cli_scenario *sc, const char *as_of, gp_err *err) {
    gp_store *st = NULL;
    cJSON *opts = cJSON_GetObjectItemCaseSensitive(sc->tree, "cloud_options");
    for (int i = 0; i < sc->s->n_options; i++) {
        gp_option *o = &sc->s->options[i];
        if (!o->has_catalog)
            continue;
        char where[600];
        snprintf(where, sizeof where, "%s:$.cloud_options[%d].catalog", sc->origin, i);
        if (!st && cli_catalog(c, &st, err))
            return err->code;
        char prov[16], inst[96], region[64];
        const char *a = strchr(o->catalog, '/'), *b = strchr(a + 1, '/');
        snprintf(prov, sizeof prov, "%.*s", (int)(a - o->catalog), o->catalog);
        snprintf(inst, sizeof inst, "%.*s", (int)(b - a - 1), a + 1);
        snprintf(region, sizeof region, "%s", b + 1);
        gp_catalog_entry e;
        gp_err lookup;
        if (gp_store_catalog_lookup(st, prov, inst, region, o->pricing, o->term_months, o->purchase,
                                    as_of, &e, &lookup)) {
            if (lookup.code != GP_E_NOTFOUND) {
                *err = lookup;
                return err->code;
            }
            return gp_errorf(err, GP_E_INPUT, where, "%s", lookup.msg);
        }
        if (strcmp(e.currency, sc->s->currency) != 0)
            return gp_errorf(err, GP_E_INPUT, where,
                             "the entry is priced in %s, the scenario in %s", e.currency,
                             sc->s->currency);
        if (e.gpu_count != floor(e.gpu_count) || e.gpu_count < 1 || e.gpu_count > 64)
            return gp_errorf(err, GP_E_INPUT, where,
                             "the entry has %g GPUs an instance; a whole number 1..64 is needed",
                             e.gpu_count);
        o->hourly = e.hourly;
        o->upfront = 0;
        o->gpus_per_instance = (int)e.gpu_count;
        gp_price_source *ps = &sc->sources[sc->n_sources++];
        snprintf(ps->option, sizeof ps->option, "%s", o->name);
        snprintf(ps->catalog, sizeof ps->catalog, "%s", o->catalog);
        ps->pricing = o->pricing;
        ps->hourly = e.hourly;
        snprintf(ps->effective_from, sizeof ps->effective_from, "%s", e.effective_from);
        snprintf(ps->source, sizeof ps->source, "%s", e.source);

        cJSON *j = cJSON_GetArrayItem(opts, i);
        cJSON_DeleteItemFromObjectCaseSensitive(j, "catalog");
        cJSON_DeleteItemFromObjectCaseSensitive(j, "purchase");
        if (!cJSON_GetObjectItemCaseSensitive(j, "provider"))
            cJSON_AddStringToObject(j, "provider", prov);
        if (!cJSON_GetObjectItemCaseSensitive(j, "instance"))
            cJSON_AddStringToObject(j, "instance", inst);
        if (!cJSON_GetObjectItemCaseSensitive(j, "region"))
            cJSON_AddStringToObject(j, "region", region);
        cJSON_AddNumberToObject(j, "gpus_per_instance", o->gpus_per_instance);
        cJSON_AddNumberToObject(j, "hourly", o->hourly);
        o->has_catalog = false;
    }
    return GP_OK;
}

gp_status cli_scenario_load(cli *c, const char *arg, int version, const char *as_of,
                            cli_scenario *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    out->s = gp_xmalloc(sizeof *out->s);
    gp_buf text;
    gp_buf_init(&text, GP_SCENARIO_MAX_BYTES);
    if (looks_like_file(arg)) {
        if (version) {
            gp_errorf(err, GP_E_INPUT, arg, "--version applies to stored scenarios only");
            goto fail;
        }
        snprintf(out->origin, sizeof out->origin, "%s", strcmp(arg, "-") == 0 ? "<stdin>" : arg);
        if (cli_read_file(arg, GP_SCENARIO_MAX_BYTES, &text, err))
            goto fail;
    } else {
        gp_store *st;
        char *json = NULL;
        if (cli_store(c, &st, err) ||
            gp_store_scenario_get(st, arg, version, &json, &out->version, NULL, err))
            goto fail;
        snprintf(out->origin, sizeof out->origin, "%s@%d", arg, out->version);
        gp_buf_add(&text, json, strlen(json));
        free(json);
    }
    if (gp_scenario_parse(text.data, text.len, out->origin, out->s, &out->tree, err) ||
        resolve_catalog(c, out, as_of, err))
        goto fail;
    gp_buf_done(&text);
    return GP_OK;
fail:
    gp_buf_done(&text);
    cli_scenario_done(out);
    return err->code;
}

gp_status cli_scenario_from_tree(cli *c, const cJSON *doc, const char *origin, const char *as_of,
                                 cli_scenario *out, gp_err *err) {
    memset(out, 0, sizeof *out);
    out->s = gp_xmalloc(sizeof *out->s);
    snprintf(out->origin, sizeof out->origin, "%s", origin);
    out->tree = cJSON_Duplicate(doc, true);
    if (!out->tree) {
        cli_scenario_done(out);
        return gp_errorf(err, GP_E_LIMIT, origin, "out of memory");
    }
    if (gp_scenario_from_cjson(out->tree, out->origin, out->s, err) ||
        resolve_catalog(c, out, as_of, err)) {
        cli_scenario_done(out);
        return err->code;
    }
    return GP_OK;
}

int cli_fleet_alerts(const gp_fleet_gpu *g, char *out, size_t cap) {
    size_t an = 0;
    int n = 0;
    out[0] = '\0';
    double mem_pct =
        g->has[GP_M_MEM_USED_MIB] && g->has[GP_M_MEM_TOTAL_MIB] && g->value[GP_M_MEM_TOTAL_MIB] > 0
            ? 100.0 * g->value[GP_M_MEM_USED_MIB] / g->value[GP_M_MEM_TOTAL_MIB]
            : -1;
    const char *names[5];
    if (g->has[GP_M_TEMP_C] && g->value[GP_M_TEMP_C] >= 85)
        names[n++] = "hot";
    if (mem_pct >= 90)
        names[n++] = "memory";
    if (g->node_down)
        names[n++] = "node-down";
    if (g->missing)
        names[n++] = "missing";
    if (g->has[GP_M_POWER_W] && g->has[GP_M_POWER_LIMIT_W] &&
        g->value[GP_M_POWER_W] > g->value[GP_M_POWER_LIMIT_W])
        names[n++] = "over-power-limit";
    for (int i = 0; i < n && an < cap; i++)
        an += (size_t)snprintf(out + an, cap - an, "%s%s", i ? " " : "", names[i]);
    return n;
}

void cli_scenario_done(cli_scenario *sc) {
    free(sc->s);
    sc->s = NULL;
    cJSON_Delete(sc->tree);
    sc->tree = NULL;
}

void cli_today(char *out) {
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(out, 11, "%Y-%m-%d", &tm);
}

bool cli_valid_date(const char *s) {
    if (strlen(s) != 10 || s[4] != '-' || s[7] != '-')
        return false;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9'))
            return false;
    int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    int m = (s[5] - '0') * 10 + (s[6] - '0');
    int d = (s[8] - '0') * 10 + (s[9] - '0');
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1)
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return d <= days[m - 1] + (m == 2 && leap);
}

bool cli_parse_int(const char *s, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < INT_MIN || v > INT_MAX)
        return false;
    *out = (int)v;
    return true;
}

bool cli_parse_double(const char *s, double *out) {
    /* strtod also takes hex floats, "nan(...)" and "inf": none of them is a price. */
    for (const char *p = s; *p; p++)
        if (*p == 'x' || *p == 'X' || *p == 'n' || *p == 'N' || *p == 'i' || *p == 'I')
            return false;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}
