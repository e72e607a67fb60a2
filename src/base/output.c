#include "gpuplan/output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Fill o->path and o->in_place from path by the rules of output.h; *sb is what o->path is
 * (st_mode 0 when it does not exist yet). */
static gp_status resolve(gp_output *o, const char *path, struct stat *sb, gp_err *err) {
    memset(o, 0, sizeof *o);
    memset(sb, 0, sizeof *sb);
    if (!path || strcmp(path, "-") == 0) {
        snprintf(o->path, sizeof o->path, "-");
        o->in_place = true;
        return GP_OK;
    }
    if (!*path || strlen(path) >= sizeof o->path - 16)
        return gp_errorf(err, GP_E_INPUT, path, "not a usable output path");
    snprintf(o->path, sizeof o->path, "%s", path);
    if (lstat(path, sb) != 0) {
        if (errno != ENOENT)
            return gp_errorf(err, GP_E_IO, path, "cannot look at it: %s", strerror(errno));
        memset(sb, 0, sizeof *sb);
        return GP_OK; /* a new file */
    }
    if (S_ISLNK(sb->st_mode)) {
        /* Followed on purpose: the target is what the user means to write. */
        if (stat(path, sb) != 0)
            return gp_errorf(err, GP_E_INPUT, path,
                             "is a symbolic link to nothing: refusing to create its target");
        /* /dev/stdout on a pipe resolves to no name: then the link itself is opened. */
        char target[PATH_MAX];
        if (realpath(path, target))
            snprintf(o->path, sizeof o->path, "%s", target);
    }
    if (S_ISDIR(sb->st_mode))
        return gp_errorf(err, GP_E_INPUT, path, "is a directory");
    if (S_ISBLK(sb->st_mode))
        return gp_errorf(err, GP_E_INPUT, path, "is a block device: refusing to write over it");
    if (S_ISSOCK(sb->st_mode))
        return gp_errorf(err, GP_E_INPUT, path, "is a socket");
    o->in_place = !S_ISREG(sb->st_mode); /* a character device or a FIFO */
    return GP_OK;
}

/* A new temporary file named from prefix; its mode is the destination's, or what a new file
 * gets under the umask. Returns the descriptor, or -1 with err filled. */
static int make_tmp(gp_output *o, const char *prefix, const struct stat *sb, const char *what,
                    gp_err *err) {
    if (snprintf(o->tmp, sizeof o->tmp, "%s.tmp.XXXXXX", prefix) >= (int)sizeof o->tmp) {
        o->tmp[0] = '\0';
        return gp_errorf(err, GP_E_INPUT, what, "path too long"), -1;
    }
    int fd = mkstemp(o->tmp);
    if (fd >= 0)
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        o->tmp[0] = '\0';
        return gp_errorf(err, GP_E_IO, what, "cannot create: %s", strerror(e)), -1;
    }
    mode_t mode;
    if (S_ISREG(sb->st_mode)) {
        mode = sb->st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        o->tmp[0] = '\0';
        return gp_errorf(err, GP_E_IO, what, "cannot create: %s", strerror(e)), -1;
    }
    return fd;
}

gp_status gp_output_open(gp_output *o, const char *path, gp_err *err) {
    struct stat sb;
    if (resolve(o, path, &sb, err))
        return err->code;
    if (strcmp(o->path, "-") == 0) {
        o->f = stdout;
        return GP_OK;
    }
    int fd;
    if (o->in_place) {
        fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
            return gp_errorf(err, GP_E_IO, path, "cannot open: %s", strerror(errno));
    } else {
        fd = make_tmp(o, o->path, &sb, path, err);
        if (fd < 0)
            return err->code;
    }
    o->f = fdopen(fd, "w");
    if (!o->f) {
        int e = errno;
        close(fd);
        gp_output_abort(o);
        return gp_errorf(err, GP_E_IO, path, "cannot open: %s", strerror(e));
    }
    return GP_OK;
}

gp_status gp_output_open_named(gp_output *o, const char *path, gp_err *err) {
    struct stat sb;
    if (resolve(o, path, &sb, err))
        return err->code;
    char prefix[GP_OUTPUT_PATH_BYTES];
    if (o->in_place) { /* /dev is no place for a temporary file */
        const char *dir = getenv("TMPDIR");
        snprintf(prefix, sizeof prefix, "%s/gpuplan-out", dir && *dir ? dir : "/tmp");
    } else {
        snprintf(prefix, sizeof prefix, "%s", o->path);
    }
    int fd = make_tmp(o, prefix, &sb, path ? path : "-", err);
    if (fd < 0)
        return err->code;
    close(fd);
    return GP_OK;
}

/* Copy the file named src to dst; false with errno set on failure. */
static bool copy_to(const char *src, FILE *dst) {
    FILE *in = fopen(src, "rb");
    if (!in)
        return false;
    char buf[65536];
    size_t n;
    bool ok = true;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, dst) == n;
    ok = ok && !ferror(in);
    int e = errno;
    fclose(in);
    errno = e;
    return ok;
}

static gp_status publish_named(gp_output *o, gp_err *err) {
    const char *what = o->path;
    if (!o->in_place) {
        int fd = open(o->tmp, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) != 0 || close(fd) != 0 || rename(o->tmp, o->path) != 0)
            return gp_errorf(err, GP_E_IO, what, "cannot write: %s", strerror(errno));
        o->tmp[0] = '\0';
        return GP_OK;
    }
    bool to_stdout = strcmp(o->path, "-") == 0;
    FILE *dst = stdout;
    if (!to_stdout) {
        int fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        dst = fd < 0 ? NULL : fdopen(fd, "w");
        if (!dst) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            return gp_errorf(err, GP_E_IO, what, "cannot open: %s", strerror(e));
        }
    }
    bool ok = copy_to(o->tmp, dst) && fflush(dst) == 0 && !ferror(dst);
    int e = errno;
    if (!to_stdout && fclose(dst) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (!ok)
        return gp_errorf(err, GP_E_IO, to_stdout ? "stdout" : what, "write failed: %s",
                         strerror(e));
    return GP_OK;
}

gp_status gp_output_commit(gp_output *o, gp_err *err) {
    gp_status st = GP_OK;
    const char *what = strcmp(o->path, "-") == 0 ? "stdout" : o->path;
    if (!o->f) {
        st = publish_named(o, err);
    } else if (o->f == stdout) {
        if (fflush(stdout) != 0 || ferror(stdout))
            st = gp_errorf(err, GP_E_IO, what, "write failed: %s", strerror(errno));
        o->f = NULL;
    } else {
        bool ok = fflush(o->f) == 0 && !ferror(o->f) && (o->in_place || fsync(fileno(o->f)) == 0);
        int e = errno;
        if (fclose(o->f) != 0 && ok) {
            ok = false;
            e = errno;
        }
        o->f = NULL;
        if (!ok)
            st = gp_errorf(err, GP_E_IO, what, "write failed: %s", strerror(e));
        else if (o->tmp[0] && rename(o->tmp, o->path) != 0)
            st = gp_errorf(err, GP_E_IO, what, "cannot write: %s", strerror(errno));
        else
            o->tmp[0] = '\0';
    }
    gp_output_abort(o); /* removes the temporary file whatever happened */
    return st;
}

void gp_output_abort(gp_output *o) {
    if (o->f && o->f != stdout)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp[0])
        unlink(o->tmp);
    o->tmp[0] = '\0';
}

gp_status gp_output_write(const char *path, const void *data, size_t len, gp_err *err) {
    gp_output o;
    if (gp_output_open(&o, path, err))
        return err->code;
    if (len > 0 && fwrite(data, 1, len, o.f) != len) {
        int e = errno;
        gp_output_abort(&o);
        return gp_errorf(err, GP_E_IO, strcmp(o.path, "-") ? path : "stdout", "write failed: %s",
                         strerror(e));
    }
    return gp_output_commit(&o, err);
}
