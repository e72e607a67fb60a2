/* Whole-file reads with a cap (gpuplan/files.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/files.h"

gp_status gp_read_file(const char *path, size_t cap, gp_buf *out, gp_err *err) {
    gp_buf_init(out, cap);
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return gp_errorf(err, errno == ENOENT ? GP_E_INPUT : GP_E_IO, path, "cannot open: %s",
                         strerror(errno));
    char chunk[65536];
    size_t n;
    gp_status st = GP_OK;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (gp_buf_add(out, chunk, n) != GP_OK) {
            st = gp_errorf(err, GP_E_LIMIT, path, "larger than %zu bytes", cap);
            break;
        }
    }
    if (st == GP_OK && ferror(f))
        st = errno == EISDIR ? gp_errorf(err, GP_E_INPUT, path, "is a directory, not a file")
                             : gp_errorf(err, GP_E_IO, path, "read error: %s", strerror(errno));
    if (!is_stdin)
        fclose(f);
    if (st == GP_OK && !out->data)
        gp_buf_add(out, "", 0);
    if (st != GP_OK)
        gp_buf_done(out);
    return st;
}
