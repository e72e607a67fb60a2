/* gpuplan fleet: every GPU that ever reported, with its last values and alerts. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/clock.h"

int cmd_fleet(gp_session *ses, int argc, char **argv) {
    bool json = false, fail_on_alert = false, asked = false;
    const cli_opt opts[] = {{CLI_FLAG("json", &json)},
                            {CLI_FLAG("fail-on-alert", &fail_on_alert)},
                            {CLI_HELP(&asked)},
                            {0}};
    int first, rc = cli_parse(&(cli_parser){.cmd = "fleet", .opts = opts}, argc, argv, &first);
    if (rc)
        return rc;
    if (asked) {
        printf("usage: gpuplan fleet [--json] [--fail-on-alert]\n\nEvery GPU that ever "
               "reported, with its last utilization, memory, power and temperature; one\n"
               "not seen for 15 minutes shows its last values marked \"stale 3 d\" (--json:\n"
               "stale, age_s). Alerts: temperature >= 85 C, memory >= 90 %%, node down, GPU\n"
               "missing since the last cycle, power above the GPU's limit. --fail-on-alert:\n"
               "exit 4 when a GPU has an alert.\n");
        return 0;
    }
    if (first != argc)
        return cli_usage_error("fleet: unknown argument %s", argv[first]);
    gp_err err;
    gp_err_clear(&err);
    gp_fleet_state f;
    ses->read_only = true;
    if (gp_fleet_state_read(ses, gp_now_ms(), GP_FLEET_FRESH_MS, &f, &err)) {
        gp_fleet_state_done(&f);
        return cli_fail(&err);
    }
    gp_buf out;
    gp_buf_init(&out, 1u << 30);
    gp_status st = json ? gp_report_fleet_json(&f, &out) : gp_report_fleet_text(&f, &out);
    if (st)
        gp_errorf(&err, st, NULL, "the output is larger than %zu bytes", out.limit);
    else
        st = cli_write_output(NULL, out.data, out.len, &err);
    gp_buf_done(&out);
    int alerts = f.with_alerts;
    gp_fleet_state_done(&f);
    if (st)
        return cli_fail(&err);
    return fail_on_alert && alerts ? CLI_EXIT_ATTENTION : 0;
}
