/* Status codes and the error record every library function fills.
 *
 * Ownership: gp_err is caller storage; nothing here allocates.
 * Library code never prints: it fills a gp_err and returns its code, and the front end
 * maps the code to an exit status (bad input -> 2, a failure of the world -> 1). */
#ifndef GPUPLAN_ERROR_H
#define GPUPLAN_ERROR_H

#include <stdarg.h>

/* One table, so the enum and its text cannot drift apart. */
#define GP_STATUS_TABLE(X)                                                                         \
    X(GP_OK, "ok")                                                                                 \
    X(GP_E_INPUT, "bad input")                                                                     \
    X(GP_E_LIMIT, "input too large")                                                               \
    X(GP_E_NOTFOUND, "not found")                                                                  \
    X(GP_E_IO, "i/o error")                                                                        \
    X(GP_E_DB, "database error")                                                                   \
    X(GP_E_NET, "network error")                                                                   \
    X(GP_E_NOMEM, "out of memory")

typedef enum gp_status {
#define GP_STATUS_ENUM(code, text) code,
    GP_STATUS_TABLE(GP_STATUS_ENUM)
#undef GP_STATUS_ENUM
} gp_status;

typedef struct gp_err {
    gp_status code;
    char where[256]; /* "plan.json:$.options[2].hourly", "plan.json:3:14", "" when none */
    char msg[256];
} gp_err;

/* The fixed text of a status code ("bad input"). Never NULL. */
const char *gp_status_str(gp_status code);

/* Fill err (when not NULL) with code, where (may be NULL) and a printf-style message;
 * returns code, so callers can write `return gp_errorf(err, ...)`. Text is truncated to fit. */
gp_status gp_errorf(gp_err *err, gp_status code, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Reset err to GP_OK with empty strings. */
void gp_err_clear(gp_err *err);

/* Exit status for a code: 0 for GP_OK, 2 for bad input, a limit or a name not found, 1 for
 * the rest (failures of the world). */
int gp_status_exit_code(gp_status code);

#endif
