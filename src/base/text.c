#include "gpuplan/text.h"

#include <stdint.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at p[0..n), or 0 when it is not one (overlong forms,
 * surrogates and values past U+10FFFF included). */
static size_t utf8_len(const unsigned char *p, size_t n) {
    unsigned c = p[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

gp_text_class gp_text_next(const char *s, size_t left, size_t *len) {
    const unsigned char *p = (const unsigned char *)s;
    size_t n = utf8_len(p, left);
    *len = n ? n : 1;
    if (n == 0)
        return GP_TEXT_INVALID;
    if (n == 1) {
        if (p[0] == '\t' || p[0] == '\n' || p[0] == '\r')
            return GP_TEXT_LINE;
        return p[0] < 0x20 || p[0] == 0x7F ? GP_TEXT_CONTROL : GP_TEXT_PLAIN;
    }
    if (n == 2 && p[0] == 0xC2 && p[1] < 0xA0) /* U+0080..U+009F */
        return GP_TEXT_CONTROL;
    if (n == 3 && p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE)
        return GP_TEXT_CONTROL; /* U+FFFE and U+FFFF: not characters, and not XML 1.0's Char */
    if (n == 3 && p[0] == 0xE2 && p[1] == 0x80 &&
        (p[2] == 0x8E || p[2] == 0x8F || (p[2] >= 0xAA && p[2] <= 0xAE)))
        return GP_TEXT_BIDI; /* U+200E, U+200F, U+202A..U+202E */
    if (n == 3 && p[0] == 0xE2 && p[1] == 0x81 && p[2] >= 0xA6 && p[2] <= 0xA9)
        return GP_TEXT_BIDI; /* U+2066..U+2069 */
    return GP_TEXT_PLAIN;
}

size_t gp_text_clean_with(const char *in, char *out, size_t cap, const gp_text_rules *rules) {
    const char *mark = rules->mark ? rules->mark : "";
    size_t marklen = strlen(mark);
    size_t n = 0;
    size_t left = strlen(in);
    const char *p = in;
    while (left > 0) {
        size_t len;
        gp_text_class k = gp_text_next(p, left, &len);
        const char *put = p;
        size_t putlen = len;
        if (k == GP_TEXT_INVALID) {
            put = marklen ? mark : "?";
            putlen = marklen ? marklen : 1;
        } else if ((k == GP_TEXT_LINE && !rules->keep_lines) || k == GP_TEXT_CONTROL ||
                   (k == GP_TEXT_BIDI && rules->drop_bidi)) {
            put = mark;
            putlen = marklen;
        }
        if (n + putlen >= cap)
            break;
        memcpy(out + n, put, putlen);
        n += putlen;
        p += len;
        left -= len;
    }
    out[n] = '\0';
    return n;
}

size_t gp_text_clean(const char *in, char *out, size_t cap) {
    return gp_text_clean_with(in, out, cap, &(gp_text_rules){0});
}

size_t gp_text_utf8_cut(const char *s, size_t len) {
    const unsigned char *p = (const unsigned char *)s;
    /* Back up over at most 3 continuation bytes to the lead byte of the last character. */
    size_t i = len;
    while (i > 0 && len - i < 4 && (p[i - 1] & 0xC0) == 0x80)
        i--;
    if (i == 0 || len - i >= 4)
        return len; /* no lead byte in reach: not UTF-8 to protect */
    unsigned c = p[i - 1];
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return len - (i - 1) >= need ? len : i - 1;
}
