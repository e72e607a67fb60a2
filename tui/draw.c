/* Terminal primitives (draw.h). */
#include "draw.h"

#include <curses.h>
#include <langinfo.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "gpuplan/numfmt.h"
#include "gpuplan/text.h"

static bool utf8, ascii_forced, color;

void draw_init(void) {
    const char *cs = nl_langinfo(CODESET);
    utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
    const char *nc = getenv("NO_COLOR");
    color = has_colors() && !(nc && *nc);
    if (!color)
        return;
    start_color();
    use_default_colors();
    init_pair(PAL_TITLE, COLOR_CYAN, -1);
    init_pair(PAL_ACTIVE, COLOR_BLACK, COLOR_CYAN);
    init_pair(PAL_GOOD, COLOR_GREEN, -1);
    init_pair(PAL_BAD, COLOR_RED, -1);
    init_pair(PAL_DIM, COLOR_BLUE, -1);
    init_pair(PAL_EDIT, COLOR_BLACK, COLOR_YELLOW);
    static const short series[6] = {COLOR_YELLOW, COLOR_CYAN,  COLOR_MAGENTA,
                                    COLOR_GREEN,  COLOR_WHITE, COLOR_RED};
    for (int k = 0; k < 6; k++)
        init_pair((short)(PAL_SERIES0 + k), series[k], -1);
}

bool draw_utf8(void) {
    return utf8 && !ascii_forced;
}

void draw_set_ascii(bool on) {
    ascii_forced = on;
}

int draw_attr(int pal) {
    if (color) {
        if (pal == PAL_NORMAL)
            return (int)A_NORMAL;
        bool bold = pal == PAL_TITLE || pal == PAL_GOOD || pal == PAL_BAD;
        return (int)(COLOR_PAIR(pal) | (bold ? A_BOLD : 0));
    }
    switch (pal) { /* monochrome: attributes only */
    case PAL_TITLE:
    case PAL_GOOD:
        return (int)A_BOLD;
    case PAL_ACTIVE:
    case PAL_EDIT:
        return (int)A_REVERSE;
    case PAL_BAD:
        return (int)(A_BOLD | A_UNDERLINE);
    case PAL_DIM:
        return (int)A_DIM;
    default:
        return (int)A_NORMAL;
    }
}

/* The next code point of s (advancing *i), or -1 for a malformed sequence (one byte taken). */
static long next_cp(const unsigned char *s, size_t *i) {
    unsigned char c = s[*i];
    int n = c < 0x80             ? 0
            : (c & 0xe0) == 0xc0 ? 1
            : (c & 0xf0) == 0xe0 ? 2
            : (c & 0xf8) == 0xf0 ? 3
                                 : -1;
    if (n < 0) {
        (*i)++;
        return -1;
    }
    long cp = n == 0 ? c : c & (0x3f >> n);
    for (int k = 1; k <= n; k++) {
        if ((s[*i + (size_t)k] & 0xc0) != 0x80) {
            (*i)++;
            return -1;
        }
        cp = cp << 6 | (s[*i + (size_t)k] & 0x3f);
    }
    *i += (size_t)n + 1;
    static const long least[] = {0, 0x80, 0x800, 0x10000};
    if (cp < least[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return -1;
    return cp;
}

/* Not drawn: control characters of every kind and the bidirectional overrides that can
 * make text read differently from what it is (gp_text_next's classes). */
static bool hidden(const unsigned char *u, size_t left, size_t *len) {
    gp_text_class k = gp_text_next((const char *)u, left, len);
    return k == GP_TEXT_LINE || k == GP_TEXT_CONTROL || k == GP_TEXT_BIDI;
}

void draw_clean(const char *s, char *out, size_t cap) {
    gp_text_clean_with(s ? s : "", out, cap, &(gp_text_rules){.drop_bidi = true});
}

int draw_text(int y, int x, int w, const char *s, int attr) {
    if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
        return 0;
    if (x + w > COLS)
        w = COLS - x;
    attrset((attr_t)attr);
    move(y, x);
    int used = 0;
    size_t i = 0;
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)u), skip;
    while (u[i] && used < w) {
        if (hidden(u + i, n - i, &skip)) {
            i += skip;
            continue;
        }
        size_t start = i;
        long cp = next_cp(u, &i);
        if (cp < 0 || (cp >= 0x80 && !draw_utf8())) {
            addch('?');
            used++;
            continue;
        }
        int cw = cp < 0x80 ? 1 : wcwidth((wchar_t)cp);
        if (cw < 0) {
            addch('?');
            used++;
            continue;
        }
        if (used + cw > w)
            break;
        char buf[8];
        memcpy(buf, u + start, i - start);
        buf[i - start] = '\0';
        addstr(buf);
        used += cw;
    }
    attrset(A_NORMAL);
    return used;
}

int draw_textf(int y, int x, int w, int attr, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return draw_text(y, x, w, buf, attr);
}

void draw_fill(int y, int x, int w, int attr) {
    if (y < 0 || y >= LINES)
        return;
    if (x + w > COLS)
        w = COLS - x;
    attrset((attr_t)attr);
    for (int i = 0; i < w; i++)
        mvaddch(y, x + i, ' ');
    attrset(A_NORMAL);
}

void draw_money(double v, char *out, size_t cap) {
    /* The reports' format; whole units from 10,000 up, where cents only cost columns. */
    bool whole = fabs(v) >= 10000;
    gp_fmt_money(whole ? round(v) : v, out, cap);
    char *dot = whole ? strrchr(out, '.') : NULL;
    if (dot)
        *dot = '\0';
}

void draw_compact(double v, char *out, size_t cap) {
    static const char units[] = {'k', 'M', 'B', 'T'};
    double a = fabs(v);
    if (a < 1000) {
        snprintf(out, cap, "%.0f", v);
        return;
    }
    int u = 0;
    while (u < 3 && round(a / 1000) >= 1000)
        a /= 1000, u++;
    a /= 1000;
    /* Three significant digits: 6.03M, 60.3M, 603M. */
    snprintf(out, cap, "%s%.*f%c", v < 0 ? "-" : "",
             a < 9.995   ? 2
             : a < 99.95 ? 1
                         : 0,
             a, units[u]);
}

void draw_money_fit(double v, int w, char *out, size_t cap) {
    draw_money(v, out, cap);
    if ((int)strlen(out) > w)
        draw_compact(v, out, cap);
}

/* The columns code point cp takes on this terminal (what draw_text would use). */
static int cp_width(long cp) {
    if (cp < 0x80 || !draw_utf8())
        return 1;
    int cw = wcwidth((wchar_t)cp);
    return cw < 0 ? 1 : cw;
}

int draw_width(const char *s) {
    int w = 0;
    size_t i = 0;
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)u), skip;
    while (u[i]) {
        if (hidden(u + i, n - i, &skip)) {
            i += skip;
            continue;
        }
        long cp = next_cp(u, &i);
        w += cp < 0 ? 1 : cp_width(cp);
    }
    return w;
}

void draw_shorten(const char *s, int w, char *out, size_t cap) {
    char clean[1024];
    draw_clean(s, clean, sizeof clean);
    if (draw_width(clean) <= w || w < 3) {
        snprintf(out, cap, "%s", clean);
        return;
    }
    const char *dots = draw_utf8() ? "\xe2\x80\xa6" : "~";
    int head = (w - 1 + 1) / 2, tail = w - 1 - head;
    /* The head: whole code points up to head columns. */
    const unsigned char *u = (const unsigned char *)clean;
    size_t i = 0, hb = 0;
    int used = 0;
    while (u[i]) {
        size_t at = i;
        long cp = next_cp(u, &i);
        int cw = cp < 0 ? 1 : cp_width(cp);
        if (used + cw > head) {
            i = at;
            break;
        }
        used += cw;
        hb = i;
    }
    /* The tail: the last code points that fit in tail columns (plus what the head left). */
    tail += head - used;
    size_t n = strlen(clean), tb = n;
    used = 0;
    while (tb > hb) {
        size_t st = tb - 1;
        while (st > hb && (u[st] & 0xc0) == 0x80)
            st--;
        size_t j = st;
        long cp = next_cp(u, &j);
        int cw = cp < 0 ? 1 : cp_width(cp);
        if (used + cw > tail)
            break;
        used += cw;
        tb = st;
    }
    snprintf(out, cap, "%.*s%s%s", (int)hb, clean, dots, clean + tb);
}

int draw_text_mid(int y, int x, int w, const char *s, int attr) {
    char out[1024];
    draw_shorten(s, w, out, sizeof out);
    return draw_text(y, x, w, out, attr);
}

int draw_text_fit(int y, int x, int w, int attr, const char *const *texts) {
    int k = 0;
    while (texts[k + 1] && draw_width(texts[k]) > w)
        k++;
    draw_text(y, x, w, texts[k], attr);
    return k;
}

/* cp as UTF-8 in b (code points below 0x10000). */
static void encode_cp(long cp, char b[4]) {
    if (cp < 0x80) {
        b[0] = (char)cp, b[1] = 0;
    } else if (cp < 0x800) {
        b[0] = (char)(0xc0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3f)), b[2] = 0;
    } else {
        b[0] = (char)(0xe0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (char)(0x80 | (cp & 0x3f)), b[3] = 0;
    }
}

static void put_cp(int y, int x, long cp, int attr) {
    char b[4];
    encode_cp(cp, b);
    attrset((attr_t)attr);
    mvaddstr(y, x, b);
    attrset(A_NORMAL);
}

int draw_glyph(int y, int x, long cp, char ascii, int attr) {
    char b[4];
    encode_cp(draw_utf8() ? cp : ascii, b);
    return draw_text(y, x, 1, b, attr);
}

static void axis_label(double v, bool money, char *out, size_t cap) {
    double a = fabs(v);
    const char *suffix = "";
    if (a >= 1e9)
        v /= 1e9, suffix = "G";
    else if (a >= 1e6)
        v /= 1e6, suffix = "M";
    else if (a >= 1e4)
        v /= 1e3, suffix = "k";
    snprintf(out, cap, "%s%.*f%s", money && v < 0 ? "-" : "", fabs(v) < 10 && *suffix ? 2 : 1,
             money ? fabs(v) : v, suffix);
}

enum { LABEL_W = 9 };

int draw_chart_column(int x, int w, int npts, int i) {
    int pw = w - LABEL_W - 1, sx = draw_utf8() ? 2 : 1, W = pw * sx;
    if (pw < 4 || npts < 2)
        return -1;
    return x + LABEL_W + 1 + (int)lround((double)i / (npts - 1) * (W - 1)) / sx;
}

/* A chart's plot area: a cell per column and row of the plot, each with its braille dots (or
 * a 1 on ASCII) and the series that set one last; the value range drawn, lo at the bottom. */
typedef struct plot {
    unsigned char *bits;
    signed char *owner; /* the series of a cell, -1 none */
    int pw, ph;         /* cells */
    int W, H;           /* dots: 2x4 a cell in braille, 1x1 in ASCII */
    bool braille;
    double lo, hi;
    int npts; /* points along x */
} plot;

/* The glyph of series k where a chart has no braille: its dots and its legend. */
static const char ascii_glyph[6][2] = {"*", "o", "+", "x", "#", "@"};

const char *draw_series_glyph(int k) {
    return draw_utf8() ? "\xe2\x94\x80" : ascii_glyph[k % 6];
}

/* Set the dot (ax, ay) of series k. */
static void plot_dot(plot *p, int ax, int ay, int k) {
    int sx = p->braille ? 2 : 1, sy = p->braille ? 4 : 1;
    int cx = ax / sx, cy = ay / sy;
    if (cx >= 0 && cx < p->pw && cy >= 0 && cy < p->ph) {
        static const unsigned char dot[4][2] = {
            {0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
        p->bits[cy * p->pw + cx] |= p->braille ? dot[ay % 4][ax % 2] : 1;
        p->owner[cy * p->pw + cx] = (signed char)k;
    }
}

/* The value range of the series (from 0 when all are positive) and the points along x;
 * false when there is nothing to draw. */
static bool plot_range(plot *p, const chart_series *series, int ns, bool steps) {
    double lo = INFINITY, hi = -INFINITY;
    int npts = 0;
    for (int k = 0; k < ns; k++)
        for (int i = 0; i < series[k].n; i++) {
            lo = fmin(lo, series[k].y[i]);
            hi = fmax(hi, series[k].y[i]);
            int n = series[k].n + (steps ? 1 : 0);
            npts = n > npts ? n : npts;
        }
    if (!isfinite(lo) || npts < 2)
        return false;
    if (lo > 0)
        lo = 0;
    if (hi <= lo)
        hi = lo + 1;
    p->lo = lo, p->hi = hi, p->npts = npts;
    return true;
}

/* The dot row of value v. */
static int plot_row(const plot *p, double v) {
    return (int)lround((p->hi - v) / (p->hi - p->lo) * (p->H - 1));
}

/* Series k as steps: s->y[j - 1] flat over (j - 1, j], changes joined by risers. */
static void plot_steps(plot *p, const chart_series *s, int k) {
    int py = -1, n = s->n;
    for (int X = 0; X < p->W && n > 0; X++) {
        /* The month whose span (j - 1, j] holds this dot column. */
        int j = (int)ceil((double)X / (p->W - 1) * (p->npts - 1) - 1e-9);
        j = j < 1 ? 1 : j > n ? n : j;
        int dy = plot_row(p, s->y[j - 1]);
        for (int Y = py < 0 ? dy : py; Y != dy; Y += Y < dy ? 1 : -1)
            plot_dot(p, X, Y, k);
        plot_dot(p, X, dy, k);
        py = dy;
    }
}

/* Series k as a line through its points. */
static void plot_line(plot *p, const chart_series *s, int k) {
    int px = -1, py = -1;
    for (int i = 0; i < s->n; i++) {
        int dx = (int)lround((double)i / (p->npts - 1) * (p->W - 1));
        int dy = plot_row(p, s->y[i]);
        int ax = px < 0 ? dx : px, ay = px < 0 ? dy : py;
        /* Bresenham from (ax, ay) to (dx, dy). */
        int ddx = abs(dx - ax), ddy = -abs(dy - ay), stx = ax < dx ? 1 : -1, sty = ay < dy ? 1 : -1,
            e = ddx + ddy;
        for (;;) {
            plot_dot(p, ax, ay, k);
            if (ax == dx && ay == dy)
                break;
            int e2 = 2 * e;
            if (e2 >= ddy)
                e += ddy, ax += stx;
            if (e2 <= ddx)
                e += ddx, ay += sty;
        }
        px = dx, py = dy;
    }
}

/* The plot's cells at (y, x): each series in its colour, the marker column where no series
 * is. */
static void plot_paint(const plot *p, int y, int x, int mark_cx) {
    for (int cy = 0; cy < p->ph; cy++)
        for (int cx = 0; cx < p->pw; cx++) {
            int k = p->owner[cy * p->pw + cx];
            int sy2 = y + cy, sx2 = x + cx;
            if (k >= 0) {
                int attr = draw_attr(PAL_SERIES0 + k % 6);
                if (p->braille)
                    put_cp(sy2, sx2, 0x2800 + p->bits[cy * p->pw + cx], attr);
                else
                    put_cp(sy2, sx2, ascii_glyph[k % 6][0], attr);
            } else if (cx == mark_cx) {
                put_cp(sy2, sx2, p->braille ? 0x2502 : '|', draw_attr(PAL_BAD));
            }
        }
}

/* The axes around a plot whose top left cell is (y, x + LABEL_W + 1): the y axis with its
 * top, middle and bottom values, the x axis with x0, x_label and x1 under it. */
static void chart_axes(const plot *p, int y, int x, double x0, double x1, const char *x_label,
                       bool money) {
    int ph = p->ph, pw = p->pw, dim = draw_attr(PAL_DIM);
    const double at[3] = {p->hi, (p->hi + p->lo) / 2, p->lo};
    const int row[3] = {0, ph / 2, ph - 1};
    char lab[32];
    for (int i = 0; i < 3; i++) {
        axis_label(at[i], money, lab, sizeof lab);
        draw_textf(y + row[i], x, LABEL_W, dim, "%*s", LABEL_W, lab);
    }
    for (int r = 0; r < ph; r++)
        put_cp(y + r, x + LABEL_W, p->braille ? 0x2502 : '|', dim);
    for (int cx = 0; cx < pw; cx++)
        put_cp(y + ph, x + LABEL_W + 1 + cx, p->braille ? 0x2500 : '-', dim);
    put_cp(y + ph, x + LABEL_W, p->braille ? 0x2514 : '+', dim);
    char a[32], b[32];
    snprintf(a, sizeof a, "%g", x0);
    snprintf(b, sizeof b, "%g", x1);
    int px = x + LABEL_W + 1;
    draw_text(y + ph + 1, px, pw, a, dim);
    draw_text(y + ph + 1, px + (pw - (int)strlen(x_label)) / 2, pw, x_label, dim);
    draw_text(y + ph + 1, px + pw - (int)strlen(b), pw, b, dim);
}

/* The marker's label on the top row, right of the marker at plot column mark_cx, else left
 * of it where the chart (x, w) ends first. */
static void mark_label_draw(int y, int x, int w, int mark_cx, const char *label) {
    int px = x + LABEL_W + 1;
    int lx = px + mark_cx + 1;
    int lw = (int)strlen(label);
    if (lx + lw > x + w)
        lx = px + mark_cx - lw;
    draw_text(y, lx < px ? px : lx, lw, label, draw_attr(PAL_BAD));
}

/* draw_chart and draw_step_chart: steps plots series[k].y[j - 1] flat over (j - 1, j] of an
 * axis of n + 1 points, joined by risers. */
static void chart(int y, int x, int h, int w, const chart_series *series, int ns, double x0,
                  double x1, const char *x_label, int mark_i, const char *mark_label, bool money,
                  bool steps) {
    plot p = {.ph = h - 2, .pw = w - LABEL_W - 1}; /* plot rows and columns; x axis below */
    if (p.ph < 2 || p.pw < 4 || ns <= 0)
        return;
    p.braille = draw_utf8();
    int sx = p.braille ? 2 : 1, sy = p.braille ? 4 : 1;
    p.W = p.pw * sx, p.H = p.ph * sy;
    if (!plot_range(&p, series, ns, steps))
        return;
    p.bits = calloc((size_t)(p.pw * p.ph), 1);
    p.owner = malloc((size_t)(p.pw * p.ph));
    memset(p.owner, -1, (size_t)(p.pw * p.ph));
    for (int k = 0; k < ns; k++) {
        if (steps)
            plot_steps(&p, &series[k], k);
        else
            plot_line(&p, &series[k], k);
    }
    int mark_cx = mark_i >= 0 && p.npts > 1
                      ? (int)lround((double)mark_i / (p.npts - 1) * (p.W - 1)) / sx
                      : -1;
    plot_paint(&p, y, x + LABEL_W + 1, mark_cx);
    chart_axes(&p, y, x, x0, x1, x_label, money);
    if (mark_cx >= 0 && mark_label)
        mark_label_draw(y, x, w, mark_cx, mark_label);
    free(p.bits);
    free(p.owner);
}

void draw_chart(int y, int x, int h, int w, const chart_series *series, int ns, double x0,
                double x1, const char *x_label, int mark_i, const char *mark_label, bool money) {
    chart(y, x, h, w, series, ns, x0, x1, x_label, mark_i, mark_label, money, false);
}

chart_series draw_running_total(const double *v, int n, double *out, const char *name) {
    double acc = 0;
    for (int i = 0; i < n; i++)
        out[i] = acc += v[i];
    return (chart_series){out, n, name};
}

void draw_step_chart(int y, int x, int h, int w, const chart_series *series, int ns,
                     const char *x_label) {
    int n = 0;
    for (int k = 0; k < ns; k++)
        n = series[k].n > n ? series[k].n : n;
    chart(y, x, h, w, series, ns, 0, n, x_label, -1, NULL, false, true);
}

void draw_sparkline(int y, int x, int w, const double *v, int n, double max, int attr) {
    static const long blocks[8] = {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588};
    static const char ascii_levels[] = " .:-=+*#";
    int start = n > w ? n - w : 0;
    for (int i = start; i < n; i++) {
        double f = max > 0 ? v[i] / max : 0;
        int lvl = (int)lround(fmin(1, fmax(0, f)) * 7);
        int cx = x + (w - (n - start)) + (i - start);
        if (draw_utf8())
            put_cp(y, cx, blocks[lvl], attr);
        else
            put_cp(y, cx, ascii_levels[lvl], attr);
    }
}

void draw_bar(int y, int x, int w, double f, int attr) {
    f = fmin(1, fmax(0, f));
    double cells = f * w;
    int full = (int)cells;
    for (int i = 0; i < full && i < w; i++)
        put_cp(y, x + i, draw_utf8() ? 0x2588 : '#', attr);
    if (full < w && draw_utf8()) {
        static const long part[8] = {0, 0x258f, 0x258e, 0x258d, 0x258c, 0x258b, 0x258a, 0x2589};
        int p = (int)((cells - full) * 8);
        if (p > 0)
            put_cp(y, x + full, part[p], attr);
    }
}
