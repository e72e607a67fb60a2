/* Writing a report, an export or a sweep to the -o PATH a user gave, without clobbering what
 * PATH is: "-" is stdout; a character device or a FIFO (/dev/null, /dev/stdout, a pipe) is
 * written in place; a regular file, or a new one, is replaced atomically (a temporary file
 * beside it, fsync, rename), keeping the mode of the file it replaces. A symbolic link is
 * followed on purpose: its target is written by the same rules and the link stays a link; a
 * link to nothing, a directory, a block device or a socket is refused with GP_E_INPUT.
 *
 * Ownership: gp_output is caller storage; every gp_output_open* is ended by exactly one
 * gp_output_commit or gp_output_abort, which close what it opened. */
#ifndef GPUPLAN_OUTPUT_H
#define GPUPLAN_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "gpuplan/error.h"

#define GP_OUTPUT_PATH_BYTES 4096 /* PATH_MAX on Linux */

typedef struct gp_output {
    char path[GP_OUTPUT_PATH_BYTES]; /* the destination, symbolic links resolved; "-" for stdout */
    char tmp[GP_OUTPUT_PATH_BYTES]; /* the temporary file written first; "" when writing in place */
    FILE *f;       /* where gp_output_open's caller writes; NULL after open_named */
    bool in_place; /* stdout or a special file: no rename */
} gp_output;

/* Open path ("-" or NULL: stdout) for a stream writer: write to o->f, then commit or abort.
 * On failure nothing is created or left open and err names path (GP_E_INPUT for what the
 * rules above refuse, GP_E_IO for the world). */
gp_status gp_output_open(gp_output *o, const char *path, gp_err *err);

/* For a writer that needs a file name (libxlsxwriter): o->tmp is a new, empty regular file
 * to write by name, beside path, or in $TMPDIR when path is stdout or a special file, which
 * commit then copies it into. Errors as gp_output_open. */
gp_status gp_output_open_named(gp_output *o, const char *path, gp_err *err);

/* Flush, check and publish what was written; on failure the destination is untouched (an
 * atomic one) and the temporary file is gone. Either way o is closed. */
gp_status gp_output_commit(gp_output *o, gp_err *err);

/* Close o and remove its temporary file; the destination is left as it was. */
void gp_output_abort(gp_output *o);

/* open + one write of data[0..len) + commit. */
gp_status gp_output_write(const char *path, const void *data, size_t len, gp_err *err);

#endif
