/* The batch run's index.html (report_batch.h): one self-contained page, inline CSS and SVG, no
 * script, nothing fetched. Figures come from the trees given (summary.json, each report JSON),
 * so the page shows exactly what the JSON files say; every string from data is escaped. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/numfmt.h"
#include "gpuplan/parse.h"
#include "gpuplan/report.h"
#include "gpuplan/report_batch.h"
#include "gpuplan/svg.h"

#define P(...)                                                                                     \
    do {                                                                                           \
        if (gp_buf_printf(out, __VA_ARGS__))                                                       \
            return GP_E_LIMIT;                                                                     \
    } while (0)
#define E(s)                                                                                       \
    do {                                                                                           \
        if (gp_html_escape(out, (s)))                                                              \
            return GP_E_LIMIT;                                                                     \
    } while (0)
#define TRY(x)                                                                                     \
    do {                                                                                           \
        if ((x) != GP_OK)                                                                          \
            return GP_E_LIMIT;                                                                     \
    } while (0)

static const char CSS[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#111}"
    "h1{font-size:1.6em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:2em}"
    "table{border-collapse:collapse;width:100%}th,td{border:1px solid #ddd;padding:3px 6px;"
    "text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "th{background:#f3f4f6}.flip{color:#b91c1c;font-weight:bold}.muted{color:#666}"
    "svg.chart{display:block;margin:1em 0;max-width:100%;height:auto}"
    "svg text{font-size:11px;fill:#333}line.axis{stroke:#999}line.grid{stroke:#eee}"
    "polyline.series{fill:none;stroke-width:2}circle.break-even{fill:#fff;stroke:#111;"
    "stroke-width:2}line.exit-value{stroke:#111;stroke-dasharray:3 2}text.exit-value{"
    "font-style:italic}rect.low{fill:#2563eb}rect.high{fill:#f59e0b}rect.idle{fill:#dc2626}"
    ".s0{stroke:#111}.s1{stroke:#2563eb}.s2{stroke:#16a34a}.s3{stroke:#f59e0b}"
    ".s4{stroke:#9333ea}.s5{stroke:#dc2626}.s6{stroke:#0891b2}.s7{stroke:#65a30d}"
    ".s8{stroke:#db2777}.s9{stroke:#78716c}"
    "@media print{body{margin:0;max-width:none}section{break-inside:avoid}}";

static const char *str(const cJSON *o, const char *key) {
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
    return s ? s : "";
}

static bool num(const cJSON *o, const char *key, double *v) {
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key);
    *v = cJSON_IsNumber(x) ? x->valuedouble : 0;
    return cJSON_IsNumber(x);
}

/* A number cell: its exact value in data-v, formatted for people. */
static gp_status num_cell(gp_buf *out, const char *field, const cJSON *o, const char *key,
                          int kind) {
    double v;
    if (!num(o, key, &v)) {
        P("<td class=\"num\" data-field=\"%s\">-</td>", field);
        return GP_OK;
    }
    char t[64];
    if (kind == 0)
        gp_fmt_money(v, t, sizeof t);
    else if (kind == 1)
        snprintf(t, sizeof t, "%.0f", v);
    else
        snprintf(t, sizeof t, "%.1f %%", v * 100);
    P("<td class=\"num\" data-field=\"%s\" data-v=\"%.17g\">%s</td>", field, v, t);
    return GP_OK;
}

static gp_status text_cell(gp_buf *out, const char *field, const char *text) {
    P("<td data-field=\"%s\">", field);
    E(text);
    P("</td>");
    return GP_OK;
}

/* Whether name is among the choices at the cheapest's total besides it (a tie). */
static bool tied_with(const cJSON *s, const char *name) {
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(s, "tied_with_cheapest")) {
        if (cJSON_IsString(t) && !strcmp(t->valuestring, name))
            return true;
    }
    return false;
}

/* The cheapest; at a tie (equal totals, the model's Ties) every side that shares its total,
 * so a tie never reads as a win. */
static gp_status cheapest_cell(gp_buf *out, const cJSON *s) {
    P("<td data-field=\"cheapest\">");
    E(str(s, "cheapest"));
    const cJSON *tied = cJSON_GetObjectItemCaseSensitive(s, "tied_with_cheapest");
    if (cJSON_GetArraySize(tied) > 0) {
        P(" <span class=\"tie\">(a tie with ");
        const cJSON *t;
        int k = 0;
        cJSON_ArrayForEach(t, tied) {
            P("%s", k++ ? ", " : "");
            E(cJSON_GetStringValue(t) ? cJSON_GetStringValue(t) : "");
        }
        P(": equal totals)</span>");
    }
    P("</td>");
    return GP_OK;
}

/* Owning's break-even month against the strongest rental; when the two tie, the month their
 * running sums meet, which is no lead. */
static gp_status break_even_cell(gp_buf *out, const cJSON *s) {
    double v;
    if (!num(s, "break_even_month", &v)) {
        P("<td class=\"num\" data-field=\"break_even_month\">-</td>");
        return GP_OK;
    }
    const char *rival = str(s, "rival"), *cheapest = str(s, "cheapest");
    bool tie = *rival &&
               (tied_with(s, rival) || (!strcmp(cheapest, rival) && tied_with(s, GP_BATCH_SELF)));
    P("<td class=\"num\" data-field=\"break_even_month\" data-v=\"%.17g\">%.0f%s</td>", v, v,
      tie ? " <span class=\"tie\">(a tie: the totals meet)</span>" : "");
    return GP_OK;
}

/* The strongest rental; when it is spot capacity, which can be reclaimed, the strongest with
 * guaranteed capacity beside it, and owning's break-even month against that one. */
static gp_status rival_cell(gp_buf *out, const cJSON *s) {
    P("<td data-field=\"rival\">");
    E(str(s, "rival"));
    if (*str(s, "guaranteed_rival")) {
        P(" (spot; guaranteed: <span class=\"guaranteed-rival\">");
        E(str(s, "guaranteed_rival"));
        double m;
        if (num(s, "guaranteed_break_even_month", &m))
            P("</span>, break-even month <span class=\"guaranteed-break-even\">%.0f</span>)", m);
        else
            P("</span>, no break-even)");
    }
    P("</td>");
    return GP_OK;
}

/* The cost per unit of work, named by its unit; significant digits, since a unit of work can
 * cost a fraction of a cent. */
static gp_status work_unit_cell(gp_buf *out, const cJSON *s) {
    double v;
    if (!num(s, "cost_per_work_unit", &v)) {
        P("<td class=\"num\" data-field=\"cost_per_work_unit\">-</td>");
        return GP_OK;
    }
    P("<td class=\"num\" data-field=\"cost_per_work_unit\" data-v=\"%.17g\">%.6g per ", v, v);
    E(str(s, "work_unit")[0] ? str(s, "work_unit") : "work unit");
    P("</td>");
    return GP_OK;
}

/* The basis of an exit value in words ("straight_line" -> "straight line"). */
static const char *basis_words(const char *key) {
    return !strcmp(key, "straight_line")  ? "straight line to residual_pct"
           : !strcmp(key, "resale")       ? "resale curve"
           : !strcmp(key, "residual_pct") ? "flat residual_pct"
                                          : key;
}

/* 2.1: the exit value within owning's total (a book value, not cash) and its basis; "-" when
 * there is none, or the summary predates it. */
static gp_status exit_cell(gp_buf *out, const cJSON *s) {
    double v;
    if (!num(s, "exit_value", &v) || v == 0) {
        P("<td class=\"num\" data-field=\"exit_value\">-</td>");
        return GP_OK;
    }
    char t[64];
    gp_fmt_money(v, t, sizeof t);
    P("<td class=\"num\" data-field=\"exit_value\" data-v=\"%.17g\">%s <span "
      "class=\"muted\">(",
      v, t);
    E(basis_words(str(s, "exit_value_basis")));
    P(")</span></td>");
    return GP_OK;
}

static gp_status decision_row(gp_buf *out, const cJSON *s, int i) {
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(s, "choices");
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(s, "files");
    P("<tr class=\"scenario\" data-index=\"%d\"><td data-field=\"name\"><a href=\"#s-%d\">", i, i);
    E(str(s, "name"));
    P("</a></td>");
    TRY(cheapest_cell(out, s));
    TRY(num_cell(out, "cheapest_total", s, "cheapest_total", 0));
    TRY(num_cell(out, "self_total", cJSON_GetArrayItem(choices, 0), "total", 0));
    TRY(exit_cell(out, s));
    TRY(rival_cell(out, s));
    TRY(break_even_cell(out, s));
    TRY(num_cell(out, "utilization", s, "utilization", 2));
    TRY(num_cell(out, "cost_per_gpu_hour", s, "cost_per_gpu_hour", 0));
    TRY(work_unit_cell(out, s));
    TRY(text_cell(out, "measured",
                  cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "measured")) ? "measured"
                                                                                : "as entered"));
    P("<td data-field=\"files\">");
    const cJSON *f;
    cJSON_ArrayForEach(f, files) {
        P("<a href=\"");
        E(cJSON_GetStringValue(f));
        P("\">");
        E(f->string);
        P("</a> ");
    }
    P("</td></tr>\n");
    return GP_OK;
}

static gp_status decisions(gp_buf *out, const cJSON *summary) {
    P("<section id=\"decisions\"><h2>Decisions</h2><table id=\"decision-table\"><thead><tr>"
      "<th>Scenario</th><th>Cheapest</th><th>Its total</th><th>Owning total</th>"
      "<th>Exit value in it</th>"
      "<th>Strongest rental</th><th>Break-even month</th><th>Utilization</th>"
      "<th>Cost per GPU-hour</th><th>Cost per work "
      "unit</th><th>Figures</th><th>Files</th></tr></thead><tbody>\n");
    const cJSON *s;
    int i = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(summary, "scenarios")) {
        TRY(decision_row(out, s, i++));
    }
    P("</tbody></table></section>\n");
    return GP_OK;
}

/* One side of a change as people read it: money, a month, a figure, or what absence means. */
static void side_text(const char *kind, bool has, double v, char *out, size_t cap) {
    if (!has)
        snprintf(out, cap, "%s", strcmp(kind, "break_even") ? "none" : "never");
    else if (!strcmp(kind, "total") || !strcmp(kind, "exit_value"))
        gp_fmt_money(v, out, cap);
    else if (!strcmp(kind, "break_even"))
        snprintf(out, cap, "month %.0f", v);
    else
        snprintf(out, cap, "%.6g", v);
}

static const char *kind_text(const char *kind) {
    return !strcmp(kind, "total")        ? "total of "
           : !strcmp(kind, "break_even") ? "break-even against "
           : !strcmp(kind, "price")      ? "price of "
           : !strcmp(kind, "exit_value") ? "exit value credited in owning's total, valued on "
                                         : "";
}

static gp_status change_item(gp_buf *out, const cJSON *c) {
    const char *kind = str(c, "kind");
    double o, n;
    bool has_o = num(c, "old", &o), has_n = num(c, "new", &n);
    P("<li class=\"change%s\" data-kind=\"", strcmp(kind, "flip") ? "" : " flip");
    E(kind);
    P("\"><span class=\"scenario\">");
    E(str(c, "scenario"));
    P("</span>: ");
    if (!strcmp(kind, "flip")) {
        E(str(c, "what"));
        P(" is now the cheapest (was ");
        E(str(c, "was"));
        P(")");
    } else if (!strcmp(kind, "added") || !strcmp(kind, "removed")) {
        P("%s", kind);
    } else {
        char a[64], b[64];
        side_text(kind, has_o, o, a, sizeof a);
        side_text(kind, has_n, n, b, sizeof b);
        P("%s", !strcmp(kind, "measured") ? "measured " : kind_text(kind));
        E(str(c, "what"));
        if (!strcmp(kind, "price")) {
            P(" (");
            E(str(c, "catalog"));
            P(")");
        }
        P(": %s &#8594; %s", a, b);
        if (!strcmp(kind, "price")) {
            P(" (");
            E(str(c, "source"));
            P(", ");
            E(str(c, "effective_from"));
            P(")");
        }
    }
    if (str(c, "because")[0]) {
        P(" <span class=\"because\">because ");
        E(str(c, "because"));
        P("</span>");
    }
    P("</li>\n");
    return GP_OK;
}

static gp_status changes(gp_buf *out, const cJSON *diff) {
    P("<section id=\"changes\"><h2>What changed</h2>");
    if (!diff) {
        P("<p class=\"muted\">No earlier run to compare with.</p></section>\n");
        return GP_OK;
    }
    double flips;
    num(diff, "flips", &flips);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(diff, "changes");
    P("<p>Compared with ");
    E(str(diff, "against"));
    P(": <span class=\"%s\" id=\"flips\" data-v=\"%.0f\">%.0f decision%s flipped</span>, %d "
      "change%s.</p><ul>",
      flips > 0 ? "flip" : "", flips, flips, flips == 1 ? "" : "s", cJSON_GetArraySize(list),
      cJSON_GetArraySize(list) == 1 ? "" : "s");
    const cJSON *c;
    for (int pass = 0; pass < 2; pass++)
        cJSON_ArrayForEach(c, list) {
            if ((strcmp(str(c, "kind"), "flip") == 0) == (pass == 0))
                TRY(change_item(out, c));
        }
    P("</ul></section>\n");
    return GP_OK;
}

/* ---- charts -------------------------------------------------------------------------------- */

/* A series' cumulative cost by month (its "monthly" flows summed) into v (room for
 * GP_MAX_MONTHS + 1); how many months. */
static int monthly(const cJSON *o, double *v) {
    int n = 0;
    double sum = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(o, "monthly")) {
        if (n > GP_MAX_MONTHS)
            break;
        sum += cJSON_IsNumber(x) ? x->valuedouble : 0;
        v[n++] = sum;
    }
    return n;
}

typedef struct frame {
    double w, h, l, r, t, b; /* size and margins */
    double x0, x1, y0, y1;   /* data ranges */
} frame;

static double fx(const frame *f, double x) {
    return f->l + (x - f->x0) / (f->x1 > f->x0 ? f->x1 - f->x0 : 1) * (f->w - f->l - f->r);
}
static double fy(const frame *f, double y) {
    return f->h - f->b - (y - f->y0) / (f->y1 > f->y0 ? f->y1 - f->y0 : 1) * (f->h - f->t - f->b);
}

/* A round step for about n ticks over span: 1, 2, 2.5 or 5 times a power of ten. */
static double nice_step(double span, int n) {
    double raw = span > 0 ? span / n : 1, p = pow(10, floor(log10(raw))), m = raw / p;
    return p * (m <= 1 ? 1 : m <= 2 ? 2 : m <= 2.5 ? 2.5 : m <= 5 ? 5 : 10);
}

/* The range widened to whole steps, so every tick is a round figure. */
static void round_range(frame *f, int n, double *step) {
    *step = nice_step(f->y1 - f->y0, n);
    f->y0 = floor(f->y0 / *step + 1e-9) * *step;
    f->y1 = ceil(f->y1 / *step - 1e-9) * *step;
    if (f->y1 <= f->y0)
        f->y1 = f->y0 + *step;
}

/* A tick as people read a chart: "12 M", "2.5 M", "500 k", "0", with the decimals the step
 * needs. */
static void tick_text(double v, double step, char *out, size_t cap) {
    double unit = step >= 1e6 ? 1e6 : step >= 1e3 ? 1e3 : 1;
    const char *suffix = unit == 1e6 ? " M" : unit == 1e3 ? " k" : "";
    double s = step / unit;
    int dec = s >= 1 && fabs(s - round(s)) < 1e-9 ? 0 : fabs(s * 10 - round(s * 10)) < 1e-9 ? 1 : 2;
    if (fabs(v) < step * 1e-9)
        v = 0;
    char n[48];
    snprintf(n, sizeof n, "%.*f", dec, v / unit);
    size_t len = strlen(n);
    while (dec > 0 && len > 0 && (n[len - 1] == '0' || n[len - 1] == '.')) /* "5.0" -> "5" */
        if (n[--len] == '.')
            dec = 0;
    n[len] = '\0';
    snprintf(out, cap, "%s%s", n, v == 0 ? "" : suffix);
}

static gp_status axes(gp_buf *out, const frame *f, int months, double step) {
    char t[64];
    int n = (int)lround((f->y1 - f->y0) / step);
    for (int k = 0; k <= n; k++) {
        double y = f->y0 + step * k;
        TRY(gp_svg_line(out, f->l, fy(f, y), f->w - f->r, fy(f, y),
                        fabs(y) < step * 1e-9 ? "axis" : "grid"));
        tick_text(y, step, t, sizeof t);
        TRY(gp_svg_text(out, f->l - 4, fy(f, y) + 4, "end", "tick", t));
    }
    int every = months > 60 ? 24 : months > 24 ? 12 : 6;
    for (int m = 0; m <= months; m += every) {
        snprintf(t, sizeof t, "%d", m);
        TRY(gp_svg_text(out, fx(f, m), f->h - f->b + 14, "middle", "tick", t));
    }
    TRY(gp_svg_text(out, (f->l + f->w - f->r) / 2, f->h - 4, "middle", "label", "month"));
    return GP_OK;
}

static gp_status curve(gp_buf *out, const frame *f, const cJSON *o, const char *name, int k) {
    double v[GP_MAX_MONTHS + 1], x[GP_MAX_MONTHS + 1], y[GP_MAX_MONTHS + 1];
    int n = monthly(o, v);
    for (int m = 0; m < n; m++) {
        x[m] = fx(f, m);
        y[m] = fy(f, v[m]);
    }
    char cls[32];
    snprintf(cls, sizeof cls, "series s%d", k % 10);
    TRY(gp_svg_polyline(out, x, y, (size_t)n, cls, name));
    TRY(gp_svg_line(out, f->w - f->r + 8, f->t + 14.0 * k + 6, f->w - f->r + 22,
                    f->t + 14.0 * k + 6, cls));
    return gp_svg_text(out, f->w - f->r + 26, f->t + 14.0 * k + 10, "start", "legend", name);
}

static gp_status cumulative_chart(gp_buf *out, const cJSON *report) {
    const cJSON *self = cJSON_GetObjectItemCaseSensitive(report, "self_hosted");
    const cJSON *opts = cJSON_GetObjectItemCaseSensitive(report, "options");
    double h_m;
    num(report, "horizon_months", &h_m);
    frame f = {760, 320, 90, 190, 16, 36, 0, h_m > 0 ? h_m : 1, 0, 1};
    double v[GP_MAX_MONTHS + 1];
    const cJSON *o;
    for (int i = monthly(self, v); i-- > 0;)
        f.y1 = fmax(f.y1, v[i]);
    cJSON_ArrayForEach(o, opts) {
        for (int i = monthly(o, v); i-- > 0;)
            f.y1 = fmax(f.y1, v[i]);
    }
    f.y0 = 0;
    cJSON_ArrayForEach(o, opts) {
        for (int i = monthly(o, v); i-- > 0;)
            f.y0 = fmin(f.y0, v[i]);
    }
    for (int i = monthly(self, v); i-- > 0;)
        f.y0 = fmin(f.y0, v[i]); /* a residual value can end owning below zero */
    /* 2.1: owning's line drops at M by its exit value; the chart shows where from. */
    double ev = 0;
    int n_self = monthly(self, v);
    bool has_exit = num(self, "exit_value", &ev) && ev != 0 && n_self > 0;
    if (has_exit)
        f.y1 = fmax(f.y1, v[n_self - 1] + ev);
    double step;
    round_range(&f, 5, &step);
    TRY(gp_svg_begin(out, f.w, f.h, "cumulative", "cumulative cost by month",
                     1 + cJSON_GetArraySize(opts)));
    TRY(axes(out, &f, (int)h_m, step));
    TRY(curve(out, &f, self, "self_hosted", 0));
    int k = 1;
    cJSON_ArrayForEach(o, opts) {
        TRY(curve(out, &f, o, str(o, "name"), k++));
    }
    if (has_exit) {
        double x = fx(&f, n_self - 1), top = fy(&f, v[n_self - 1] + ev),
               bot = fy(&f, v[n_self - 1]);
        char t[64], label[160];
        gp_fmt_money(ev, t, sizeof t);
        snprintf(label, sizeof label, "exit value %s (%s)", t,
                 basis_words(str(self, "exit_value_basis")));
        TRY(gp_svg_group_begin(out, "exit-value", label));
        TRY(gp_svg_line(out, x - 6, top, x + 6, top, "exit-value"));
        TRY(gp_svg_line(out, x, top, x, bot, "exit-value"));
        TRY(gp_svg_text(out, x - 8, (top + bot) / 2 + 4, "end", "exit-value", label));
        TRY(gp_svg_group_end(out));
    }
    cJSON_ArrayForEach(o, opts) {
        double m;
        if (!num(o, "break_even_month", &m) || m < 0 || m >= n_self)
            continue;
        char tip[1024];
        snprintf(tip, sizeof tip, "break-even with %s: month %.0f", str(o, "name"), m);
        TRY(gp_svg_circle(out, fx(&f, m), fy(&f, v[(int)m]), 4.5, "break-even", tip));
    }
    return gp_svg_end(out);
}

static gp_status tornado_chart(gp_buf *out, const cJSON *t) {
    const cJSON *rows = cJSON_GetObjectItemCaseSensitive(t, "rows"), *r;
    int n = cJSON_GetArraySize(rows);
    double max = 0, lo, hi;
    cJSON_ArrayForEach(r, rows) {
        num(r, "low", &lo);
        num(r, "high", &hi);
        max = fmax(max, fmax(fabs(lo), fabs(hi)));
    }
    double w = 760, mid = 520, half = 230, row = 22;
    char label[1024];
    snprintf(label, sizeof label, "sensitivity of %s against owning", str(t, "option"));
    TRY(gp_svg_begin(out, w, 30 + row * n, "tornado", label, n));
    TRY(gp_svg_line(out, mid, 4, mid, 30 + row * n - 4, "axis"));
    int i = 0;
    cJSON_ArrayForEach(r, rows) {
        num(r, "low", &lo);
        num(r, "high", &hi);
        double y = 10 + row * i++, sl = max > 0 ? lo / max * half : 0,
               sh = max > 0 ? hi / max * half : 0;
        char tip[256], a[48], b[48];
        gp_fmt_money(lo, a, sizeof a);
        gp_fmt_money(hi, b, sizeof b);
        /* Named as the CLI names the input; a tornado written before names has the path. */
        const char *name = str(r, "label")[0] ? str(r, "label") : str(r, "input");
        snprintf(tip, sizeof tip, "%s (%s): %s at the low end, %s at the high end", name,
                 str(r, "input"), a, b);
        TRY(gp_svg_group_begin(out, "series", name));
        TRY(gp_svg_text(out, mid - half - 12, y + 13, "end", "label", name));
        TRY(gp_svg_rect(out, fmin(mid, mid + sl), y, fabs(sl), row - 6, "low", NULL, tip));
        TRY(gp_svg_rect(out, fmin(mid, mid + sh), y + (row - 6) / 2, fabs(sh), (row - 6) / 2,
                        "high", NULL, tip));
        TRY(gp_svg_group_end(out));
    }
    return gp_svg_end(out);
}

/* A list of per-month numbers (month 1 first) into v (room for GP_MAX_MONTHS); how many. */
static int month_list(const cJSON *a, double *v) {
    int n = 0;
    const cJSON *x;
    cJSON_ArrayForEach(x, a) {
        if (n >= GP_MAX_MONTHS)
            break;
        v[n++] = cJSON_IsNumber(x) ? x->valuedouble : 0;
    }
    return n;
}

static bool varies(const double *v, int n) {
    for (int i = 1; i < n; i++)
        if (v[i] != v[0])
            return true;
    return false;
}

/* A step series: value v[j] held over month j + 1, i.e. from x = j to x = j + 1. */
static gp_status steps(gp_buf *out, const frame *f, const double *v, int n, const char *name,
                       int k) {
    double x[2 * GP_MAX_MONTHS], y[2 * GP_MAX_MONTHS];
    for (int j = 0; j < n; j++) {
        x[2 * j] = fx(f, j);
        x[2 * j + 1] = fx(f, j + 1);
        y[2 * j] = y[2 * j + 1] = fy(f, v[j]);
    }
    char cls[32];
    snprintf(cls, sizeof cls, "series s%d", k % 10);
    TRY(gp_svg_polyline(out, x, y, (size_t)(2 * n), cls, name));
    TRY(gp_svg_line(out, f->w - f->r + 8, f->t + 14.0 * k + 6, f->w - f->r + 22,
                    f->t + 14.0 * k + 6, cls));
    return gp_svg_text(out, f->w - f->r + 26, f->t + 14.0 * k + 10, "start", "legend", name);
}

/* The monthly plan of a scenario that plans over time (docs/model.md version 2): GPUs demanded
 * and GPUs owned (servers in service x GPUs a server) by month, as steps. Nothing for a plan
 * whose demand and fleet stay the same every month, or in work mode (no GPU demand). */
static gp_status plan_chart(gp_buf *out, const cJSON *report) {
    const cJSON *demand = cJSON_GetObjectItemCaseSensitive(report, "demand");
    const cJSON *self = cJSON_GetObjectItemCaseSensitive(report, "self_hosted");
    const cJSON *sj = cJSON_GetObjectItemCaseSensitive(report, "scenario_json");
    const cJSON *g = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(sj, "self_hosted"), "gpus_per_server");
    double want[GP_MAX_MONTHS], own[GP_MAX_MONTHS];
    int n = month_list(cJSON_GetObjectItemCaseSensitive(demand, "gpus"), want);
    int k = month_list(cJSON_GetObjectItemCaseSensitive(self, "servers_in_service"), own);
    if (!n || k != n || !(varies(want, n) || varies(own, n)))
        return GP_OK;
    frame f = {760, 260, 90, 190, 16, 36, 0, n, 0, 1};
    for (int j = 0; j < n; j++) {
        own[j] *= cJSON_IsNumber(g) ? g->valuedouble : 8;
        f.y1 = fmax(f.y1, fmax(want[j], own[j]) * 1.1);
    }
    P("<p>The plan month by month: GPUs demanded and GPUs owned (servers in service).</p>\n");
    TRY(gp_svg_begin(out, f.w, f.h, "plan", "GPUs demanded and owned by month", 2));
    char t[32];
    double step;
    round_range(&f, 4, &step);
    if (step < 1) /* GPUs come whole */
        f.y1 = f.y0 + 4 * (step = 1);
    for (int q = 0; q <= (int)lround(f.y1 / step); q++) {
        double y = step * q;
        TRY(gp_svg_line(out, f.l, fy(&f, y), f.w - f.r, fy(&f, y), q ? "grid" : "axis"));
        tick_text(y, step, t, sizeof t);
        TRY(gp_svg_text(out, f.l - 4, fy(&f, y) + 4, "end", "tick", t));
    }
    TRY(steps(out, &f, want, n, "GPUs demanded", 1));
    TRY(steps(out, &f, own, n, "GPUs owned", 2));
    return gp_svg_end(out);
}

gp_status gp_report_html_scenario(gp_buf *out, const cJSON *report, const cJSON *tornado,
                                  int index) {
    P("<section class=\"scenario\" id=\"s-%d\"><h2>", index);
    E(str(report, "scenario"));
    P("</h2><p>Cheapest: <b class=\"cheapest\">");
    E(str(report, "cheapest"));
    bool bold = true; /* a <b> is open */
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(report, "cheapest_rests_on_spot"))) {
        P("</b>, spot capacity, which the provider can reclaim; the cheapest with guaranteed "
          "capacity: <b class=\"guaranteed\">");
        E(*str(report, "cheapest_guaranteed") ? str(report, "cheapest_guaranteed") : "none");
        const cJSON *own = cJSON_GetObjectItemCaseSensitive(report, "self_hosted");
        double v; /* 2.1: owning's total there holds its exit value, a book value */
        if (!strcmp(str(report, "cheapest_guaranteed"), "self_hosted") &&
            num(own, "exit_value", &v) && v > 0) {
            char t[64];
            gp_fmt_money(v, t, sizeof t);
            P("</b>, after crediting %s of exit value (", t);
            E(basis_words(str(own, "exit_value_basis")));
            P(")");
            const char *w = str(report, "cheapest_guaranteed_without_exit");
            bold = *w && strcmp(w, "self_hosted");
            if (bold) {
                P("; without it: <b class=\"guaranteed-without-exit\">");
                E(w);
            }
        }
    }
    P("%s", bold ? "</b>" : "");
    /* A tie (equal totals): `cheapest` names the first in order, so the others are named. */
    const cJSON *tied = cJSON_GetObjectItemCaseSensitive(report, "tied_with_cheapest");
    if (cJSON_GetArraySize(tied) > 0) {
        P("; a tie: <span class=\"tie\">");
        const cJSON *t;
        int k = 0;
        cJSON_ArrayForEach(t, tied) {
            P("%s", k++ ? ", " : "");
            E(cJSON_GetStringValue(t) ? cJSON_GetStringValue(t) : "");
        }
        P("</span> %s the same", k == 1 ? "costs" : "cost");
    }
    P(". Cumulative cost of every option");
    P(" against owning (self_hosted), in ");
    E(str(report, "currency"));
    P("; a circle marks the month owning becomes the cheaper of the two.");
    const cJSON *self = cJSON_GetObjectItemCaseSensitive(report, "self_hosted");
    double ev, h_m;
    if (num(self, "exit_value", &ev) && ev != 0 && num(report, "horizon_months", &h_m)) {
        char t[64];
        gp_fmt_money(ev, t, sizeof t);
        P(" At month %.0f owning's line drops by its <b class=\"exit-value\" data-v=\"%.17g\">"
          "exit value, %s</b>: the book value of hardware still held (not cash), valued on the ",
          h_m, ev, t);
        E(basis_words(str(self, "exit_value_basis")));
        P(", and within owning's total.");
    }
    P("</p>\n");
    TRY(cumulative_chart(out, report));
    TRY(plan_chart(out, report));
    if (tornado && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(tornado, "rows")) > 0) {
        double d;
        num(tornado, "delta", &d);
        P("<p>What moves the difference between <b>");
        E(str(tornado, "option"));
        P("</b> and owning most, each input moved by &#177;%.0f %% (blue: down, amber: up; "
          "right of the axis favours owning):</p>\n",
          d * 100);
        TRY(tornado_chart(out, tornado));
    }
    P("</section>\n");
    return GP_OK;
}

/* ---- the fleet ------------------------------------------------------------------------------ */

static void heat_colour(double pct, char *out, size_t cap) {
    double t = fmin(fmax(pct / 100, 0), 1);
    snprintf(out, cap, "#%02x%02x%02x", (int)lround(241 - t * (241 - 29)),
             (int)lround(245 - t * (245 - 78)), (int)lround(249 - t * (249 - 216)));
}

static gp_status heatmap(gp_buf *out, const gp_heat_row *rows, size_t n) {
    double cell = 24, left = 170, top = 20;
    TRY(gp_svg_begin(out, left + 24 * cell + 10, top + cell * (double)n + 10, "heatmap",
                     "mean GPU utilization by node and UTC hour of day", (int)n));
    char t[160], fill[16];
    for (int h = 0; h < 24; h += 3) {
        snprintf(t, sizeof t, "%02d", h);
        TRY(gp_svg_text(out, left + cell * h + cell / 2, top - 6, "middle", "tick", t));
    }
    for (size_t i = 0; i < n; i++) {
        double y = top + cell * (double)i;
        TRY(gp_svg_group_begin(out, "series", rows[i].node));
        TRY(gp_svg_text(out, left - 6, y + cell * 0.65, "end", "label", rows[i].node));
        for (int h = 0; h < 24; h++) {
            if (rows[i].has[h])
                snprintf(t, sizeof t, "%s %02d:00 UTC: %.1f %%", rows[i].node, h,
                         rows[i].util_pct[h]);
            else
                snprintf(t, sizeof t, "%s %02d:00 UTC: no data", rows[i].node, h);
            heat_colour(rows[i].has[h] ? rows[i].util_pct[h] : 0, fill, sizeof fill);
            TRY(gp_svg_rect(out, left + cell * h, y, cell - 1, cell - 1,
                            rows[i].has[h] ? "cell" : "cell empty", rows[i].has[h] ? fill : "#fff",
                            t));
        }
        TRY(gp_svg_group_end(out));
    }
    return gp_svg_end(out);
}

static gp_status idle_money(gp_buf *out, const cJSON *capacity) {
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(capacity, "nodes"), *nd;
    double max = 0, v;
    int n = 0;
    cJSON_ArrayForEach(nd, nodes) {
        if (num(nd, "idle_cost", &v)) {
            max = fmax(max, v);
            n++;
        }
    }
    if (!n)
        return GP_OK;
    P("<p>Money spent on idle capacity per node over the window (power of GPUs under 5 %% "
      "utilization, at the first scenario's tariff and PUE), in ");
    E(str(capacity, "currency"));
    P(":</p>\n");
    double row = 22, left = 170, width = 480;
    TRY(gp_svg_begin(out, 760, 10 + row * n, "idle", "idle money per node", n));
    int i = 0;
    cJSON_ArrayForEach(nd, nodes) {
        if (!num(nd, "idle_cost", &v))
            continue;
        double y = 5 + row * i++;
        char t[64];
        gp_fmt_money(v, t, sizeof t);
        TRY(gp_svg_group_begin(out, "series", nd->string));
        TRY(gp_svg_text(out, left - 6, y + 13, "end", "label", nd->string));
        TRY(gp_svg_rect(out, left, y, max > 0 ? v / max * width : 0, row - 6, "idle", NULL, t));
        TRY(gp_svg_text(out, left + (max > 0 ? v / max * width : 0) + 6, y + 13, "start", "value",
                        t));
        TRY(gp_svg_group_end(out));
    }
    return gp_svg_end(out);
}

static gp_status fleet(gp_buf *out, const gp_batch_page *pg) {
    P("<section id=\"fleet\"><h2>Fleet</h2>");
    if (!pg->n_heat && !pg->capacity) {
        P("<p class=\"muted\">No telemetry in the last 30 days.</p></section>\n");
        return GP_OK;
    }
    if (pg->n_heat) {
        P("<p>Mean GPU utilization by node and hour of day (UTC), last 30 days; darker is "
          "busier.</p>\n");
        TRY(heatmap(out, pg->heat, pg->n_heat));
    }
    if (pg->capacity)
        TRY(idle_money(out, pg->capacity));
    P("</section>\n");
    return GP_OK;
}

/* 2.1: every catalog price a scenario took in another currency, with the rate and its date,
 * and its age when stale. */
static gp_status converted_prices(gp_buf *out, const cJSON *summary) {
    const cJSON *sc, *p;
    bool any = false;
    cJSON_ArrayForEach(sc, cJSON_GetObjectItemCaseSensitive(summary, "scenarios")) {
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(sc, "prices")) {
            double rate, listed;
            if (!num(p, "fx_rate", &rate) || !num(p, "listed_hourly", &listed))
                continue;
            if (!any)
                P("<p class=\"muted\">Prices converted at exchange rates:</p><ul class=\"fx\">\n");
            any = true;
            P("<li>");
            E(str(sc, "name"));
            P(": ");
            E(str(p, "catalog"));
            P(" listed %.6g ", listed);
            E(str(p, "currency"));
            P("/h, converted at %.6g ", rate);
            E(str(sc, "currency"));
            P(" per ");
            E(str(p, "currency"));
            P(" of ");
            E(str(p, "fx_date"));
            P(" (");
            E(str(p, "fx_source"));
            P(")");
            /* A stale rate flagged with its age, as the Markdown report's sources word it. */
            long a, d;
            if (gp_date_days(str(summary, "as_of"), &a) && gp_date_days(str(p, "fx_date"), &d) &&
                a - d > GP_FX_STALE_DAYS) {
                P("; <strong>rate %ld days old on ", a - d);
                E(str(summary, "as_of"));
                P("</strong> (over %d)", GP_FX_STALE_DAYS);
            }
            P("</li>\n");
        }
    }
    if (any)
        P("</ul>\n");
    return GP_OK;
}

static gp_status head(gp_buf *out, const cJSON *summary) {
    const char *day = str(summary, "day");
    P("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpuplan batch ");
    E(day);
    P("</title><style>%s</style></head><body>\n<h1>gpuplan: own or rent, ", CSS);
    E(day);
    P("</h1><p class=\"muted\">Catalog prices as of ");
    E(str(summary, "as_of"));
    P("; run started ");
    E(str(summary, "started_at"));
    P("; %d scenarios.</p>\n",
      cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(summary, "scenarios")));
    return converted_prices(out, summary);
}

gp_status gp_report_batch_html(const gp_batch_page *pg, gp_buf *out, gp_err *err) {
    if (head(out, pg->summary) || decisions(out, pg->summary) || changes(out, pg->diff))
        goto full;
    int n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(pg->summary, "scenarios"));
    for (int i = 0; i < n; i++)
        if (pg->reports[i] &&
            gp_report_html_scenario(out, pg->reports[i], pg->tornados ? pg->tornados[i] : NULL, i))
            goto full;
    if (fleet(out, pg) || gp_buf_printf(out, "</body></html>\n"))
        goto full;
    return GP_OK;
full:
    return gp_errorf(err, GP_E_LIMIT, "index.html", "the page is larger than %zu bytes",
                     out->limit);
}
