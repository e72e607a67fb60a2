/* The helpers every screen shares (ui.h). */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "gpuplan/clock.h"
#include "ui.h"

int tui_rows(void) {
    return LINES;
}
int tui_cols(void) {
    return COLS;
}

void tui_status(tui *t, const char *fmt, ...) {
    char raw[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    draw_clean(raw, t->status, sizeof t->status);
    t->status_ms = gp_now_ms();
}

bool tui_run_binding(tui *t, int ch, const tui_binding *b) {
    for (; b->run; b++) {
        if (b->key == ch) {
            b->run(t);
            return true;
        }
    }
    return false;
}

bool tui_list_key(int ch, int *sel, int n, int page) {
    int to = *sel;
    switch (ch) {
    case KEY_DOWN:
    case 'j':
        to++;
        break;
    case KEY_UP:
    case 'k':
        to--;
        break;
    case KEY_NPAGE:
        to += page > 1 ? page : 1;
        break;
    case KEY_PPAGE:
        to -= page > 1 ? page : 1;
        break;
    case KEY_HOME:
        to = 0;
        break;
    case KEY_END:
        to = n - 1;
        break;
    default:
        return false;
    }
    *sel = to >= n ? n - 1 : to;
    if (*sel < 0)
        *sel = 0;
    return true;
}

int tui_scroll(int sel, int top, int h, int n) {
    if (h <= 0)
        return 0;
    if (sel < top)
        top = sel;
    if (sel >= top + h)
        top = sel - h + 1;
    if (top > n - h)
        top = n - h;
    return top < 0 ? 0 : top;
}

/* Remove the last UTF-8 character of buf. */
static void drop_char(char *buf) {
    size_t n = strlen(buf);
    while (n && ((unsigned char)buf[n - 1] & 0xc0) == 0x80)
        n--;
    buf[n ? n - 1 : 0] = '\0';
}

int tui_line_key(char *buf, size_t cap, bool *sel, int ch) {
    bool was_sel = *sel;
    if (ch == 27)
        return TUI_LINE_CANCEL;
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
        return TUI_LINE_DONE;
    size_t n = strlen(buf);
    if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (was_sel)
            buf[0] = '\0';
        else
            drop_char(buf);
    } else if (ch == 21) { /* Ctrl-U */
        buf[0] = '\0';
    } else if (ch == 23) { /* Ctrl-W: the spaces before the cursor, then the word */
        while (n && buf[n - 1] == ' ')
            n--;
        while (n && buf[n - 1] != ' ' && buf[n - 1] != '/')
            n--;
        buf[n] = '\0';
    } else if (ch == KEY_RIGHT || ch == KEY_END || ch == KEY_LEFT || ch == KEY_HOME) {
        *sel = false; /* the cursor stays at the end; the text is kept */
        return TUI_LINE_CHANGED;
    } else if ((ch >= 0x20 && ch < 0x7f) || (ch >= 0x80 && ch < 0x100)) {
        if (was_sel)
            buf[0] = '\0', n = 0;
        if (n + 1 < cap)
            buf[n] = (char)ch, buf[n + 1] = '\0'; /* bytes of UTF-8 names and paths too */
    } else {
        return TUI_LINE_NONE;
    }
    *sel = false;
    return TUI_LINE_CHANGED;
}

void tui_line_draw(int y, int x, int w, const char *label, const char *text, bool sel,
                   const char *hint) {
    int attr = draw_attr(PAL_EDIT);
    draw_fill(y, x, w, attr);
    int used = draw_textf(y, x, w, attr, "%s ", label);
    /* The end of a long text stays in view: that is where typing goes. */
    int room = w - used - 1 - (hint ? draw_width(hint) : 0);
    const char *shown = text;
    while (room > 0 && draw_width(shown) > room)
        shown++;
    used += draw_text(y, x + used, w - used, shown, sel ? (int)(attr ^ (int)A_REVERSE) : attr);
    used += draw_text(y, x + used, w - used, "_", attr);
    if (hint)
        draw_text(y, x + used, w - used, hint, attr);
}

void tui_prompt(tui *t, int kind, const char *label, const char *text) {
    t->prompt = kind;
    t->prompt_label = label;
    t->prompt_hint = "";
    t->prompt_text = NULL;
    snprintf(t->prompt_buf, sizeof t->prompt_buf, "%s", text);
    t->prompt_sel = text[0] != '\0';
}

/* The words of s into rows of at most w columns: the number of rows written to out. */
static int wrap(const char *s, int w, char out[][256], int max) {
    int n = 0;
    const char *p = s;
    int indent = 0;
    while (p[indent] == ' ')
        indent++;
    while (*p && n < max) {
        int room = n == 0 ? w : w - indent;
        /* The longest run of whole words that fits in room columns. */
        const char *end = p, *cut = NULL;
        int used = 0;
        while (*end) {
            const char *q = end;
            while (*q == ' ')
                q++;
            const char *word_end = q;
            while (*word_end && *word_end != ' ')
                word_end++;
            char word[256];
            snprintf(word, sizeof word, "%.*s", (int)(word_end - end), end);
            int ww = draw_width(word);
            if (used + ww > room && cut)
                break;
            used += ww;
            end = word_end;
            cut = end;
            if (used > room)
                break; /* one word longer than the row: it is shortened below */
        }
        char row[256];
        snprintf(row, sizeof row, "%*s%.*s", n == 0 ? 0 : indent, "", (int)(cut - p), p);
        if (draw_width(row) > w)
            draw_shorten(row, w, out[n], 256);
        else
            snprintf(out[n], 256, "%s", row);
        n++;
        p = cut;
        while (*p == ' ')
            p++;
    }
    return n;
}

void tui_box(const char *title, const char *const *lines, int n, int max_w) {
    enum { MAX_ROWS = 96 };
    static char rows[MAX_ROWS][256];
    int w = COLS - 4 < max_w ? COLS - 4 : max_w, inner = w - 2, nr = 0;
    for (int i = 0; i < n && nr < MAX_ROWS; i++)
        nr += wrap(lines[i], inner, rows + nr, MAX_ROWS - nr);
    int h = nr + 2 < LINES - 2 ? nr + 2 : LINES - 2;
    int y0 = (LINES - h) / 2, x0 = (COLS - w) / 2;
    for (int r = 0; r < h; r++)
        draw_fill(y0 + r, x0, w, draw_attr(PAL_ACTIVE));
    draw_text(y0, x0 + 1, inner, title, draw_attr(PAL_ACTIVE) | (int)A_BOLD);
    for (int i = 0; i < nr && i < h - 2; i++)
        draw_text(y0 + 1 + i, x0 + 1, inner, rows[i], draw_attr(PAL_ACTIVE));
    if (nr > h - 2) /* too short a terminal: say there is more */
        draw_text(y0 + h - 1, x0 + w - 4, 3, "...", draw_attr(PAL_ACTIVE));
}
