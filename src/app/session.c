/* The session every service runs in: database path, store, catalog, today (app_session.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuplan/app_session.h"
#include "gpuplan/parse.h"

void gp_session_init(gp_session *s, const char *db_path) {
    memset(s, 0, sizeof *s);
    s->db_path = db_path;
    gp_today(s->today);
}

void gp_session_close(gp_session *s) {
    gp_store_close(s->store);
    s->store = NULL;
    s->catalog_ready = false;
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

gp_status gp_data_dir(char *out, size_t cap, gp_err *err) {
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

bool gp_session_has_database(const gp_session *s) {
    if (s->store)
        return true;
    char path[PATH_MAX];
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (s->db_path && *s->db_path)
        snprintf(path, sizeof path, "%s", s->db_path);
    else if (xdg && *xdg == '/')
        snprintf(path, sizeof path, "%s/gpuplan/gpuplan.db", xdg);
    else if (home && *home)
        snprintf(path, sizeof path, "%s/.local/share/gpuplan/gpuplan.db", home);
    else
        return false;
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* True when path exists and it cannot be written, or its folder cannot (where SQLite makes its
 * -wal and -shm files) and those are not already there to write: a read-only mount, or a file
 * or folder without write permission. Such a database
 * is opened read-only, so every command that only reads works there, and a write fails with
 * SQLite's "attempt to write a readonly database". */
static bool cannot_write(const char *path) {
    if (access(path, F_OK) != 0)
        return false; /* not there: opening creates it, or says why not */
    if (access(path, W_OK) != 0)
        return true;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    if (access(dir, W_OK) == 0)
        return false;
    /* A folder without write permission still serves a writer when the -wal and -shm files
     * are already there and writable. */
    char wal[PATH_MAX + 8], shm[PATH_MAX + 8];
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(shm, sizeof shm, "%s-shm", path);
    return access(wal, W_OK) != 0 || access(shm, W_OK) != 0;
}

gp_status gp_session_store(gp_session *s, gp_store **out, gp_err *err) {
    if (s->store) {
        *out = s->store;
        return GP_OK;
    }
    if (s->db_path && *s->db_path) {
        snprintf(s->path, sizeof s->path, "%s", s->db_path);
    } else {
        char dir[PATH_MAX - 16];
        if (gp_data_dir(dir, sizeof dir, err))
            return err->code;
        snprintf(s->path, sizeof s->path, "%s/gpuplan.db", dir);
    }
    bool read_only = s->read_only || cannot_write(s->path);
    if ((read_only ? gp_store_open_readonly : gp_store_open)(s->path, &s->store, err))
        return err->code;
    *out = s->store;
    return GP_OK;
}

gp_status gp_session_open(gp_session *s, gp_err *err) {
    gp_store *st;
    return gp_session_store(s, &st, err) ? err->code : GP_OK;
}

gp_status gp_session_catalog(gp_session *s, gp_store **out, gp_err *err) {
    if (gp_session_store(s, out, err))
        return err->code;
    if (s->catalog_ready || gp_store_read_only(*out))
        return GP_OK; /* checked, or read-only: the catalog as stored (loading it is a write) */
    bool current;
    if (gp_catalog_bundle_current(*out, &current, err))
        return err->code;
    if (current) {
        s->catalog_ready = true;
        return GP_OK;
    }
    gp_bundle_stats bs;
    if (s->catalog_loading)
        s->catalog_loading(false, s->catalog_loaded_arg);
    gp_status rc = gp_catalog_load_bundle(*out, false, &bs, err);
    if (s->catalog_loading)
        s->catalog_loading(true, s->catalog_loaded_arg);
    if (rc == GP_E_DB && s->read_only && gp_store_write_refused(*out)) {
        /* A database opened for reading only (the exporter's, a read-only mount) keeps the
         * catalog it holds: loading the bundle is a write, rolled back whole. Any other
         * failure (a damaged, locked or full database) is reported, not served stale. */
        gp_err_clear(err);
        s->catalog_ready = true;
        return GP_OK;
    }
    if (rc)
        return err->code;
    s->catalog_ready = true;
    if (bs.loaded && s->catalog_loaded)
        s->catalog_loaded(&bs, s->catalog_loaded_arg);
    return GP_OK;
}
