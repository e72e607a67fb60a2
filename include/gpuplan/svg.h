/* gpuplan's own SVG writer, for the charts of the batch HTML report: inline SVG elements
 * appended to a gp_buf, no script, no external reference. Every text and attribute value
 * taken from data goes through gp_html_escape.
 *
 * Ownership: every function appends to the caller's buffer. Errors: GP_E_LIMIT when the
 * buffer's cap is reached (the buffer then holds what fit; discard it). */
#ifndef GPUPLAN_SVG_H
#define GPUPLAN_SVG_H

#include <stddef.h>

#include "gpuplan/error.h"
#include "gpuplan/xmem.h"

/* Append text with & < > " ' written as entities (safe in element text and in quoted
 * attributes) and control characters other than tab and newline (C0, carriage return, DEL,
 * C1, U+FFFE, U+FFFF: gp_text_next's classes) and invalid UTF-8 bytes replaced by U+FFFD.
 * NULL is written as "". */
gp_status gp_html_escape(gp_buf *out, const char *text);

/* <svg class="chart CLS" viewBox="0 0 W H" role="img" aria-label="LABEL" data-series="N">
 * opened; close it with gp_svg_end. cls and label are escaped. */
gp_status gp_svg_begin(gp_buf *out, double w, double h, const char *cls, const char *label,
                       int n_series);
gp_status gp_svg_end(gp_buf *out);

/* A polyline through (x[i], y[i]), i < n, class cls, its series name in data-name and a
 * <title> child (both escaped). */
gp_status gp_svg_polyline(gp_buf *out, const double *x, const double *y, size_t n, const char *cls,
                          const char *name);
gp_status gp_svg_line(gp_buf *out, double x1, double y1, double x2, double y2, const char *cls);
/* A rectangle; fill may be NULL (the class styles it); title may be NULL (no tooltip). */
gp_status gp_svg_rect(gp_buf *out, double x, double y, double w, double h, const char *cls,
                      const char *fill, const char *title);
gp_status gp_svg_circle(gp_buf *out, double cx, double cy, double r, const char *cls,
                        const char *title);
/* Text at (x, y); anchor is "start", "middle" or "end". */
gp_status gp_svg_text(gp_buf *out, double x, double y, const char *anchor, const char *cls,
                      const char *text);
/* <g class="series" data-name="NAME"> ... </g> around a series made of several shapes. */
gp_status gp_svg_group_begin(gp_buf *out, const char *cls, const char *name);
gp_status gp_svg_group_end(gp_buf *out);

#endif
