/* gp_output, the one writer of -o: regular files replaced atomically with
 * their mode, links followed, FIFOs written in place, what cannot be written refused. No
 * device of the system is touched: the shell test makes its own device node as root. */
#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuplan/output.h"
#include "testutil.h"

static char dir[64];

static int setup(void **state) {
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/gp_output_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

/* The names in dir holding `part` (NULL: all), removed when `remove` is set. */
static int entries(const char *part, bool remove) {
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
            (part && !strstr(e->d_name, part)))
            continue;
        n++;
        if (remove) {
            char p[512];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    }
    closedir(d);
    return n;
}

static int teardown(void **state) {
    (void)state;
    entries(NULL, true);
    return rmdir(dir);
}

static void path_of(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", dir, name);
}

static void read_back(const char *path, char *out, size_t cap) {
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    ssize_t n = read(fd, out, cap - 1);
    assert_true(n >= 0);
    out[n] = '\0';
    close(fd);
}

/* No "name.tmp.*" left in the directory. */
static void assert_no_tmp(void) {
    assert_int_equal(entries(".tmp.", false), 0);
}

static void test_regular_file_keeps_mode(void **state) {
    (void)state;
    char p[128], got[64];
    path_of(p, sizeof p, "r.md");
    gp_err err;
    assert_int_equal(gp_output_write(p, "one\n", 4, &err), GP_OK);
    read_back(p, got, sizeof got);
    assert_string_equal(got, "one\n");
    assert_int_equal(chmod(p, 0640), 0);
    assert_int_equal(gp_output_write(p, "two\n", 4, &err), GP_OK);
    read_back(p, got, sizeof got);
    assert_string_equal(got, "two\n");
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0);
    assert_int_equal(sb.st_mode & 07777, 0640);
    assert_no_tmp();
}

static void test_link_followed(void **state) {
    (void)state;
    char target[128], link[128], got[64];
    path_of(target, sizeof target, "target.csv");
    path_of(link, sizeof link, "link.csv");
    gp_err err;
    assert_int_equal(gp_output_write(target, "old", 3, &err), GP_OK);
    assert_int_equal(symlink("target.csv", link), 0);
    assert_int_equal(gp_output_write(link, "new", 3, &err), GP_OK);
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    read_back(target, got, sizeof got);
    assert_string_equal(got, "new");
    assert_no_tmp();
}

static void test_refused(void **state) {
    (void)state;
    char dangling[128], nowhere[128];
    path_of(dangling, sizeof dangling, "dangling");
    path_of(nowhere, sizeof nowhere, "nowhere");
    assert_int_equal(symlink("nowhere", dangling), 0);
    gp_err err;
    assert_int_equal(gp_output_write(dangling, "x", 1, &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "symbolic link to nothing"));
    assert_int_equal(access(nowhere, F_OK), -1);
    assert_int_equal(gp_output_write(dir, "x", 1, &err), GP_E_INPUT);
    assert_non_null(strstr(err.msg, "directory"));
    gp_output o;
    assert_int_equal(gp_output_open_named(&o, dir, &err), GP_E_INPUT);
}

static void test_fifo_in_place(void **state) {
    (void)state;
    char fifo[128];
    path_of(fifo, sizeof fifo, "fifo");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int rd = open(fifo, O_RDONLY | O_NONBLOCK); /* a reader, so the writer's open returns */
    assert_true(rd >= 0);
    gp_err err;
    assert_int_equal(gp_output_write(fifo, "streamed", 8, &err), GP_OK);
    char got[32];
    ssize_t n = read(rd, got, sizeof got - 1);
    assert_int_equal(n, 8);
    got[n] = '\0';
    assert_string_equal(got, "streamed");
    /* By name (libxlsxwriter's way): a temporary file, copied into the FIFO on commit. */
    gp_output o;
    assert_int_equal(gp_output_open_named(&o, fifo, &err), GP_OK);
    assert_null(strstr(o.tmp, dir)); /* not beside the FIFO: in $TMPDIR */
    int fd = open(o.tmp, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "named", 5), 5);
    close(fd);
    char tmp[sizeof o.tmp];
    snprintf(tmp, sizeof tmp, "%s", o.tmp);
    assert_int_equal(gp_output_commit(&o, &err), GP_OK);
    n = read(rd, got, sizeof got - 1);
    assert_int_equal(n, 5);
    got[n] = '\0';
    assert_string_equal(got, "named");
    assert_int_equal(access(tmp, F_OK), -1);
    close(rd);
    struct stat sb;
    assert_int_equal(lstat(fifo, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
}

static void test_abort_leaves_nothing(void **state) {
    (void)state;
    char p[128];
    path_of(p, sizeof p, "never.md");
    gp_output o;
    gp_err err;
    assert_int_equal(gp_output_open(&o, p, &err), GP_OK);
    fputs("half", o.f);
    gp_output_abort(&o);
    assert_int_equal(access(p, F_OK), -1);
    assert_no_tmp();
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regular_file_keeps_mode),
        cmocka_unit_test(test_link_followed),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_fifo_in_place),
        cmocka_unit_test(test_abort_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
