/* gpuplan plan --mix SCENARIO --option NAME: own k GPUs, rent the rest, over the measured
 * load duration curve; its options are among capacity's (cmd_capacity.c, cli_capacity_options). */
#include <stdio.h>

#include "cli.h"
#include "gpuplan/app_capacity.h"
#include "gpuplan/clock.h"
#include "gpuplan/report_capacity.h"

static void plan_help(void) {
    printf("usage: gpuplan plan --mix SCENARIO --option NAME [--since 30d] [--node NAME]...\n"
           "                    [--gpu MODEL] [--busy-threshold 5] [--csv]\n"
           "                    [--growth 5%%/month | --growth trend [--force-trend]]\n"
           "                    [--target 0.7]\n\n"
           "The mixed fleet (docs/model.md): for each owned fleet size k from 0 to demand.gpus,\n"
           "the total of owning k GPUs and renting the overflow from the on-demand or spot\n"
           "option, over the measured load duration curve. Prints the optimum, the savings\n"
           "against all-own and all-rent and the curve (--csv: the whole curve). --growth\n"
           "projects demand over the horizon (a rate, or the least-squares trend of daily\n"
           "busy GPU-hours with its R^2, standard error and 95 %% band) and says how many\n"
           "GPUs are needed at --target utilization and when the scenario's GPUs run out.\n"
           "A trend whose slope is within twice its standard error of 0 (or fitted on fewer\n"
           "than 7 days) is not projected unless --force-trend.\n");
}

int cmd_plan(gp_session *ses, int argc, char **argv) {
    gp_cap_query q;
    cap_flags flags;
    int rc = cli_capacity_options(CAP_PLAN, argc, argv, ses, &q, &flags);
    if (rc || flags.help)
        return flags.help ? plan_help(), 0 : rc;
    if (!flags.mix || !flags.option)
        return cli_usage_error("plan needs --mix SCENARIO and --option NAME (see --help)");
    if (flags.first_arg != argc)
        return cli_usage_error("plan takes no other arguments");
    gp_err err;
    gp_err_clear(&err);
    flags.mix_rq.scenario = flags.mix;
    flags.mix_rq.option = flags.option;
    gp_mix_plan p;
    if (gp_plan_mix(ses, &q, &flags.mix_rq, gp_now_ms(), &p, &err)) {
        gp_mix_plan_done(&p);
        return cli_fail(&err);
    }
    gp_buf out;
    gp_buf_init(&out, 1u << 30);
    gp_status st =
        flags.csv ? gp_report_mix_csv(&p, &out) : gp_report_mix_text(&p, flags.option, &out);
    gp_mix_plan_done(&p);
    return cli_capacity_emit(st, &out, &err);
}
