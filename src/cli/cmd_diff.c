/* gpuplan diff A B [--threshold PCT] [--json]: what changed between two batch runs or two
 * scenarios. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/app_batch.h"
#include "gpuplan/report_batch.h"

static void diff_help(FILE *f) {
    fprintf(f,
            "usage: gpuplan diff A B [--threshold PCT] [--json]\n\n"
            "What changed from A to B, the way `batch` compares runs: catalog prices (old -> new,\n"
            "source and date), measured figures, totals moving by more than --threshold %%\n"
            "(default 1), break-even months and flipped decisions, each flip explained by what\n"
            "moved. A and B are each a batch run folder, a summary.json, the day of a recorded\n"
            "run (YYYY-MM-DD), or a scenario (a JSON file or a stored name, evaluated today);\n"
            "between two scenarios, every input that differs (old -> new, JSON path).\n\n"
            "Exit status: 0 no decision flipped, %d a decision flipped, 1 runtime failure,\n"
            "2 bad usage or bad input.\n",
            GP_EXIT_FLIPPED);
}

/* --threshold 5 or 5%. */
static int percent(const char *v, void *dest) {
    return cli_percent(v, dest) ? 0 : CLI_OPT_BAD;
}

int cmd_diff(gp_session *ses, int argc, char **argv) {
    double threshold = 1.0;
    bool json = false, asked = false;
    const cli_opt opts[] = {
        {CLI_FLAG("json", &json)},
        {CLI_CALL("threshold", &threshold, percent), .bad = "\"%s\" is not a percentage"},
        {CLI_HELP(&asked)},
        {0}};
    int first, rc = cli_parse(&(cli_parser){.cmd = "diff", .opts = opts}, argc, argv, &first);
    if (rc || asked)
        return asked ? diff_help(stdout), 0 : rc;
    if (argc - first != 2)
        return cli_usage_error("diff takes two runs or scenarios (see --help)");
    const char *side[2] = {argv[first], argv[first + 1]};
    gp_err err;
    gp_err_clear(&err);
    gp_batch_diff d;
    char la[256], lb[256];
    if (gp_batch_compare(ses, side[0], side[1], threshold, &d, la, lb, &err))
        return cli_fail(&err);
    gp_buf b;
    gp_buf_init(&b, 64u << 20);
    if (json) {
        cJSON *t = gp_report_batch_diff_tree(&d, la);
        char *text = cJSON_Print(t);
        gp_buf_printf(&b, "%s\n", text ? text : "{}");
        free(text);
        cJSON_Delete(t);
    } else {
        gp_report_batch_diff_text(&d, la, &b);
    }
    fwrite(b.data, 1, b.len, stdout);
    gp_buf_done(&b);
    rc = d.flips ? GP_EXIT_FLIPPED : 0;
    gp_batch_diff_done(&d);
    return rc;
}
