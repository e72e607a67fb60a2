/* Terminal primitives of the TUI: safe text, colours that honour NO_COLOR and monochrome
 * terminals, Unicode or ASCII glyphs, line charts and sparklines. Only tui/ includes
 * <curses.h>; these helpers never let a control or escape character from outside data reach
 * the terminal. */
#ifndef GPUPLAN_TUI_DRAW_H
#define GPUPLAN_TUI_DRAW_H

#include <stdbool.h>
#include <stddef.h>

/* Colour pairs (attributes in monochrome). */
enum {
    PAL_NORMAL,
    PAL_TITLE,   /* tab bar, headers */
    PAL_ACTIVE,  /* the selected tab or row */
    PAL_GOOD,    /* the cheapest, healthy */
    PAL_BAD,     /* alerts, validation errors */
    PAL_DIM,     /* units, hints */
    PAL_EDIT,    /* the field being edited */
    PAL_SERIES0, /* chart series, 6 of them */
    PAL_N = PAL_SERIES0 + 6
};

void draw_init(void);         /* after initscr: colours and the glyph set */
bool draw_utf8(void);         /* the terminal takes UTF-8 */
int draw_attr(int pal);       /* the attribute for a palette entry */
void draw_set_ascii(bool on); /* force ASCII glyphs (tests, ASCII-only terminals) */

/* Text at (y, x) clipped to w columns: control characters dropped, invalid UTF-8 and (on an
 * ASCII terminal) non-ASCII shown as '?'. Returns the columns used. */
int draw_text(int y, int x, int w, const char *s, int attr);
/* printf into draw_text. */
int draw_textf(int y, int x, int w, int attr, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Blank w columns. */
void draw_fill(int y, int x, int w, int attr);
/* Copy s into out with control characters removed (for text kept, then drawn). */
void draw_clean(const char *s, char *out, size_t cap);

/* Money as gp_fmt_money writes it, without the cents from 10,000 up ("1,234,567"). */
void draw_money(double v, char *out, size_t cap);

/* Money in at most w columns: draw_money's figure when it fits, else 3 significant digits
 * with a unit (6.03M). A number is never cut. */
void draw_money_fit(double v, int w, char *out, size_t cap);
/* v with 3 significant digits and k, M, B or T (below 1,000: the whole number). */
void draw_compact(double v, char *out, size_t cap);
/* The columns s takes on screen (control characters dropped). */
int draw_width(const char *s);
/* s shortened to w columns with an ellipsis in the middle, as htop and nvtop shorten long
 * names: the start and the end stay, so names that differ at the end still differ. */
void draw_shorten(const char *s, int w, char *out, size_t cap);
/* draw_text of draw_shorten(s, w). */
int draw_text_mid(int y, int x, int w, const char *s, int attr);
/* The first of texts (NULL-terminated, the fullest first, the shortest last) that fits w
 * columns whole, as htop shortens a line before it cuts one; the last, clipped, when none
 * fits. Returns the index drawn. */
int draw_text_fit(int y, int x, int w, int attr, const char *const *texts);

/* A line chart of n series of m points each (ys[k][i] at x = i), in the box (y, x, h, w):
 * braille dots on UTF-8, '*' and '.' otherwise; the y axis labelled with money or plain
 * numbers. mark_x >= 0 draws a vertical marker at that x value. */
typedef struct chart_series {
    const double *y;
    int n;
    const char *name;
} chart_series;

void draw_chart(int y, int x, int h, int w, const chart_series *series, int ns, double x0,
                double x1, const char *x_label, int mark_i, const char *mark_label, bool money);

/* A step chart of month values, series[k].y[j - 1] for month j = 1..n, on the x axis
 * draw_chart gives n + 1 points (index 0 the start, index j the close of month j): each month a
 * flat run over (j - 1, j], changes joined by risers; the y axis in plain numbers. */
void draw_step_chart(int y, int x, int h, int w, const chart_series *series, int ns,
                     const char *x_label);

/* The line of series k in a legend: a rule on UTF-8, else the glyph its dots take. */
const char *draw_series_glyph(int k);

/* The running totals of v[0..n) into out (room for n), as the series called name (borrowed). */
chart_series draw_running_total(const double *v, int n, double *out, const char *name);

/* The screen column where point i of npts falls on a chart drawn at (x, w): -1 when the
 * chart is too narrow to draw. */
int draw_chart_column(int x, int w, int npts, int i);

/* A one-column glyph at (y, x): code point cp (below 0x10000) on UTF-8, else ascii. Returns
 * the columns used (0 off screen). */
int draw_glyph(int y, int x, long cp, char ascii, int attr);

/* A sparkline of n values in 0..max into w columns. */
void draw_sparkline(int y, int x, int w, const double *v, int n, double max, int attr);

/* A horizontal bar of fraction f (0..1) in w columns. */
void draw_bar(int y, int x, int w, double f, int attr);

#endif
