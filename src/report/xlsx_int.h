/* What the workbook writers share (src/report/xlsx.c implements it; xlsx_compare.c uses it):
 * the workbook with its formats, checked cell writers, sheet finishing, and the capture of
 * libxlsxwriter's own stderr lines. Only src/report/xlsx*.c include this (and libxlsxwriter). */
#ifndef GPUPLAN_XLSX_INT_H
#define GPUPLAN_XLSX_INT_H

#include <stdbool.h>
#include <stdio.h>
#include <xlsxwriter.h>

typedef struct book {
    lxw_workbook *wb;
    lxw_format *bold, *head, *money, *num, *pct, *date, *month, *in_num, *in_date, *in_text, *note;
    lxw_error rc; /* the first error a write returned */
} book;

/* Open a constant-memory workbook at tmp with the shared formats (money in currency; inputs
 * blue on light yellow and unlocked). LXW_NO_ERROR or why not (b->wb NULL then). */
lxw_error gp_xlsx_book_open(book *b, const char *tmp, const char *currency);
/* Record e in b->rc unless an earlier error is there. */
void gp_xlsx_keep(book *b, lxw_error e);
/* The column letters of col (0-based) into out (at least 4 bytes). */
void gp_xlsx_col_name(int col, char *out);
/* Outside text, cleaned of control characters, always as a string; a number. */
void gp_xlsx_text(book *b, lxw_worksheet *ws, int row, int col, const char *s, lxw_format *f);
void gp_xlsx_num(book *b, lxw_worksheet *ws, int row, int col, double v, lxw_format *f);
/* A formula (printf-style) with its cached value: what a viewer that does not recalculate
 * shows. */
void gp_xlsx_formula(book *b, lxw_worksheet *ws, int row, int col, double cached, lxw_format *f,
                     const char *fmt, ...) __attribute__((format(printf, 7, 8)));
/* Print setup (A4, one page wide, head_row repeated when >= 0) and protection. */
void gp_xlsx_finish_sheet(lxw_worksheet *ws, bool landscape, int head_row);

/* While any workbook is written (batch writes several at once, on threads), fd 2 goes to one
 * scratch file; the last quiet_end restores it. quiet_end hands back the system error that
 * libxlsxwriter printed for the workbook at tmp ("" when none) and passes any other line on to
 * stderr. Thread-safe. */
typedef struct quiet {
    const char *tmp; /* the file libxlsxwriter writes, as its messages name it */
} quiet;
void gp_xlsx_quiet_begin(quiet *q, const char *tmp);
void gp_xlsx_quiet_end(quiet *q, char *said, size_t cap);

#endif
