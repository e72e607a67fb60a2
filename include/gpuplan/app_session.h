/* A session: what every service of src/app/ works within, whichever front end asks. The
 * database (opened on first use at --db, $GPUPLAN_DB, or $XDG_DATA_HOME/gpuplan/gpuplan.db),
 * the bundled catalog (loaded into it on first use) and today's date.
 *
 * Ownership: the front end owns the gp_session (usually on its stack) and closes it with
 * gp_session_close; the store it hands the services is borrowed and lives until then (a front
 * end never holds it: it asks the services, which take the session). Errors: through
 * gp_err, as the store reports them (GP_E_IO for a data folder that cannot be made). */
#ifndef GPUPLAN_APP_SESSION_H
#define GPUPLAN_APP_SESSION_H

#include <stdbool.h>

#include "gpuplan/catalog_load.h"
#include "gpuplan/error.h"
#include "gpuplan/store.h"

typedef struct gp_session {
    const char *db_path; /* --db or $GPUPLAN_DB; NULL or "": the default under the data dir */
    gp_store *store;     /* opened on first use */
    bool catalog_ready;  /* the store's bundled catalog checked (once a store open) */
    char path[4096];     /* the file the store was opened on */
    bool read_only;      /* open read-only (no write lock): set by commands that only read */
    char today[11];      /* YYYY-MM-DD, local; set by gp_session_init */
    /* Told once when the bundled catalog was loaded into the store (not when it was already
     * there): the CLI says so on a terminal, the TUI stays quiet. May be NULL. */
    void (*catalog_loaded)(const gp_bundle_stats *bs, void *arg);
    void *catalog_loaded_arg;
    /* Told just before that load begins (done false: it takes a moment, the CLI shows a
     * progress line) and as it ends, loaded or failed (done true, before catalog_loaded).
     * May be NULL; gets catalog_loaded_arg. */
    void (*catalog_loading)(bool done, void *arg);
} gp_session;

/* A session on db_path (NULL: the default database); nothing is opened yet. */
void gp_session_init(gp_session *s, const char *db_path);
/* Close the store if it was opened. */
void gp_session_close(gp_session *s);

/* $XDG_DATA_HOME/gpuplan (else ~/.local/share/gpuplan) into out, created with mode 0700. */
gp_status gp_data_dir(char *out, size_t cap, gp_err *err);

/* The database, opened on first use (creating its folder with mode 0700). For the services of
 * src/app/ only: a front end asks gp_session_open and the services (the lint checks). */
gp_status gp_session_store(gp_session *s, gp_store **out, gp_err *err);
/* Open the database now (as gp_session_store does) without handing the store out: a front end
 * asks this to report a database it cannot open before it starts. */
gp_status gp_session_open(gp_session *s, gp_err *err);
/* Whether the database is open or its file exists: a probe that never creates one. */
bool gp_session_has_database(const gp_session *s);
/* The database with the bundled catalog loaded into it (for the services, as above); a read_only
 * session whose database refuses the write keeps the catalog the database holds (none, for one
 * never priced); any other database error is returned. The bundle is checked once a store
 * open: later calls hand the store out as they find it. */
gp_status gp_session_catalog(gp_session *s, gp_store **out, gp_err *err);

#endif
