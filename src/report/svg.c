/* The SVG writer and HTML escaping (svg.h). */
#include <math.h>
#include <string.h>

#include "gpuplan/svg.h"
#include "gpuplan/text.h"

gp_status gp_html_escape(gp_buf *out, const char *text) {
    const char *p = text ? text : "";
    size_t left = strlen(p);
    while (left > 0) {
        size_t n;
        gp_text_class k = gp_text_next(p, left, &n);
        const char *rep = NULL;
        switch (*p) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        case '\'':
            rep = "&#39;";
            break;
        default:
            /* Shown, not hidden: U+FFFD for a control (tab and newline kept) or a bad byte. */
            if (k == GP_TEXT_CONTROL || k == GP_TEXT_INVALID || (k == GP_TEXT_LINE && *p == '\r'))
                rep = "\xef\xbf\xbd";
        }
        gp_status st = rep ? gp_buf_add(out, rep, strlen(rep)) : gp_buf_add(out, p, n);
        if (st)
            return st;
        p += n;
        left -= n;
    }
    return GP_OK;
}

/* Coordinates: two decimals, and never "nan" or "inf" in the document. */
static double c2(double v) {
    return isfinite(v) ? round(v * 100) / 100 : 0;
}

gp_status gp_svg_begin(gp_buf *out, double w, double h, const char *cls, const char *label,
                       int n_series) {
    if (gp_buf_printf(out, "<svg class=\"chart ") || gp_html_escape(out, cls) ||
        gp_buf_printf(out,
                      "\" viewBox=\"0 0 %g %g\" width=\"%g\" height=\"%g\" role=\"img\" "
                      "aria-label=\"",
                      c2(w), c2(h), c2(w), c2(h)) ||
        gp_html_escape(out, label) || gp_buf_printf(out, "\" data-series=\"%d\">", n_series))
        return GP_E_LIMIT;
    return GP_OK;
}

gp_status gp_svg_end(gp_buf *out) {
    return gp_buf_printf(out, "</svg>\n");
}

static gp_status title(gp_buf *out, const char *text) {
    if (!text)
        return GP_OK;
    if (gp_buf_printf(out, "<title>") || gp_html_escape(out, text) ||
        gp_buf_printf(out, "</title>"))
        return GP_E_LIMIT;
    return GP_OK;
}

gp_status gp_svg_polyline(gp_buf *out, const double *x, const double *y, size_t n, const char *cls,
                          const char *name) {
    if (gp_buf_printf(out, "<polyline class=\"") || gp_html_escape(out, cls) ||
        gp_buf_printf(out, "\" data-name=\"") || gp_html_escape(out, name) ||
        gp_buf_printf(out, "\" points=\""))
        return GP_E_LIMIT;
    for (size_t i = 0; i < n; i++)
        if (gp_buf_printf(out, "%s%g,%g", i ? " " : "", c2(x[i]), c2(y[i])))
            return GP_E_LIMIT;
    if (gp_buf_printf(out, "\">") || title(out, name) || gp_buf_printf(out, "</polyline>\n"))
        return GP_E_LIMIT;
    return GP_OK;
}

gp_status gp_svg_line(gp_buf *out, double x1, double y1, double x2, double y2, const char *cls) {
    if (gp_buf_printf(out, "<line class=\"") || gp_html_escape(out, cls) ||
        gp_buf_printf(out, "\" x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\"/>\n", c2(x1), c2(y1), c2(x2),
                      c2(y2)))
        return GP_E_LIMIT;
    return GP_OK;
}

gp_status gp_svg_rect(gp_buf *out, double x, double y, double w, double h, const char *cls,
                      const char *fill, const char *tip) {
    if (gp_buf_printf(out, "<rect class=\"") || gp_html_escape(out, cls) ||
        gp_buf_printf(out, "\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"", c2(x), c2(y),
                      c2(fmax(w, 0)), c2(fmax(h, 0))))
        return GP_E_LIMIT;
    if (fill &&
        (gp_buf_printf(out, " fill=\"") || gp_html_escape(out, fill) || gp_buf_printf(out, "\"")))
        return GP_E_LIMIT;
    if (gp_buf_printf(out, ">") || title(out, tip) || gp_buf_printf(out, "</rect>"))
        return GP_E_LIMIT;
    return GP_OK;
}

gp_status gp_svg_circle(gp_buf *out, double cx, double cy, double r, const char *cls,
                        const char *tip) {
    if (gp_buf_printf(out, "<circle class=\"") || gp_html_escape(out, cls) ||
        gp_buf_printf(out, "\" cx=\"%g\" cy=\"%g\" r=\"%g\">", c2(cx), c2(cy), c2(r)) ||
        title(out, tip) || gp_buf_printf(out, "</circle>\n"))
        return GP_E_LIMIT;
    return GP_OK;
}

gp_status gp_svg_text(gp_buf *out, double x, double y, const char *anchor, const char *cls,
                      const char *text) {
    if (gp_buf_printf(out, "<text class=\"") || gp_html_escape(out, cls) ||
        gp_buf_printf(out, "\" x=\"%g\" y=\"%g\" text-anchor=\"", c2(x), c2(y)) ||
        gp_html_escape(out, anchor) || gp_buf_printf(out, "\">") || gp_html_escape(out, text) ||
        gp_buf_printf(out, "</text>\n"))
        return GP_E_LIMIT;
    return GP_OK;
}

gp_status gp_svg_group_begin(gp_buf *out, const char *cls, const char *name) {
    if (gp_buf_printf(out, "<g class=\"") || gp_html_escape(out, cls) ||
        gp_buf_printf(out, "\" data-name=\"") || gp_html_escape(out, name) ||
        gp_buf_printf(out, "\">"))
        return GP_E_LIMIT;
    return GP_OK;
}

gp_status gp_svg_group_end(gp_buf *out) {
    return gp_buf_printf(out, "</g>\n");
}
