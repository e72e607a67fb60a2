/* Fuzz target: the checks on outside text: a source URL, a token file, and the
 * sanitiser of text bound for CSV and XLSX. The first byte picks which (mod 3). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/text.h"
#include "gpuplan/url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    gp_err err;
    if (data[0] % 3 == 0) {
        char token[64];
        gp_token_parse((const char *)data + 1, size - 1, "fuzz", token, sizeof token, &err);
        return 0;
    }
    char *s = malloc(size);
    if (!s)
        return 0;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    if (data[0] % 3 == 1) {
        gp_url_check_source(s, &err);
    } else {
        char out[48];
        size_t n = gp_text_clean(s, out, sizeof out);
        /* What comes out is a valid, control-free string of that length. */
        if (n != strlen(out) || gp_text_utf8_cut(out, n) != n)
            abort();
        for (size_t i = 0; i < n; i++) {
            const unsigned char *u = (const unsigned char *)out + i;
            if (u[0] < 0x20 || u[0] == 0x7f)
                abort();
            /* no C1 control, no U+FFFE or U+FFFF (XML 1.0 cannot carry them) */
            if ((u[0] == 0xc2 && i + 1 < n && u[1] < 0xa0) ||
                (u[0] == 0xef && i + 2 < n && u[1] == 0xbf && u[2] >= 0xbe))
                abort();
        }
        gp_text_utf8_cut(s, size - 1);
    }
    free(s);
    return 0;
}
