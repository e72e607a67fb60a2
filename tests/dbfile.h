/* For tests and benchmarks that make a scratch database: remove it with its WAL and shared-memory
 * files, so the next run starts from nothing. */
#ifndef GPUPLAN_TESTS_DBFILE_H
#define GPUPLAN_TESTS_DBFILE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline void test_remove_db(const char *path) {
    static const char *const tails[] = {"", "-wal", "-shm"};
    for (size_t k = 0; k < sizeof tails / sizeof tails[0]; k++) {
        char p[4096];
        snprintf(p, sizeof p, "%s%s", path, tails[k]);
        unlink(p);
    }
}

/* A fresh name for a scratch database, $TMPDIR (or /var/tmp)/STEM-XXXXXX, nothing created. */
static inline void test_scratch_db(char *out, size_t cap, const char *stem) {
    const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/var/tmp";
    snprintf(out, cap, "%s/%s-XXXXXX", dir, stem);
    int fd = mkstemp(out);
    if (fd >= 0)
        close(fd);
    unlink(out);
}

#endif
