/* Fuzz target: the query_range parser of `import --prometheus`, the label values parser and the
 * vector and matrix parser of `capacity --prometheus`. The first byte picks the parser, the HTTP
 * status and the step; with 0x40 set, the query_range answer streams in pieces of 1 to 64 bytes
 * (the sizes drawn from the input itself) into a stream with a window and a small series cap. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpuplan/prom_range.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    const char *buf = (const char *)data + 1;
    size_t len = size - 1;
    gp_err err;
    long status = data[0] & 0x80 ? 400 : 200;
    static const int64_t steps[] = {300000, 60000, 5000, 7000};
    if ((data[0] & 7) == 7) {
        char **v;
        size_t n;
        if (gp_promlabels_parse(buf, len, "fuzz", status, 1000, &v, &n, &err) == GP_OK)
            free(v);
        return 0;
    }
    if ((data[0] & 7) == 6) {
        gp_promvec v;
        gp_promvec_init(&v, 1u << 16);
        gp_promvec_parse(buf, len, "fuzz", status, data[0] & 8 ? "Hostname" : NULL, &v, &err);
        gp_promvec_done(&v);
        return 0;
    }
    gp_rollups b;
    gp_rollups_init(&b, 1u << 16);
    if (data[0] & 0x40) {
        b.from_ms = 300000;
        b.to_ms = 3600000;
        gp_promrange_stream s;
        gp_promrange_stream_init(&s, "fuzz", status, (gp_metric)(data[0] & 3), 100,
                                 steps[(data[0] >> 3) & 3], 4096, &b);
        gp_status st = GP_OK;
        for (size_t at = 0; at < len && st == GP_OK;) {
            size_t piece = 1 + (size_t)((unsigned char)buf[at] & 63);
            piece = piece < len - at ? piece : len - at;
            st = gp_promrange_feed(&s, buf + at, piece, &err);
            at += piece;
        }
        if (st == GP_OK)
            gp_promrange_end(&s, &err);
        gp_promrange_stream_done(&s);
        gp_rollups_finish(&b);
        gp_rollups_done(&b);
        return 0;
    }
    gp_promrange_parse(buf, len, "fuzz", status, (gp_metric)(data[0] & 3), 100,
                       steps[(data[0] >> 3) & 3], &b, &err);
    gp_rollups_finish(&b);
    gp_rollups_mig_rollup(&b, &err); /* as the import does before it writes */
    gp_rollups_done(&b);
    return 0;
}
