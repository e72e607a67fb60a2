#include "gpuplan/error.h"

#include <stdio.h>
#include <string.h>

static const char *const status_text[] = {
#define GP_STATUS_TEXT(code, text) text,
    GP_STATUS_TABLE(GP_STATUS_TEXT)
#undef GP_STATUS_TEXT
};

const char *gp_status_str(gp_status code) {
    if ((unsigned)code >= sizeof status_text / sizeof status_text[0])
        return "unknown error";
    return status_text[code];
}

gp_status gp_errorf(gp_err *err, gp_status code, const char *where, const char *fmt, ...) {
    if (!err)
        return code;
    err->code = code;
    snprintf(err->where, sizeof err->where, "%s", where ? where : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

void gp_err_clear(gp_err *err) {
    if (!err)
        return;
    err->code = GP_OK;
    err->where[0] = '\0';
    err->msg[0] = '\0';
}

int gp_status_exit_code(gp_status code) {
    switch (code) {
    case GP_OK:
        return 0;
    case GP_E_INPUT:
    case GP_E_LIMIT:
    case GP_E_NOTFOUND: /* a name the user gave that is not there: bad input */
        return 2;
    default:
        return 1;
    }
}
