/* Fuzz target: the source URL check and the token file parser. The first byte picks which. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpuplan/url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    gp_err err;
    if (data[0] & 1) {
        char *url = malloc(size);
        if (!url)
            return 0;
        memcpy(url, data + 1, size - 1);
        url[size - 1] = '\0';
        gp_url_check_source(url, &err);
        free(url);
    } else {
        char token[64];
        gp_token_parse((const char *)data + 1, size - 1, "fuzz", token, sizeof token, &err);
    }
    return 0;
}
