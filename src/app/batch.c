/* Batch reports (app_batch.h): the run, its folder, its record and its comparison. */
#define _GNU_SOURCE /* nftw's FTW_DEPTH, timegm */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch_int.h"
#include "gpuplan/app_batch.h"
#include "gpuplan/app_fleet.h"
#include "gpuplan/clock.h"
#include "gpuplan/app_capacity.h"
#include "gpuplan/batch_json.h"
#include "gpuplan/collect.h"
#include "gpuplan/files.h"
#include "gpuplan/parse.h"
#include "gpuplan/report_batch.h"
#include "gpuplan/report_capacity.h"
#include "gpuplan/report_fleet.h"
#include "gpuplan/store_batch.h"
#include "gpuplan/store_capacity.h"

void gp_batch_opts_init(gp_batch_opts *o, const char *out_dir) {
    memset(o, 0, sizeof *o);
    o->out_dir = out_dir;
    o->threshold_pct = 1.0;
    o->keep_days = 90;
}

void gp_batch_outcome_done(gp_batch_outcome *out) {
    gp_batch_summary_done(&out->summary);
    gp_batch_diff_done(&out->diff);
    for (size_t i = 0; i < out->n_removed; i++)
        free(out->removed[i]);
    for (size_t i = 0; i < out->n_kept; i++)
        free(out->kept[i]);
    free(out->removed);
    free(out->kept);
    out->removed = out->kept = NULL;
    out->n_removed = out->n_kept = 0;
}

/* ---- folders -------------------------------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Remove a folder and everything in it, following no symbolic link (a link is removed, never
 * its target) and crossing into no other file system; 0, or -1 with errno. */
static int rm_tree(const char *path) {
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static gp_status make_dir(const char *path, gp_err *err) {
    if (mkdir(path, 0755) == 0 || errno == EEXIST)
        return GP_OK;
    return gp_errorf(err, GP_E_IO, path, "cannot create the folder: %s", strerror(errno));
}

static void marker_text(const char *day, const char *started_at, char *out, size_t cap) {
    snprintf(out, cap, "gpuplan batch run\nday: %s\nstarted_at: %s\n", day, started_at);
}

/* The marker of dir into text (NUL-ended, at most cap - 1 bytes) when dir is a folder, not a
 * symbolic link, and its marker a plain file, not a link; false otherwise. */
static bool read_marker(const char *dir, char *text, size_t cap) {
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return false;
    int fd = openat(dfd, GP_BATCH_MARKER, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    close(dfd);
    if (fd < 0)
        return false;
    struct stat sb;
    ssize_t n = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) ? read(fd, text, cap - 1) : -1;
    close(fd);
    if (n < 0)
        return false;
    text[n] = '\0';
    return true;
}

/* dir holds the marker of the run of `day` started at `started_at`, exactly. */
static bool marker_says(const char *dir, const char *day, const char *started_at) {
    char want[128], got[128];
    marker_text(day, started_at, want, sizeof want);
    return read_marker(dir, got, sizeof got) && strcmp(want, got) == 0;
}

/* *yes: the folder at path is a run this database recorded at recorded_dir on `day`: its marker
 * names the day and a start that the store has for that folder. */
static gp_status owned_run(gp_store *st, const char *path, const char *recorded_dir,
                           const char *day, bool *yes, gp_err *err) {
    char got[128], at[32];
    *yes = false;
    if (read_marker(path, got, sizeof got) &&
        sscanf(got, "gpuplan batch run\nday: %*10s\nstarted_at: %20s", at) == 1 &&
        marker_says(path, day, at))
        return gp_store_batch_known(st, day, at, recorded_dir, yes, err);
    return GP_OK;
}

static gp_status not_ours(const char *dir, gp_err *err) {
    return gp_errorf(err, GP_E_INPUT, dir,
                     "exists and is not a run this database wrote there (no matching %s): "
                     "nothing was replaced; move it away or choose another --out",
                     GP_BATCH_MARKER);
}

/* Today's folder may be replaced only when it is a run this database recorded there (asked
 * before the run, so a refusal costs nothing; swap_in asks again of what it moves). */
static gp_status may_replace(gp_store *st, const char *dir, const char *recorded_dir,
                             const char *day, gp_err *err) {
    struct stat sb;
    bool yes;
    if (lstat(dir, &sb) != 0)
        return errno == ENOENT
                   ? GP_OK
                   : gp_errorf(err, GP_E_IO, dir, "cannot inspect: %s", strerror(errno));
    if (owned_run(st, dir, recorded_dir, day, &yes, err))
        return err->code;
    return yes ? GP_OK : not_ours(dir, err);
}

/* Put tmp in place as dir. A run already there moves to `old` and is checked again there (it may
 * have changed during the run): anything but this database's run goes back and the run is
 * refused. *had: old holds the previous run, for the caller to remove once the new run is
 * recorded, or to put back (swap_back). The new folder never replaces anything: RENAME_NOREPLACE.
 */
static gp_status swap_in(gp_store *st, const char *tmp, const char *dir, const char *old,
                         const char *recorded_dir, const char *day, bool *had, gp_err *err) {
    *had = rename(dir, old) == 0;
    if (!*had && errno != ENOENT)
        return gp_errorf(err, GP_E_IO, dir, "cannot replace: %s", strerror(errno));
    if (*had) {
        bool yes;
        if (owned_run(st, old, recorded_dir, day, &yes, err) || !yes) {
            rename(old, dir);
            *had = false;
            return err->code ? err->code : not_ours(dir, err);
        }
    }
    int moved = renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_NOREPLACE);
    if (moved != 0 && (errno == EINVAL || errno == ENOSYS)) /* a file system without the flag */
        moved = rename(tmp, dir);
    if (moved != 0) {
        int e = errno;
        if (*had)
            rename(old, dir);
        *had = false;
        return gp_errorf(err, GP_E_IO, dir, "cannot rename the new run into place: %s",
                         strerror(e));
    }
    return GP_OK;
}

/* The new run goes back to tmp (removed by the caller) and the previous one, if any, returns. */
static void swap_back(const char *tmp, const char *dir, const char *old, bool had) {
    if (rename(dir, tmp) == 0 && had)
        rename(old, dir);
}

/* Remove a run folder whose marker was checked: everything in it first, the marker last, so a
 * removal that stops half-way (a mount point inside, a permission) leaves a folder still marked,
 * which a later run finishes. Nothing is followed through a link or into another file system.
 * 0, or -1 with errno. */
static int rm_run(const char *dir) {
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat top;
    if (dfd < 0 || fstat(dfd, &top) != 0) {
        int e = errno;
        if (dfd >= 0)
            close(dfd);
        errno = e;
        return -1;
    }
    DIR *d = fdopendir(dfd);
    if (!d) {
        int e = errno;
        close(dfd);
        errno = e;
        return -1;
    }
    int rc = 0, e = 0;
    const struct dirent *ent;
    while (rc == 0 && (ent = readdir(d)) != NULL) {
        const char *n = ent->d_name;
        if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, GP_BATCH_MARKER))
            continue;
        struct stat sb;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, n);
        if (fstatat(dfd, n, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            rc = -1, e = errno;
        else if (sb.st_dev != top.st_dev) /* a mount point: never removed from here */
            rc = -1, e = EXDEV;
        else if (rm_tree(path) != 0)
            rc = -1, e = errno;
    }
    if (rc == 0 && (unlinkat(dfd, GP_BATCH_MARKER, 0) != 0 || rmdir(dir) != 0))
        rc = -1, e = errno;
    closedir(d);
    errno = e;
    return rc;
}

static void list_add(char ***v, size_t *n, const char *text) {
    size_t cap = *n; /* grown one at a time: a handful of old runs a day */
    *v = gp_xgrow(*v, &cap, *n, sizeof **v, 1);
    (*v)[(*n)++] = gp_xstrdup(text);
}

static bool list_has(char *const *v, size_t n, const char *prefix, size_t len) {
    for (size_t i = 0; i < n; i++)
        if (strncmp(v[i], prefix, len) == 0 && (v[i][len] == '\0' || v[i][len] == ' '))
            return true;
    return false;
}

/* The pruning walk: the outcome's lists, and the records to forget (day, start, folder: three
 * strings a run). A run whose marked folder could not be removed is remembered, so the next run
 * tries again. */
typedef struct prune_walk {
    gp_batch_outcome *out;
    char **forget;
    size_t n_forget;
} prune_walk;

static void forget(prune_walk *w, const gp_batch_run_ref *run) {
    list_add(&w->forget, &w->n_forget, run->day);
    list_add(&w->forget, &w->n_forget, run->started_at);
    list_add(&w->forget, &w->n_forget, run->out_dir);
}

/* One recorded run older than keep_days: its folder goes when it still carries the run's own
 * marker; a folder that exists without it is left and named. */
static int prune_one(const gp_batch_run_ref *run, void *arg) {
    prune_walk *w = arg;
    gp_batch_outcome *out = w->out;
    struct stat sb;
    const char *dir = run->out_dir;
    size_t len = strlen(dir);
    char line[4400];
    if (lstat(dir, &sb) != 0 || list_has(out->removed, out->n_removed, dir, len)) {
        forget(w, run); /* gone already */
        return 0;
    }
    if (!marker_says(dir, run->day, run->started_at)) {
        snprintf(line, sizeof line, "%s (not removed: no %s of this database's run)", dir,
                 GP_BATCH_MARKER);
        if (!list_has(out->kept, out->n_kept, dir, len))
            list_add(&out->kept, &out->n_kept, line);
        forget(w, run);
        return 0;
    }
    if (rm_run(dir) == 0) {
        list_add(&out->removed, &out->n_removed, dir);
        forget(w, run);
        return 0;
    }
    snprintf(line, sizeof line, "%s (not removed, tried again next run: %s)", dir, strerror(errno));
    list_add(&out->kept, &out->n_kept, line);
    return 0;
}

/* Kept entries for folders removed later in the walk (two runs of one day share a folder, the
 * later one's marker is in it) are dropped. */
static void settle_kept(gp_batch_outcome *out) {
    size_t k = 0;
    for (size_t i = 0; i < out->n_kept; i++) {
        const char *sp = strstr(out->kept[i], " (not removed");
        size_t len = sp ? (size_t)(sp - out->kept[i]) : strlen(out->kept[i]);
        if (list_has(out->removed, out->n_removed, out->kept[i], len))
            free(out->kept[i]);
        else
            out->kept[k++] = out->kept[i];
    }
    out->n_kept = k;
}

static void utc_day(time_t t, char *out) {
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 11, "%Y-%m-%d", &tm);
}

/* ---- the scenarios -------------------------------------------------------------------------- */

typedef struct name_list {
    char **v;
    size_t n, cap;
} name_list;

static int take_name(const gp_scenario_info *info, void *arg) {
    name_list *l = arg;
    if (l->n >= GP_BATCH_MAX_SCENARIOS)
        return 1;
    l->v = gp_xgrow(l->v, &l->cap, l->n, sizeof *l->v, 32);
    l->v[l->n++] = gp_xstrdup(info->name);
    return 0;
}

static void names_done(name_list *l) {
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* A file stem from a name: "0007-my-plan", ASCII letters and digits only. */
static void stem_of(size_t i, const char *name, char *out, size_t cap) {
    int n = snprintf(out, cap, "%04zu-", i + 1);
    size_t k = n > 0 ? (size_t)n : 0, start = k;
    for (const char *p = name; *p && k + 1 < cap && k - start < 40; p++) {
        char c = *p;
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            out[k++] = c;
        else if (c >= 'A' && c <= 'Z')
            out[k++] = (char)(c - 'A' + 'a');
        else if (k > start && out[k - 1] != '-')
            out[k++] = '-';
    }
    while (k > start && out[k - 1] == '-')
        k--;
    if (k == start && k + 9 < cap) {
        memcpy(out + k, "scenario", 8);
        k += 8;
    }
    out[k] = '\0';
}

typedef struct pool {
    batch_item *items;
    size_t n, next, done;
    const char *dir, *as_of;
    const gp_batch_opts *o;
    pthread_mutex_t mu;
} pool;

static void *worker(void *arg) {
    pool *p = arg;
    gp_sensitivity *sens = gp_xmalloc(sizeof *sens);
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n)
            break;
        batch_render(&p->items[i], p->dir, p->as_of, sens);
        pthread_mutex_lock(&p->mu);
        p->done++;
        if (p->o->progress)
            p->o->progress(p->done, p->n, p->items[i].sc.s->name, p->o->progress_arg);
        pthread_mutex_unlock(&p->mu);
    }
    free(sens);
    return NULL;
}

/* Evaluate and write every item on `jobs` threads (the caller's thread among them). */
static void render_all(pool *p, int jobs) {
    pthread_t th[64];
    int started = 0;
    if (jobs > 64)
        jobs = 64;
    if ((size_t)jobs > p->n)
        jobs = (int)p->n;
    for (int i = 1; i < jobs; i++)
        if (pthread_create(&th[started], NULL, worker, p) == 0)
            started++;
    worker(p);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
}

/* Load, evaluate and write every scenario asked for; fills out->summary. */
static gp_status scenarios(gp_session *ses, const gp_batch_opts *o, const char *dir,
                           const char *as_of, batch_item **items_out, size_t *n_out, gp_err *err) {
    name_list names = {0};
    gp_store *st;
    if (!o->n_names &&
        (gp_session_store(ses, &st, err) || gp_store_scenario_list(st, take_name, &names, err)))
        goto fail;
    for (int i = 0; i < o->n_names; i++)
        take_name(&(gp_scenario_info){o->names[i], 0, NULL, NULL}, &names);
    batch_item *items = gp_xcalloc(names.n ? names.n : 1, sizeof *items);
    *items_out = items;
    *n_out = names.n;
    for (size_t i = 0; i < names.n; i++) {
        if (batch_load(ses, names.v[i], as_of, &items[i], err)) {
            if (err->code == GP_E_NOTFOUND && o->n_names)
                err->code = GP_E_INPUT; /* a name the user gave */
            goto fail;
        }
        stem_of(i, names.v[i], items[i].stem, sizeof items[i].stem);
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    pool p = {items, names.n, 0, 0, dir, as_of, o, PTHREAD_MUTEX_INITIALIZER};
    render_all(&p, o->jobs > 0 ? o->jobs : cpus > 0 ? (int)cpus : 1);
    for (size_t i = 0; i < names.n; i++) {
        if (items[i].st) {
            *err = items[i].err;
            goto fail;
        }
        if (items[i].measured && batch_xlsx_measured(ses, &items[i], dir, as_of, err))
            goto fail;
    }
    names_done(&names);
    return GP_OK;
fail:
    names_done(&names);
    return err->code;
}

/* ---- the fleet ------------------------------------------------------------------------------ */

typedef struct heat {
    gp_heat_row *rows;
    size_t n, cap;
} heat;

static int take_hour(const gp_cap_hour *h, void *arg) {
    heat *x = arg;
    if (!x->n || strcmp(x->rows[x->n - 1].node, h->node) != 0) {
        if (x->n >= 4096)
            return 1;
        x->rows = gp_xgrow(x->rows, &x->cap, x->n, sizeof *x->rows, 16);
        memset(&x->rows[x->n], 0, sizeof x->rows[x->n]);
        snprintf(x->rows[x->n].node, sizeof x->rows[x->n].node, "%s", h->node);
        x->n++;
    }
    if (h->hour >= 0 && h->hour < 24) {
        x->rows[x->n - 1].has[h->hour] = true;
        x->rows[x->n - 1].util_pct[h->hour] = h->util_pct;
    }
    return 0;
}

typedef struct fleet_out {
    cJSON *capacity; /* the capacity JSON, parsed back for the page */
    heat heat;
} fleet_out;

static gp_status write_buf(const char *dir, const char *name, gp_buf *b, gp_err *err) {
    gp_status st = batch_write(dir, name, b->data, b->len, err);
    gp_buf_done(b);
    return st;
}

/* fleet.json (every GPU with its newest values), capacity.{json,txt,csv} over the last 30 days at
 * the first scenario's tariff, and the heatmap rows; nothing but fleet.json when there is no
 * telemetry. */
static gp_status fleet(gp_session *ses, const batch_item *first, const char *dir, int64_t now,
                       fleet_out *f, gp_err *err) {
    gp_store *st;
    gp_fleet_state fs;
    if (gp_session_store(ses, &st, err) ||
        gp_fleet_state_read(ses, now, GP_FLEET_FRESH_MS, &fs, err))
        return err->code;
    gp_buf b;
    gp_buf_init(&b, 256u << 20);
    gp_status rc = gp_report_fleet_json(&fs, &b);
    gp_fleet_state_done(&fs);
    rc = rc ? gp_errorf(err, rc, "fleet.json", "too large") : write_buf(dir, "fleet.json", &b, err);
    gp_buf_done(&b);
    if (rc)
        return rc;
    gp_cap_query q;
    gp_cap_query_init(&q);
    if (first) {
        q.has_price = true;
        q.price = gp_tariff_mean_price(first->sc.s);
        q.pue = first->sc.s->pue;
        snprintf(q.currency, sizeof q.currency, "%s", first->sc.s->currency);
    }
    gp_capacity c;
    gp_err quiet;
    gp_err_clear(&quiet);
    rc = gp_capacity_analyse(ses, &q, now, &c, &quiet);
    if (rc == GP_E_INPUT)
        return GP_OK; /* nothing measured in the window: no capacity report */
    if (rc) {
        *err = quiet;
        return rc;
    }
    if (c.n == 0) {
        gp_capacity_done(&c);
        return GP_OK;
    }
    gp_buf_init(&b, 256u << 20);
    if (gp_report_capacity_json(&c, &b) == GP_OK)
        f->capacity = cJSON_Parse(b.data ? b.data : "");
    rc = write_buf(dir, "capacity.json", &b, err);
    gp_buf_init(&b, 256u << 20);
    if (!rc && !gp_report_capacity_text(&c, &b))
        rc = write_buf(dir, "capacity.txt", &b, err);
    gp_buf_init(&b, 256u << 20);
    if (!rc && !gp_report_capacity_csv(&c, &b))
        rc = write_buf(dir, "capacity.csv", &b, err);
    gp_buf_done(&b);
    gp_capacity_done(&c);
    gp_cap_select sel = {now - q.since_ms, now + 1, NULL, NULL};
    if (!rc)
        rc = gp_store_capacity_heatmap(st, &sel, take_hour, &f->heat, err);
    return rc;
}

/* ---- earlier runs --------------------------------------------------------------------------- */

/* A summary.json file, or the summary.json of a run folder. */
static gp_status read_summary(const char *path, gp_batch_summary *out, gp_err *err) {
    char file[4400];
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        snprintf(file, sizeof file, "%s/summary.json", path);
    else
        snprintf(file, sizeof file, "%s", path);
    gp_buf b;
    gp_buf_init(&b, GP_BATCH_SUMMARY_MAX_BYTES);
    gp_status st = gp_read_file(file, GP_BATCH_SUMMARY_MAX_BYTES, &b, err);
    if (st == GP_OK)
        st = gp_batch_summary_parse(b.data ? b.data : "", b.len, file, out, err);
    gp_buf_done(&b);
    return st;
}

/* The recorded run of the latest day on or before `day` (NULL: the latest). */
static gp_status recorded(gp_session *ses, const char *day, gp_batch_summary *out, char *label,
                          size_t cap, gp_err *err) {
    gp_store *st;
    char *json = NULL, got[11] = "";
    if (gp_session_store(ses, &st, err) || gp_store_batch_latest(st, day, &json, got, err))
        return err->code;
    char origin[64];
    snprintf(origin, sizeof origin, "batch run of %s", got);
    gp_status rc = gp_batch_summary_parse(json, strlen(json), origin, out, err);
    free(json);
    snprintf(label, cap, "the run of %s", got);
    return rc;
}

/* The run to compare with: --against, --since, else the previous one (none: *found false). */
static gp_status previous(gp_session *ses, const gp_batch_opts *o, gp_batch_summary *prev,
                          char *label, size_t cap, bool *found, gp_err *err) {
    *found = false;
    if (o->against) {
        snprintf(label, cap, "%s", o->against);
        if (read_summary(o->against, prev, err))
            return err->code == GP_E_IO ? (err->code = GP_E_INPUT) : err->code;
        *found = true;
        return GP_OK;
    }
    gp_status st = recorded(ses, o->since, prev, label, cap, err);
    if (st == GP_E_NOTFOUND && !o->since) {
        gp_err_clear(err);
        return GP_OK;
    }
    if (st == GP_E_NOTFOUND)
        err->code = GP_E_INPUT;
    *found = st == GP_OK;
    return st;
}

/* ---- the run -------------------------------------------------------------------------------- */

static gp_status write_tree(const char *dir, const char *name, const cJSON *tree, gp_err *err) {
    char *text = cJSON_Print(tree);
    if (!text)
        return gp_errorf(err, GP_E_NOMEM, name, "cannot render");
    size_t n = strlen(text);
    text[n] = '\n'; /* cJSON_Print's NUL becomes the final newline */
    gp_status st = batch_write(dir, name, text, n + 1, err);
    free(text);
    return st;
}

typedef struct run_state {
    batch_item *items;
    size_t n;
    fleet_out fleet;
    cJSON *summary, *diff;
    char *summary_text;
    char recorded_dir[4200]; /* the run's folder as recorded: an absolute path */
} run_state;

/* summary.json, changes.json and changes.txt (when compared), index.html. */
static gp_status outputs(const char *dir, gp_batch_outcome *out, run_state *rs, gp_err *err) {
    if (gp_report_batch_summary_text(&out->summary, GP_BATCH_SUMMARY_MAX_BYTES, &rs->summary,
                                     &rs->summary_text, &out->inputs_dropped, err))
        return err->code;
    if (write_tree(dir, "summary.json", rs->summary, err))
        return err->code;
    gp_buf b;
    if (out->compared) {
        rs->diff = gp_report_batch_diff_tree(&out->diff, out->against);
        gp_buf_init(&b, 64u << 20);
        if (write_tree(dir, "changes.json", rs->diff, err) ||
            gp_report_batch_diff_text(&out->diff, out->against, &b) ||
            write_buf(dir, "changes.txt", &b, err)) {
            gp_buf_done(&b);
            return err->code ? err->code : gp_errorf(err, GP_E_LIMIT, "changes.txt", "too large");
        }
    }
    const cJSON **reports = gp_xcalloc(rs->n + 1, sizeof *reports);
    const cJSON **tornados = gp_xcalloc(rs->n + 1, sizeof *tornados);
    for (size_t i = 0; i < rs->n; i++) {
        reports[i] = rs->items[i].report;
        tornados[i] = rs->items[i].tornado;
    }
    gp_batch_page pg = {rs->summary,         rs->diff,        reports, tornados, rs->fleet.capacity,
                        rs->fleet.heat.rows, rs->fleet.heat.n};
    gp_buf_init(&b, 512u << 20);
    gp_status st = gp_report_batch_html(&pg, &b, err);
    if (st == GP_OK)
        st = batch_write(dir, "index.html", b.data, b.len, err);
    gp_buf_done(&b);
    free(reports);
    free(tornados);
    return st;
}

static gp_status validate(const gp_batch_opts *o, gp_err *err) {
    if (!o->out_dir || !o->out_dir[0])
        return gp_errorf(err, GP_E_INPUT, NULL, "--out: a folder is needed");
    /* A file where the folder (or a folder above it) should be is bad usage, said up front. */
    struct stat sb;
    if (stat(o->out_dir, &sb) == 0 ? !S_ISDIR(sb.st_mode) : errno == ENOTDIR)
        return gp_errorf(err, GP_E_INPUT, o->out_dir, "--out: not a folder (a file is in the way)");
    if (!(o->threshold_pct >= 0 && o->threshold_pct <= 1e6))
        return gp_errorf(err, GP_E_INPUT, NULL, "--threshold: must be a percentage >= 0");
    if (o->keep_days < 0 || o->jobs < 0)
        return gp_errorf(err, GP_E_INPUT, NULL, "--keep-days and --jobs must be >= 0");
    if (o->since && !gp_valid_date(o->since))
        return gp_errorf(err, GP_E_INPUT, NULL, "--since: \"%s\" is not a date YYYY-MM-DD",
                         o->since);
    if (o->since && o->against)
        return gp_errorf(err, GP_E_INPUT, NULL, "--since and --against: one or the other");
    return GP_OK;
}

static void run_state_done(run_state *rs) {
    for (size_t i = 0; i < rs->n; i++)
        batch_item_done(&rs->items[i]);
    free(rs->items);
    cJSON_Delete(rs->fleet.capacity);
    free(rs->fleet.heat.rows);
    cJSON_Delete(rs->summary);
    cJSON_Delete(rs->diff);
    free(rs->summary_text);
}

/* Forget the runs older than keep_days: their records, and their folders where each still
 * carries its own marker (prune_one); a marked folder that could not be removed keeps its
 * record, so the next run tries again. */
static gp_status prune(gp_store *st, const gp_batch_opts *o, gp_batch_outcome *out, time_t now,
                       gp_err *err) {
    if (!o->keep_days)
        return GP_OK;
    char before[11];
    utc_day(now - (time_t)o->keep_days * 86400, before);
    prune_walk w = {out, NULL, 0};
    gp_status res = gp_store_batch_runs_before(st, before, prune_one, &w, err);
    settle_kept(out);
    for (size_t i = 0; res == GP_OK && i + 2 < w.n_forget; i += 3) {
        int n = 0;
        res = gp_store_batch_forget(st, w.forget[i], w.forget[i + 1], w.forget[i + 2], &n, err);
        out->forgotten += n;
    }
    for (size_t i = 0; i < w.n_forget; i++)
        free(w.forget[i]);
    free(w.forget);
    return res;
}

/* The marker that says gpuplan wrote this folder, and the absolute path it is recorded under. */
static gp_status mark(const gp_batch_opts *o, const char *tmp, const gp_batch_summary *sum,
                      run_state *rs, gp_err *err) {
    char *abs = realpath(o->out_dir, NULL);
    if (!abs)
        return gp_errorf(err, GP_E_IO, o->out_dir, "cannot resolve: %s", strerror(errno));
    snprintf(rs->recorded_dir, sizeof rs->recorded_dir, "%s/%s", abs, sum->day);
    free(abs);
    char text[128];
    marker_text(sum->day, sum->started_at, text, sizeof text);
    return batch_write(tmp, GP_BATCH_MARKER, text, strlen(text), err);
}

gp_status gp_batch_run(gp_session *ses, const gp_batch_opts *o, gp_batch_outcome *out,
                       gp_err *err) {
    memset(out, 0, sizeof *out);
    run_state rs = {0};
    char tmp[4400];
    time_t now = time(NULL);
    gp_batch_summary *sum = &out->summary;
    utc_day(now, sum->day);
    gp_fmt_utc_time((int64_t)now * 1000, sum->started_at, sizeof sum->started_at);
    snprintf(sum->as_of, sizeof sum->as_of, "%s", ses->today);
    snprintf(out->dir, sizeof out->dir, "%s/%s", o->out_dir, sum->day);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp.%ld", o->out_dir, sum->day, (long)getpid());
    gp_store *st;
    if (validate(o, err) || gp_session_store(ses, &st, err))
        return err->code;
    if (gp_store_read_only(st)) /* a run that cannot be recorded could never be pruned */
        return gp_errorf(err, GP_E_IO, NULL,
                         "batch records each run, and the database cannot be written here");
    if (make_dir(o->out_dir, err))
        return err->code;
    rm_tree(tmp);
    if (make_dir(tmp, err))
        return err->code;
    if (mark(o, tmp, sum, &rs, err) || may_replace(st, out->dir, rs.recorded_dir, sum->day, err))
        goto fail;
    char sub[4500];
    snprintf(sub, sizeof sub, "%s/scenarios", tmp);
    if (make_dir(sub, err) || scenarios(ses, o, tmp, ses->today, &rs.items, &rs.n, err))
        goto fail;
    for (size_t i = 0; i < rs.n; i++)
        batch_summarise(&rs.items[i], gp_batch_summary_add(sum));
    gp_batch_summary prev = {0};
    if (fleet(ses, rs.n ? &rs.items[0] : NULL, tmp, (int64_t)now * 1000, &rs.fleet, err) ||
        previous(ses, o, &prev, out->against, sizeof out->against, &out->compared, err))
        goto fail;
    out->fleet = rs.fleet.capacity != NULL;
    if (out->compared)
        gp_batch_diff_run(&prev, sum, o->threshold_pct, &out->diff);
    gp_batch_summary_done(&prev);
    /* The new run goes into place, then is recorded; only then does the previous run of the
     * day go. A record that fails puts the previous run back. */
    char old[4400];
    bool had = false;
    snprintf(old, sizeof old, "%s/.%s.old.%ld", o->out_dir, sum->day, (long)getpid());
    if (outputs(tmp, out, &rs, err) ||
        swap_in(st, tmp, out->dir, old, rs.recorded_dir, sum->day, &had, err))
        goto fail;
    gp_batch_record rec = {&out->summary, rs.summary_text, rs.recorded_dir, out->diff.flips};
    if (gp_store_batch_record(st, &rec, NULL, err)) {
        swap_back(tmp, out->dir, old, had);
        goto fail;
    }
    if (had)
        rm_tree(old);
    if (prune(st, o, out, now, err))
        goto fail_recorded;
    run_state_done(&rs);
    return GP_OK;
fail_recorded: /* the run is in place and recorded; only the forgetting failed */
fail:
    rm_tree(tmp);
    run_state_done(&rs);
    gp_batch_outcome_done(out);
    return err->code;
}

/* ---- gpuplan diff --------------------------------------------------------------------------- */

/* A file holding a batch summary (its "format" says so), as opposed to a scenario. */
static bool summary_file(const char *path) {
    gp_buf b;
    gp_err e;
    gp_buf_init(&b, GP_BATCH_SUMMARY_MAX_BYTES);
    bool yes = false;
    if (gp_read_file(path, GP_BATCH_SUMMARY_MAX_BYTES, &b, &e) == GP_OK) {
        cJSON *doc = cJSON_ParseWithLength(b.data ? b.data : "", b.len);
        const char *f = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "format"));
        yes = f && strcmp(f, GP_BATCH_FORMAT) == 0;
        cJSON_Delete(doc);
    }
    gp_buf_done(&b);
    return yes;
}

/* A scenario (file or stored name) evaluated today, as a one-scenario summary. */
static gp_status scenario_side(gp_session *ses, const char *arg, gp_batch_summary *out,
                               gp_err *err) {
    batch_item it = {0};
    struct stat sb;
    gp_status st = stat(arg, &sb) == 0 || strcmp(arg, "-") == 0
                       ? gp_load_scenario(ses, arg, 0, ses->today, &it.sc, err)
                       : batch_load(ses, arg, ses->today, &it, err);
    if (st == GP_OK) {
        it.r = gp_xmalloc(sizeof *it.r);
        st = gp_evaluate(&it.sc, it.r, err);
    }
    if (st == GP_OK) {
        snprintf(out->day, sizeof out->day, "%s", ses->today);
        snprintf(out->as_of, sizeof out->as_of, "%s", ses->today);
        snprintf(it.stem, sizeof it.stem, "scenario");
        it.measured = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(it.sc.tree, "measured"));
        batch_summarise(&it, gp_batch_summary_add(out));
    }
    batch_item_done(&it);
    return st;
}

static gp_status side(gp_session *ses, const char *arg, gp_batch_summary *out, char *label,
                      gp_err *err) {
    struct stat sb;
    bool exists = stat(arg, &sb) == 0;
    snprintf(label, 256, "%s", arg);
    if (exists && (S_ISDIR(sb.st_mode) || summary_file(arg)))
        return read_summary(arg, out, err);
    if (!exists && gp_valid_date(arg)) {
        gp_status st = recorded(ses, arg, out, label, 256, err);
        return st == GP_E_NOTFOUND ? (err->code = GP_E_INPUT) : st;
    }
    gp_status st = scenario_side(ses, arg, out, err);
    /* A path that is not there was meant as a run or a file: "no scenario named" misleads. */
    if ((st == GP_E_NOTFOUND || st == GP_E_INPUT) && !exists && strchr(arg, '/') &&
        strstr(err->msg, "no scenario named"))
        return gp_errorf(err, GP_E_INPUT, arg,
                         "no such run folder, summary.json or scenario file (%s), nor a stored "
                         "scenario of that name",
                         strerror(ENOENT));
    return st;
}

gp_status gp_batch_compare(gp_session *ses, const char *a, const char *b, double threshold_pct,
                           gp_batch_diff *out, char *label_a, char *label_b, gp_err *err) {
    gp_batch_summary sa = {0}, sb = {0};
    memset(out, 0, sizeof *out);
    if (!(threshold_pct >= 0))
        return gp_errorf(err, GP_E_INPUT, NULL, "--threshold: must be a percentage >= 0");
    gp_status st = side(ses, a, &sa, label_a, err);
    if (st == GP_OK)
        st = side(ses, b, &sb, label_b, err);
    if (st == GP_OK)
        gp_batch_diff_run(&sa, &sb, threshold_pct, out);
    gp_batch_summary_done(&sa);
    gp_batch_summary_done(&sb);
    return st;
}
