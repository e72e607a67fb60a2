/* The helpers every screen shares (ui.h). */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "draw.h"
#include "gpuplan/collect.h"
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

int tui_line_key(char *buf, size_t cap, int ch) {
    size_t n = strlen(buf);
    if (ch == 27)
        return TUI_LINE_CANCEL;
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER)
        return TUI_LINE_DONE;
    if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (n)
            buf[n - 1] = '\0';
    } else if (ch >= 0x20 && ch < 0x7f && n + 1 < cap) {
        buf[n] = (char)ch, buf[n + 1] = '\0';
    } else if (ch >= 0x80 && ch < 0x100 && n + 1 < cap) {
        buf[n] = (char)ch, buf[n + 1] = '\0'; /* UTF-8 bytes of names and paths */
    } else {
        return TUI_LINE_NONE;
    }
    return TUI_LINE_CHANGED;
}
