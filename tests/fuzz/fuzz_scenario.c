/* Fuzz target: scenario JSON bytes -> parse -> (when valid) evaluate -> every report. Nothing
 * may crash, hang or trip a sanitizer. Built for libFuzzer with -Dfuzzing=true; otherwise
 * replay.c runs the corpus as an ordinary test. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gpuplan/engine.h"
#include "gpuplan/report.h"
#include "gpuplan/scenario_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static gp_scenario s;
    static gp_result r;
    cJSON *tree = NULL;
    gp_err err;
    if (gp_scenario_parse((const char *)data, size, "fuzz", &s, &tree, &err) != GP_OK)
        return 0;
    gp_model_evaluate(&s, &r);
    gp_report_meta meta = {"2026-01-01", NULL, 0, tree, "fuzz"};
    gp_buf out;
    gp_buf_init(&out, 64u << 20);
    gp_report_json(&s, &r, &meta, &out, &err);
    gp_buf_done(&out);
    gp_buf_init(&out, 64u << 20);
    gp_report_md(&s, &r, &meta, &out, &err);
    gp_buf_done(&out);
    gp_buf_init(&out, 64u << 20);
    gp_report_csv(&s, &r, &meta, &out, &err);
    gp_buf_done(&out);
    cJSON_Delete(tree);
    return 0;
}
