/* Fuzz target: a batch run's summary.json (as stored in the database and in its folder) ->
 * parse -> (when valid) compare with itself and with an empty run -> summary, changes and page
 * rendered. Nothing may crash, hang or trip a sanitizer. Built for libFuzzer with
 * -Dfuzzing=true; otherwise replay.c runs the corpus as an ordinary test. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpuplan/batch_json.h"
#include "gpuplan/report_batch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gp_batch_summary sum, empty = {0};
    gp_err err;
    if (gp_batch_summary_parse((const char *)data, size, "fuzz", &sum, &err) != GP_OK)
        return 0;
    gp_batch_diff d;
    gp_buf out;
    gp_buf_init(&out, 64u << 20);
    gp_batch_diff_run(&sum, &sum, 1.0, &d);
    gp_report_batch_diff_text(&d, "itself", &out);
    gp_batch_diff_done(&d);
    gp_batch_diff_run(&empty, &sum, 0.0, &d);
    cJSON *dt = gp_report_batch_diff_tree(&d, "nothing");
    gp_batch_diff_done(&d);
    cJSON *st = gp_report_batch_summary_tree(&sum);
    const cJSON **none = calloc(sum.n + 1, sizeof *none);
    gp_batch_page pg = {st, dt, none, none, NULL, NULL, 0};
    gp_report_batch_html(&pg, &out, &err);
    free(none);
    cJSON_Delete(st);
    cJSON_Delete(dt);
    gp_buf_done(&out);
    gp_batch_summary_done(&sum);
    return 0;
}
