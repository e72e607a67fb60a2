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
#include "gpuplan/clock.h"
#include "gpuplan/output.h"
#include "gpuplan/scenario_json.h"
#include "gpuplan/text.h"

/* ---- the terminal guard ------------------------------------------------------------------- */

/* A stream over a terminal's file descriptor that drops control characters on the way out
 * (gp_text_next's GP_TEXT_CONTROL: C0 but newline, tab and carriage return, the download
 * progress line's, DEL, C1, U+FFFE and U+FFFF); other bytes pass as they are. A character
 * can straddle writes, so the start of one cut by a write waits for the next. */
typedef struct guard {
    int fd;
    char held[4];
    size_t n_held;
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
    char in[4096 + sizeof g->held], out[sizeof in];
    for (size_t taken = 0; taken < n;) {
        memcpy(in, g->held, g->n_held);
        size_t len = g->n_held, more = n - taken < 4096 ? n - taken : 4096;
        memcpy(in + len, buf + taken, more);
        len += more;
        taken += more;
        size_t whole = gp_text_utf8_cut(in, len), k = 0;
        for (size_t i = 0, step; i < whole; i += step)
            if (gp_text_next(in + i, whole - i, &step) != GP_TEXT_CONTROL) {
                memcpy(out + k, in + i, step);
                k += step;
            }
        guard_put(g->fd, out, k);
        g->n_held = len - whole;
        memcpy(g->held, in + whole, g->n_held);
    }
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
    static bool done;
    if (done)
        return;
    done = true;
    FILE *f;
    if (isatty(STDOUT_FILENO) && (f = guarded(STDOUT_FILENO, _IOLBF)))
        stdout = f;
    if ((f = guarded(STDERR_FILENO, _IONBF))) /* a terminal, a pipe or a log alike */
        stderr = f;
}

const char *cli_text(const char *s, char *buf, size_t cap) {
    gp_text_clean(s ? s : "", buf, cap);
    return buf;
}

int cli_fail(const gp_err *err) {
    char where[sizeof err->where], msg[sizeof err->msg];
    cli_text(err->where, where, sizeof where);
    cli_text(err->msg[0] ? err->msg : gp_status_str(err->code), msg, sizeof msg);
    if (where[0])
        fprintf(stderr, "gpuplan: %s: %s\n", where, msg);
    else
        fprintf(stderr, "gpuplan: %s\n", msg);
    return gp_status_exit_code(err->code);
}

int cli_usage_error(const char *fmt, ...) {
    char raw[1024], msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    fprintf(stderr, "gpuplan: %s\n", cli_text(raw, msg, sizeof msg));
    return 2;
}

/* ---- progress ----------------------------------------------------------------------------- */

static bool quiet;
static size_t progress_len; /* the width of the line on screen, 0: none */

void cli_set_quiet(bool q) {
    quiet = q;
}

bool cli_progress_begin(const char *what) {
    if (quiet || progress_len || !isatty(STDERR_FILENO))
        return false;
    int n = fprintf(stderr, "gpuplan: %s...", what);
    fflush(stderr);
    progress_len = n > 0 ? (size_t)n : 0;
    return progress_len > 0;
}

void cli_progress_end(void) {
    if (!progress_len)
        return;
    /* Blanks over it, no escape sequence: the terminal guard lets only \r, \n, \t pass. */
    fprintf(stderr, "\r%*s\r", (int)progress_len, "");
    fflush(stderr);
    progress_len = 0;
}

/* Inside a longer job that shows its own line (--demo), the catalog leaves that line be. */
static bool catalog_line;

static void catalog_progress(bool done, void *arg) {
    (void)arg;
    if (!done)
        catalog_line = cli_progress_begin("loading the bundled catalog into this database (once)");
    else if (catalog_line) {
        cli_progress_end();
        catalog_line = false;
    }
}

/* The session's catalog_loaded hook: say it on a terminal, where a person waits for it;
 * scripts get no chatter. */
static void catalog_notice(const gp_bundle_stats *bs, void *arg) {
    (void)arg;
    if (!quiet && !progress_len && isatty(STDERR_FILENO))
        fprintf(stderr, "gpuplan: loaded the bundled catalog (%zu files, %zu prices) in %.2f s\n",
                bs->files, bs->prices_added + bs->prices_unchanged, bs->seconds);
}

void cli_session_init(gp_session *s, const char *db_path) {
    gp_session_init(s, db_path);
    s->catalog_loaded = catalog_notice;
    s->catalog_loading = catalog_progress;
}

gp_status cli_write_output(const char *path, const char *data, size_t len, gp_err *err) {
    return gp_output_write(path, data, len, err); /* stdout, in place, or atomic: output.h */
}

int cli_print_rendered(gp_status st, gp_buf *out) {
    if (st == GP_OK && out->data)
        fwrite(out->data, 1, out->len, stdout);
    size_t limit = out->limit;
    gp_buf_done(out);
    if (st == GP_OK)
        return 0;
    gp_err err;
    gp_errorf(&err, st, NULL, "the output is larger than %zu bytes", limit);
    return cli_fail(&err);
}

/* "90d", "12h", "30m", "45s" into milliseconds. */
bool cli_duration_ms(const char *s, int64_t *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0) || v > 1e7)
        return false;
    double mult = !strcmp(end, "d")   ? GP_DAY_MS
                  : !strcmp(end, "h") ? GP_HOUR_MS
                  : !strcmp(end, "m") ? GP_MINUTE_MS
                  : !strcmp(end, "s") ? 1000
                                      : -1;
    if (mult < 0)
        return false;
    *out = (int64_t)(v * mult);
    return true;
}

/* A time: a duration back from now ("90d"), a date ("2026-01-31", UTC), a UTC time
 * ("2026-01-31T12:00:00Z") or Unix seconds. */
bool cli_when_ms(const char *s, int64_t now_ms, int64_t *out) {
    int64_t d;
    if (cli_duration_ms(s, &d)) {
        *out = now_ms - d;
        return true;
    }
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!end || *end) {
        memset(&tm, 0, sizeof tm);
        end = strptime(s, "%Y-%m-%d", &tm);
    }
    if (end && !*end) {
        *out = (int64_t)timegm(&tm) * 1000;
        return true;
    }
    char *e;
    long long secs = strtoll(s, &e, 10);
    if (e != s && !*e && secs > 0 && secs < 32503680000LL) {
        *out = secs * 1000;
        return true;
    }
    return false;
}

/* "500ms", "30s" (or "30"), "5m", "1h" into milliseconds, at most a day. */
bool cli_interval_ms(const char *s, long *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0))
        return false;
    double mult = !*end || !strcmp(end, "s") ? 1000
                  : !strcmp(end, "ms")       ? 1
                  : !strcmp(end, "m")        ? GP_MINUTE_MS
                  : !strcmp(end, "h")        ? GP_HOUR_MS
                                             : -1;
    if (mult < 0 || v * mult > (double)GP_DAY_MS)
        return false;
    *out = (long)(v * mult);
    return true;
}

/* "5", "5%" or "0.5 %" into a percentage. */
bool cli_percent(const char *s, double *out) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '%' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    return n && gp_parse_double(buf, out) && *out >= 0;
}
