/* A fresh database in a temporary folder for each test of the app services (cmocka setup and
 * teardown), removed whole afterwards. Include after testutil.h; define _GNU_SOURCE first. */
#ifndef GPUPLAN_TESTS_SESSION_FIXTURE_H
#define GPUPLAN_TESTS_SESSION_FIXTURE_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpuplan/app_session.h"

typedef struct fixture {
    char dir[64], db[96];
    gp_session ses;
} fixture;

static int fixture_remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/gp-test-XXXXXX");
    if (!f || !mkdtemp(f->dir))
        return -1;
    snprintf(f->db, sizeof f->db, "%s/db", f->dir);
    gp_session_init(&f->ses, f->db);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    gp_session_close(&f->ses);
    int rc = nftw(f->dir, fixture_remove_one, 8, FTW_DEPTH | FTW_PHYS);
    free(f);
    return rc == 0 ? 0 : -1;
}

#endif
