#include "gpuplan/text.h"

#include <stdint.h>

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

size_t gp_text_clean(const char *in, char *out, size_t cap) {
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)in;
    size_t left = 0;
    while (p[left])
        left++;
    while (left > 0) {
        size_t len = utf8_len(p, left);
        if (len == 0) { /* invalid: one byte becomes '?' */
            if (n + 1 >= cap)
                break;
            out[n++] = '?';
            p++;
            left--;
            continue;
        }
        int control = (len == 1 && (p[0] < 0x20 || p[0] == 0x7F)) ||
                      (len == 2 && p[0] == 0xC2 && p[1] < 0xA0) || /* U+0080..U+009F */
                      /* U+FFFE and U+FFFF: not characters, and not XML 1.0's Char */
                      (len == 3 && p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE);
        if (!control) {
            if (n + len >= cap)
                break;
            for (size_t i = 0; i < len; i++)
                out[n++] = (char)p[i];
        }
        p += len;
        left -= len;
    }
    out[n] = '\0';
    return n;
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
