/* A scratch store for the unit tests: a fresh database under a name of its own, opened (so
 * created and migrated to this build's schema), then closed and removed with its WAL and
 * shared-memory files. Include after testutil.h. */
#ifndef GPUPLAN_TESTS_SCRATCH_STORE_H
#define GPUPLAN_TESTS_SCRATCH_STORE_H

#include <stddef.h>

#include "gpuplan/store.h"
#include "../dbfile.h"

/* A scratch path: $TMPDIR (or /var/tmp)/STEM-XXXXXX. */
typedef char scratch_path[256];

/* Name a fresh database after stem into path and open it into *st; 0, or -1 (the error
 * printed, *st NULL). The test owns *st and removes it with scratch_store_close. */
static inline int scratch_store_open(scratch_path path, const char *stem, gp_store **st) {
    test_scratch_db(path, sizeof(scratch_path), stem);
    gp_err err;
    if (gp_store_open(path, st, &err) != GP_OK) {
        print_error("%s: %s\n", path, err.msg);
        *st = NULL;
        return -1;
    }
    return 0;
}

/* Close st (NULL: nothing to close) and remove the database at path. */
static inline void scratch_store_close(gp_store *st, const char *path) {
    if (st)
        gp_store_close(st);
    test_remove_db(path);
}

#endif
