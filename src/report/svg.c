/* The SVG writer and HTML escaping (svg.h). */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "gpuplan/svg.h"

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when the bytes there are not one. */
static size_t utf8_len(const unsigned char *s) {
    if (s[0] < 0x80)
        return 1;
    size_t n = 0;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        n = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        n = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        n = 4;
    if (!n)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
        return 0; /* overlong, or a surrogate */
    if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
        return 0;
    return n;
}

gp_status gp_html_escape(gp_buf *out, const char *text) {
    const unsigned char *p = (const unsigned char *)(text ? text : "");
    while (*p) {
        const char *rep = NULL;
        size_t n = 1;
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
            if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f) {
                rep = "\xef\xbf\xbd";
            } else if (*p >= 0x80) {
                n = utf8_len(p);
                if (!n) {
                    rep = "\xef\xbf\xbd";
                    n = 1;
                } else if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
                    rep = "\xef\xbf\xbd"; /* C1 controls */
                }
            }
        }
        gp_status st = rep ? gp_buf_add(out, rep, strlen(rep)) : gp_buf_add(out, p, n);
        if (st)
            return st;
        p += n;
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
