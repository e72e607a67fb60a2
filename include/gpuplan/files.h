/* Reading whole input files with a cap, for every layer above formats (which does no I/O).
 *
 * Ownership: gp_read_file fills the caller's gp_buf (free with gp_buf_done); on failure the
 * buffer is left empty. Errors: GP_E_INPUT for a missing file or a directory, GP_E_LIMIT
 * past cap, GP_E_IO for the rest, each with the path as where. */
#ifndef GPUPLAN_FILES_H
#define GPUPLAN_FILES_H

#include <stddef.h>

#include "gpuplan/error.h"
#include "gpuplan/xmem.h"

/* Read a whole file ("-" is stdin) of at most cap bytes into out (NUL-terminated). */
gp_status gp_read_file(const char *path, size_t cap, gp_buf *out, gp_err *err);

#endif
