/* The procurement workbook. Sheets: Summary (the answer, per-year totals, the break-even
 * chart), Assumptions (the only sheet to edit: blue on light yellow, unlocked), Plan (one row
 * per index m = 0..M: demand, servers, power, the bridge, every side's flow and running sum),
 * Batches (one row per delivery index d: the docs/model.md "In a workbook" layout, network
 * shares by generation), Utilization (hidden: break-even utilization, GPU mode), BOM,
 * Telemetry (measured scenarios), Sources. Every figure of Plan, Batches, Utilization, Summary
 * and BOM is a live formula on the Assumptions cells, with the engine's value cached where the
 * engine reports one (Excel and LibreOffice recalculate on load anyway).
 * Rows are laid out for the scenario's horizon, steps, tiers, resale points, tariff periods
 * and options: those are the structure, and editing a value among them recalculates; adding
 * rows does not. Formulas follow docs/model.md term by term.
 * This file opens the book, calls one writer a sheet (xlsx_<sheet>.c, through xlsx_sheets.h) and
 * holds the cell writers every workbook shares (xlsx_int.h). */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include "gpuplan/engine.h"
#include "gpuplan/output.h"
#include "gpuplan/report_exit.h"
#include "gpuplan/report_opening.h"
#include "gpuplan/report_xlsx.h"
#include "gpuplan/text.h"
#include "gpuplan/xmem.h"
#include "xlsx_int.h"
#include "xlsx_sheets.h"

void gp_xlsx_formula(book *b, lxw_worksheet *ws, int row, int col, double cached, lxw_format *f,
                     const char *fmt, ...) {
    char text[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    keep(b, worksheet_write_formula_num(ws, (lxw_row_t)row, (lxw_col_t)col, text, f, cached));
}

gp_status gp_report_xlsx(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                         const gp_xlsx_telemetry *tel, const char *path, gp_err *err) {
    return gp_report_xlsx_opt(s, r, meta, tel, NULL, path, err);
}

lxw_error gp_xlsx_book_open(book *b, const char *tmp, const char *currency) {
    /* Constant memory: every sheet is written row by row, so a Telemetry sheet of a million
     * rows costs one row of memory. */
    lxw_workbook_options opt = {.constant_memory = LXW_TRUE};
    b->wb = workbook_new_opt(tmp, &opt);
    if (!b->wb)
        return LXW_ERROR_CREATING_XLSX_FILE;
    b->bold = workbook_add_format(b->wb);
    format_set_bold(b->bold);
    b->head = workbook_add_format(b->wb);
    format_set_bold(b->head);
    format_set_text_wrap(b->head);
    format_set_align(b->head, LXW_ALIGN_VERTICAL_TOP);
    char money_fmt[64];
    snprintf(money_fmt, sizeof money_fmt, "#,##0.00 \"%s\"", currency);
    b->money = workbook_add_format(b->wb);
    format_set_num_format(b->money, money_fmt);
    b->num = workbook_add_format(b->wb);
    format_set_num_format(b->num, "#,##0.####");
    b->pct = workbook_add_format(b->wb);
    format_set_num_format(b->pct, "0.00%");
    b->date = workbook_add_format(b->wb);
    format_set_num_format(b->date, "yyyy-mm-dd");
    b->month = workbook_add_format(b->wb);
    format_set_num_format(b->month, "yyyy-mm");
    b->note = workbook_add_format(b->wb);
    format_set_italic(b->note);
    /* Inputs: the financial-model convention, blue on a light fill, and unlocked. */
    lxw_format **ins[] = {&b->in_num, &b->in_date, &b->in_text};
    for (size_t k = 0; k < 3; k++) {
        lxw_format *f = workbook_add_format(b->wb);
        format_set_font_color(f, 0x0000FF);
        format_set_bg_color(f, 0xFFF2CC);
        format_set_unlocked(f);
        *ins[k] = f;
    }
    format_set_num_format(b->in_date, "yyyy-mm-dd");
    return LXW_NO_ERROR;
}

/* The whole workbook into file `tmp`; the first error libxlsxwriter returned, or LXW_NO_ERROR. */
static lxw_error write_book(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                            const gp_xlsx_telemetry *tel, const gp_xlsx_options *o,
                            const char *tmp) {
    book b = {0};
    lxw_error opened = gp_xlsx_book_open(&b, tmp, s->currency);
    if (opened)
        return opened;

    wbctx x = {.b = &b, .s = s, .r = r, .M = s->horizon_months, .meta = meta};
    x.o = gp_xcalloc((size_t)(s->n_options + 1), sizeof *x.o);
    x.n_gen = (x.M - 1) / 12 + 1;
    x.fiscal_start = o && o->fiscal_year_start >= 1 ? o->fiscal_year_start : 1;
    const char *start = s->has_start_date ? s->start_date : meta && meta->as_of ? meta->as_of : "";
    x.start_year = 1900;
    x.start_month = 1;
    x.start_day = 1;
    if (sscanf(start, "%4d-%2d-%2d", &x.start_year, &x.start_month, &x.start_day) != 3 ||
        x.start_year < 1900)
        x.start_year = 1900, x.start_month = 1, x.start_day = 1;
    gp_xlsx_plan_layout(s, &x.c);
    shadow sv;
    x.sv = &sv;
    gp_xlsx_shadow_build(&x, &sv);
    x.colsum = gp_xcalloc((size_t)x.c.n_cols, sizeof *x.colsum);

    lxw_worksheet *sum = workbook_add_worksheet(b.wb, "Summary");
    lxw_worksheet *as = workbook_add_worksheet(b.wb, "Assumptions");
    lxw_worksheet *pl = workbook_add_worksheet(b.wb, "Plan");
    lxw_worksheet *bt = workbook_add_worksheet(b.wb, "Batches");
    lxw_worksheet *ut = s->work_mode ? NULL : workbook_add_worksheet(b.wb, "Utilization");
    lxw_worksheet *bom = workbook_add_worksheet(b.wb, "BOM");
    lxw_worksheet *tw = tel ? workbook_add_worksheet(b.wb, "Telemetry") : NULL;
    lxw_worksheet *src = workbook_add_worksheet(b.wb, "Sources");
    gp_xlsx_assumptions(&x, as, meta, x.fiscal_start);
    gp_xlsx_plan_sheet(&x, pl);
    gp_xlsx_batches_sheet(&x, bt);
    if (ut)
        gp_xlsx_utilization_sheet(&x, ut);
    gp_xlsx_summary_sheet(&x, sum);
    gp_xlsx_bom_sheet(&x, bom);
    if (tw) {
        int after = gp_xlsx_telemetry_sheet(&b, tw, tel);
        if (tel->charge_label)
            gp_xlsx_chargeback_rows(&x, tw, after, tel);
    }
    gp_xlsx_sources_sheet(&b, src, s, meta);
    free(x.o);
    free(x.colsum);
    gp_xlsx_shadow_free(&sv);

    char title[GP_NAME_BYTES];
    gp_text_clean(s->name, title, sizeof title);
    lxw_doc_properties props = {0};
    props.title = title;
    props.subject = "GPU own-or-rent plan";
    props.author = "gpuplan";
    props.comments = "Edit the Assumptions sheet; every other sheet recalculates.";
    workbook_set_properties(b.wb, &props);
    lxw_error rc = workbook_close(b.wb);
    return b.rc ? b.rc : rc;
}

/* libxlsxwriter reports a failure on stderr itself ("[ERROR] workbook_close(): ...") before it
 * returns the code, and a library must not print (docs/development.md): those lines were the only
 * output of a batch on a full disk. Its messages are printf calls compiled into the library, with
 * no switch, so fd 2 points at a scratch file while any workbook is written. One redirection for
 * the whole process, counted under a lock: batch's threads each writing a workbook must not
 * save and restore each other's scratch file (which left fd 2 on a closed file, and every later
 * message lost). The TUI writes nothing to stderr while curses owns the terminal. */
static pthread_mutex_t quiet_mu = PTHREAD_MUTEX_INITIALIZER;

static int quiet_users; /* workbooks being written now */

static int quiet_saved = -1; /* the real fd 2 while quiet_users > 0 */

static FILE *quiet_scratch; /* what fd 2 points at then (NULL: /dev/null or not redirected) */

void gp_xlsx_quiet_begin(quiet *q, const char *tmp) {
    q->tmp = tmp;
    pthread_mutex_lock(&quiet_mu);
    if (quiet_users++ == 0) {
        fflush(stderr);
        quiet_scratch = tmpfile();
        /* Appending: another thread's library message lands at the end whatever the offset;
         * quiet_scan reads with pread, which neither uses nor moves the shared offset. */
        if (quiet_scratch)
            fcntl(fileno(quiet_scratch), F_SETFL, fcntl(fileno(quiet_scratch), F_GETFL) | O_APPEND);
        int to = quiet_scratch ? fileno(quiet_scratch) : open("/dev/null", O_WRONLY);
        quiet_saved = to >= 0 ? dup(STDERR_FILENO) : -1;
        if (quiet_saved >= 0 && dup2(to, STDERR_FILENO) < 0) {
            close(quiet_saved);
            quiet_saved = -1;
        }
        if (!quiet_scratch && to >= 0)
            close(to);
    }
    pthread_mutex_unlock(&quiet_mu);
}

/* Copy what follows "System error = " on scratch's line that names tmp into said; pass every
 * line not libxlsxwriter's ("[ERROR]", "[WARNING]") on to fd saved (by the last writer, once).
 * Read with pread from the start: fd 2 shares scratch's offset with threads still writing.
 * Called under quiet_mu. */
static void quiet_scan(FILE *scratch, const char *tmp, int saved, bool last, char *said,
                       size_t cap) {
    fflush(stderr);
    int fd = fileno(scratch);
    char buf[8192], line[4096];
    size_t n = 0; /* bytes of the line being gathered */
    off_t at = 0;
    ssize_t got;
    while ((got = pread(fd, buf, sizeof buf, at)) > 0) {
        at += got;
        for (ssize_t i = 0; i < got; i++) {
            if (n + 1 < sizeof line)
                line[n++] = buf[i];
            if (buf[i] != '\n')
                continue;
            line[n] = '\0';
            n = 0;
            bool ours = !strncmp(line, "[ERROR]", 7) || !strncmp(line, "[WARNING]", 9);
            const char *sys = strstr(line, "System error = ");
            if (ours && sys && tmp && strstr(line, tmp) && !said[0]) {
                sys += strlen("System error = ");
                snprintf(said, cap, "%.*s", (int)strcspn(sys, "\r\n"), sys);
            } else if (!ours && last && saved >= 0) {
                ssize_t w = write(saved, line, strlen(line));
                (void)w; /* the terminal's own failure: nothing better to do with it */
            }
        }
    }
    line[n] = '\0';
    if (n && last && saved >= 0 && strncmp(line, "[ERROR]", 7) && strncmp(line, "[WARNING]", 9)) {
        ssize_t w = write(saved, line, n); /* a last line without its newline */
        (void)w;
    }
}

void gp_xlsx_quiet_end(quiet *q, char *said, size_t cap) {
    said[0] = '\0';
    pthread_mutex_lock(&quiet_mu);
    bool last = --quiet_users == 0;
    if (quiet_scratch)
        quiet_scan(quiet_scratch, q->tmp, quiet_saved, last, said, cap);
    if (last) {
        fflush(stderr);
        if (quiet_saved >= 0) {
            dup2(quiet_saved, STDERR_FILENO);
            close(quiet_saved);
        }
        quiet_saved = -1;
        if (quiet_scratch)
            fclose(quiet_scratch);
        quiet_scratch = NULL;
    }
    pthread_mutex_unlock(&quiet_mu);
}

gp_status gp_report_xlsx_opt(const gp_scenario *s, const gp_result *r, const gp_report_meta *meta,
                             const gp_xlsx_telemetry *tel, const gp_xlsx_options *o,
                             const char *path, gp_err *err) {
    if (gp_report_check(r, err))
        return err->code;
    /* libxlsxwriter writes by name: a temporary file that gp_output then publishes, so -o keeps
     * its meaning (stdout, a device written in place, a regular file replaced atomically). */
    gp_output out;
    if (gp_output_open_named(&out, path, err))
        return err->code;
    quiet q;
    gp_xlsx_quiet_begin(&q, out.tmp);
    lxw_error rc = write_book(s, r, meta, tel, o, out.tmp);
    char said[160];
    gp_xlsx_quiet_end(&q, said, sizeof said);
    if (rc) {
        gp_output_abort(&out);
        return gp_errorf(err, GP_E_IO, path ? path : "-", "cannot write the workbook: %s%s%s%s",
                         lxw_strerror(rc), said[0] ? " (" : "", said, said[0] ? ")" : "");
    }
    return gp_output_commit(&out, err);
}

/* ---- shared with the other workbook writers (xlsx_int.h) -------------------------------- */

void gp_xlsx_keep(book *b, lxw_error e) {
    if (e && !b->rc)
        b->rc = e;
}

/* Column letters for A1 references. */
void gp_xlsx_col_name(int col, char *out) {
    char tmp[8];
    int n = 0;
    col++;
    while (col > 0) {
        tmp[n++] = (char)('A' + (col - 1) % 26);
        col = (col - 1) / 26;
    }
    for (int i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    out[n] = '\0';
}

/* Outside text: through gp_text_clean, the one sanitiser for every string that reaches the
 * workbook (cells, cached formula strings, document properties); always written as a string,
 * never a formula. */
void gp_xlsx_text(book *b, lxw_worksheet *ws, int row, int col, const char *s, lxw_format *f) {
    char clean[4096];
    gp_text_clean(s, clean, sizeof clean);
    keep(b, worksheet_write_string(ws, (lxw_row_t)row, (lxw_col_t)col, clean, f));
}

void gp_xlsx_num(book *b, lxw_worksheet *ws, int row, int col, double v, lxw_format *f) {
    keep(b, worksheet_write_number(ws, (lxw_row_t)row, (lxw_col_t)col, v, f));
}

/* Print setup and protection shared by every sheet: one page wide, the header row repeated,
 * formulas locked (no password: a guard against slips, not a secret). */
void gp_xlsx_finish_sheet(lxw_worksheet *ws, bool landscape, int head_row) {
    if (landscape)
        worksheet_set_landscape(ws);
    worksheet_set_paper(ws, 9); /* A4 */
    worksheet_fit_to_pages(ws, 1, 0);
    if (head_row >= 0)
        worksheet_repeat_rows(ws, (lxw_row_t)head_row, (lxw_row_t)head_row);
    lxw_protection prot = {.format_columns = 1, .format_rows = 1};
    worksheet_protect(ws, NULL, &prot);
}
