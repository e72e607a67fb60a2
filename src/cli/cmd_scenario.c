/* gpuplan scenario save|list|show|export|rm: scenarios stored in SQLite, every version kept. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <math.h>

#include "cli.h"
#include "gpuplan/clock.h"
#include "gpuplan/fx.h"
#include "gpuplan/scenario_json.h"

static void help(FILE *f) {
    fprintf(f,
            "usage: gpuplan scenario save FILE.json    store FILE (\"-\": stdin) as the next\n"
            "                                          version of the scenario it names\n"
            "       gpuplan scenario list              every stored scenario\n"
            "       gpuplan scenario show NAME [--version N]\n"
            "                                          its versions and the chosen one\n"
            "       gpuplan scenario export NAME [--version N] [-o OUT]\n"
            "                                          the JSON, as saved\n"
            "       gpuplan scenario rm NAME           remove it and all its versions\n"
            "       gpuplan scenario draft --gpus N --gpu MODEL [...]\n"
            "                                          a scenario from the catalog (draft --help)\n"
            "       gpuplan scenario measure NAME --since 30d [--node NAME]...\n"
            "                                          demand and power from telemetry\n");
}

static int save(gp_session *ses, const char *path) {
    gp_err err;
    gp_err_clear(&err);
    gp_buf text;
    if (gp_read_file(path, GP_SCENARIO_MAX_BYTES, &text, &err))
        return cli_fail(&err);
    char name[GP_NAME_BYTES], clean[GP_NAME_BYTES];
    int version = 0;
    gp_status rc = gp_scenario_store(ses, text.data, text.len, strcmp(path, "-") ? path : "<stdin>",
                                     name, &version, &err);
    if (rc == GP_OK)
        printf("saved \"%s\" as version %d\n", cli_text(name, clean, sizeof clean), version);
    gp_buf_done(&text);
    return rc == GP_OK ? 0 : cli_fail(&err);
}

static int print_info(const gp_scenario_info *info, void *arg) {
    int *n = arg;
    if ((*n)++ == 0)
        printf("%-50s %8s  %-20s  %s\n", "NAME", "VERSIONS", "CREATED", "LAST SAVED");
    char name[GP_NAME_BYTES];
    printf("%-50s %8d  %-20s  %s\n", cli_text(info->name, name, sizeof name), info->versions,
           info->created_at, info->saved_at);
    return 0;
}

/* scenario list --names (not in --help: for the shell completions): one name a line. */
static int print_name(const gp_scenario_info *info, void *arg) {
    (void)arg;
    char name[GP_NAME_BYTES];
    printf("%s\n", cli_text(info->name, name, sizeof name));
    return 0;
}

static int list(gp_session *ses, bool names) {
    gp_err err;
    gp_err_clear(&err);
    int n = 0;
    ses->read_only = true;
    if (gp_scenario_list(ses, names ? print_name : print_info, &n, &err))
        return cli_fail(&err);
    if (n == 0 && !names)
        printf("no scenarios stored yet; add one with `gpuplan scenario save FILE.json`\n");
    return 0;
}

static int print_version(int version, const char *saved_at, void *arg) {
    (void)arg;
    printf("  version %d  saved %s\n", version, saved_at);
    return 0;
}

static int show_or_export(gp_session *ses, const char *name, int version, const char *output,
                          bool show) {
    gp_err err;
    gp_err_clear(&err);
    char *json = NULL, saved[21] = "";
    int got = 0;
    ses->read_only = true;
    if (gp_scenario_fetch(ses, name, version, &json, &got, saved, &err))
        return cli_fail(&err);
    gp_status rc = GP_OK;
    if (show) {
        char clean[GP_NAME_BYTES];
        printf("%s\n", cli_text(name, clean, sizeof clean));
        rc = gp_scenario_versions(ses, name, print_version, NULL, &err);
        if (rc == GP_OK)
            printf("\nversion %d (saved %s):\n%s%s", got, saved, json,
                   json[0] && json[strlen(json) - 1] == '\n' ? "" : "\n");
    } else {
        rc = cli_write_output(output, json, strlen(json), &err);
    }
    free(json);
    return rc == GP_OK ? 0 : cli_fail(&err);
}

int cmd_scenario(gp_session *ses, int argc, char **argv) {
    if (argc < 2)
        return cli_usage_error("scenario: which one: save, list, show, export or rm? (see --help)");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        help(stdout);
        return 0;
    }
    if (strcmp(sub, "draft") == 0)
        return cmd_scenario_draft(ses, argc - 1, argv + 1);
    if (strcmp(sub, "measure") == 0)
        return cmd_scenario_measure(ses, argc - 1, argv + 1);
    int version = 0, first;
    bool names = false, asked = false;
    const char *output = NULL;
    const cli_opt opts[] = {
        {CLI_INT("version", &version, 1, INT_MAX), .bad = "\"%s\" is not a version number"},
        {CLI_STR("output", &output), .letter = 'o'},
        {CLI_HELP(&asked)},
        {CLI_FLAG("names", &names), .hidden = true}, /* for the completions */
        {0}};
    char cmd[64];
    snprintf(cmd, sizeof cmd, "scenario %s", sub);
    int rc = cli_parse(&(cli_parser){.cmd = cmd, .opts = opts}, argc - 1, argv + 1, &first);
    if (rc || asked)
        return asked ? help(stdout), 0 : rc;
    int nargs = argc - 1 - first;
    char **args = argv + 1 + first;
    bool takes_version = !strcmp(sub, "show") || !strcmp(sub, "export");
    if ((version || output) && !takes_version)
        return cli_usage_error("scenario %s takes no --version or -o", sub);
    if (output && strcmp(sub, "export") != 0)
        return cli_usage_error("-o applies to scenario export only");
    if (names && strcmp(sub, "list") != 0)
        return cli_usage_error("--names applies to scenario list only");
    if (strcmp(sub, "list") == 0) {
        if (nargs != 0)
            return cli_usage_error("scenario list takes no arguments");
        return list(ses, names);
    }
    if (nargs != 1) {
        return cli_usage_error("scenario %s takes one argument", sub);
    }
    if (strcmp(sub, "save") == 0)
        return save(ses, args[0]);
    if (strcmp(sub, "show") == 0)
        return show_or_export(ses, args[0], version, NULL, true);
    if (strcmp(sub, "export") == 0)
        return show_or_export(ses, args[0], version, output, false);
    if (strcmp(sub, "rm") == 0) {
        gp_err err;
        gp_err_clear(&err);
        if (gp_scenario_remove(ses, args[0], &err))
            return cli_fail(&err);
        char clean[GP_NAME_BYTES];
        printf("removed \"%s\"\n", cli_text(args[0], clean, sizeof clean));
        return 0;
    }
    return cli_usage_error("unknown scenario command \"%s\" (see gpuplan scenario --help)", sub);
}

/* ---- scenario draft: buy servers with that GPU, or rent the cheapest offers ------------------ */

static void draft_help(void) {
    printf("usage: gpuplan scenario draft --gpus N --gpu MODEL [--region-prefix us-]\n"
           "       gpuplan scenario draft --work VALUE --profile P --gpu MODEL\n"
           "         [--api [PROVIDER/]MODEL] [...]\n"
           "         [--provider P]... [--marketplace]\n"
           "         [--utilization 0.6] [--horizon 36] [--tariff PRESET | --state NAME]\n"
           "         [--pue X] [--gpus-per-server 8] [--server-base-w W] [--idle-w W]\n"
           "         [--spot-interruptions 12.5%%] [--growth RATE] [--commit-share S]\n"
           "         [--name TEXT] [-o FILE] [--as-of DATE] [--currency CNY]\n\n"
           "Writes a scenario: buying servers of that GPU (newest catalog purchase price,\n"
           "the GPU's TDP) against the cheapest on-demand, spot and committed offers per\n"
           "GPU-hour of the same GPU and form factor with at least a server's GPUs an\n"
           "instance (or the whole demand, when smaller). --provider (repeatable) limits the\n"
           "offers to those providers; marketplaces (vast) only with --marketplace or by\n"
           "name. Every assumption not in the catalog, and every cost left at 0, is stated\n"
           "in the scenario's notes. A spot offer whose catalog entry gives no interruption\n"
           "band is priced at 12.5 %% of its instances interrupted a month, or at\n"
           "--spot-interruptions (a share a month, 0..100 %%; it then applies to every spot\n"
           "offer drafted). --growth RATE (a share a month, 5%% or 0.05; negative for a\n"
           "decline) makes demand grow from --gpus; servers are then bought as needed, and\n"
           "the committed option commits a base of month 1's demand (base_gpus; or\n"
           "--commit-share S of the peak) and bursts to the drafted on-demand option;\n"
           "--commit-share alone does the same for a steady plan. --currency writes the plan\n"
           "in that currency: the catalog's USD purchase and electricity prices converted at\n"
           "the exchange rate in force on --as-of (gpuplan pricing fx list), stated in the notes.\n"
           "--work VALUE --profile P drafts in work mode: VALUE units of the profile's work a\n"
           "month (its unit, M tokens), each side doing the profile's throughput on the GPU\n"
           "(gpuplan throughput list); the month-1 GPUs that work needs size the offers.\n"
           "--api MODEL (work mode, a decode or offline profile) adds an API priced per M\n"
           "output tokens from the catalog (gpuplan pricing api list), at the cheapest\n"
           "provider or PROVIDER/MODEL, its input price through the profile's prompt over\n"
           "generated tokens.\n");
}

/* A share from 0 to 1, as "0.6" or "60%" (--utilization, --spot-interruptions). */
static int share(const char *v, void *dest) {
    double *x = dest;
    return gp_parse_share(v, x) && *x <= 1 ? 0 : CLI_OPT_BAD;
}

/* --commit-share: a share of the peak above 0, at most 1. */
static int commit_share(const char *v, void *dest) {
    double *x = dest;
    return gp_parse_share(v, x) && *x > 0 && *x <= 1 ? 0 : CLI_OPT_BAD;
}

/* --growth: a share a month, negative for a decline, -50 % to 100 %. */
static int growth(const char *v, void *dest) {
    bool neg = v[0] == '-';
    double g;
    if (!gp_parse_share(v + neg, &g) || g > (neg ? 0.5 : 1.0))
        return CLI_OPT_BAD;
    *(double *)dest = neg ? -g : g;
    return 0;
}

/* --currency: a three-letter code. */
static int currency(const char *v, void *dest) {
    return gp_fx_valid_code(v) ? (*(const char **)dest = v, 0) : CLI_OPT_BAD;
}

/* --as-of: a date, kept as given. */
static int date(const char *v, void *dest) {
    return gp_valid_date(v) ? (*(const char **)dest = v, 0) : CLI_OPT_BAD;
}

/* --work: work a month above 0. */
static int work_amount(const char *v, void *dest) {
    double *x = dest;
    return gp_parse_double(v, x) && *x > 0 ? 0 : CLI_OPT_BAD;
}

int cmd_scenario_draft(gp_session *ses, int argc, char **argv) {
    gp_draft_request rq;
    gp_draft_defaults(&rq, ses->today);
    const char *output = NULL;
    bool asked = false;
    const cli_opt opts[] = {
        {CLI_INT("gpus", &rq.gpus, 1, 1000000),
         .bad = "bad value \"%s\" (a whole number of GPUs, 1 to 1,000,000)"},
        {CLI_STR("gpu", &rq.gpu)},
        {CLI_STR("region-prefix", &rq.region_prefix)},
        {CLI_CALL("utilization", &rq.utilization, share),
         .bad = "bad value \"%s\" (a busy share, 0 to 1 or 0% to 100%)"},
        {CLI_INT("horizon", &rq.horizon_months, 1, 240),
         .bad = "bad value \"%s\" (whole months, 1 to 240)"},
        {CLI_STR("tariff", &rq.tariff)},
        {CLI_STR("state", &rq.state)},
        {CLI_DOUBLE("pue", &rq.pue, 1, 5), .bad = "bad value \"%s\" (1 to 5)"},
        {CLI_INT("gpus-per-server", &rq.gpus_per_server, 1, 64),
         .bad = "bad value \"%s\" (a whole number, 1 to 64)"},
        {CLI_DOUBLE("server-base-w", &rq.server_base_w, 0, INFINITY),
         .bad = "bad value \"%s\" (watts, 0 or more)"},
        {CLI_DOUBLE("idle-w", &rq.gpu_idle_w, 0, INFINITY),
         .bad = "bad value \"%s\" (watts, 0 or more)"},
        {CLI_STR("name", &rq.name)},
        {CLI_STR("output", &output), .letter = 'o'},
        {CLI_CALL("as-of", &rq.as_of, date), .bad = "bad value \"%s\" (a date YYYY-MM-DD)"},
        {CLI_LIST("provider", rq.providers, &rq.n_providers, 8),
         .bad = "bad value \"%s\" (at most 8 providers)"},
        {CLI_FLAG("marketplace", &rq.marketplace)},
        {CLI_CALL("spot-interruptions", &rq.spot_interruptions, share),
         .bad = "bad value \"%s\" (a share a month, 0 to 1 or 0% to 100%)"},
        {CLI_CALL("growth", &rq.growth, growth),
         .bad = "bad value \"%s\" (a share a month, -50% to 100% (5% or 0.05))"},
        {CLI_CALL("commit-share", &rq.commit_share, commit_share),
         .bad = "bad value \"%s\" (a share of the peak above 0, at most 1 (or 100%))"},
        {CLI_CALL("currency", &rq.currency, currency),
         .bad = "bad value \"%s\" (a three-letter currency code)"},
        {CLI_CALL("work", &rq.work_per_month, work_amount),
         .bad = "bad value \"%s\" (work a month, a number above 0)", .needs = "profile"},
        {CLI_STR("profile", &rq.profile), .needs = "work"}, /* the two make work mode */
        {CLI_STR("api", &rq.api), .needs = "work"},
        {CLI_HELP(&asked)},
        {0}};
    int first,
        rc = cli_parse(&(cli_parser){.cmd = "scenario draft", .opts = opts, .cmd_in_values = true},
                       argc, argv, &first);
    if (rc || asked)
        return asked ? draft_help(), 0 : rc;
    bool work = rq.work_per_month > 0;
    if (work && rq.gpus)
        return cli_usage_error("scenario draft: --gpus or --work, not both");
    if ((!rq.gpus && !work) || !rq.gpu || first != argc)
        return cli_usage_error(
            "scenario draft needs --gpus N (or --work VALUE --profile P) and --gpu MODEL (see "
            "--help)");
    if (rq.tariff && rq.state)
        return cli_usage_error("scenario draft: --tariff or --state, not both");
    gp_err err;
    gp_err_clear(&err);
    cJSON *doc;
    if (gp_draft(ses, &rq, &doc, &err))
        return cli_fail(&err);
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    gp_status st = cli_write_output(output, text, strlen(text), &err);
    if (st == GP_OK && (!output || !strcmp(output, "-")))
        putchar('\n');
    free(text);
    return st ? cli_fail(&err) : 0;
}

/* ---- scenario measure --------------------------------------------------------------------- */

static void measure_help(void) {
    printf("usage: gpuplan scenario measure NAME [--since 30d] [--node NAME]... [--gpu MODEL]\n"
           "                                     [--busy-threshold 5] [--growth trend\n"
           "                                     [--force-trend]]\n"
           "                                     [--prometheus URL [--match SELECTOR]\n"
           "                                      [--token-file F] [--org-id TENANT]\n"
           "                                      [--cacert FILE] [--insecure] [--timeout 120s]\n"
           "                                      [--hosts-per-query 8] [--concurrency 4]\n"
           "                                      [--recorded auto|yes|no] [--slice 31d]]\n\n"
           "Writes a new version of stored scenario NAME with demand.gpus, demand.utilization\n"
           "(the busy share), power.gpu_idle_w and power.gpu_tdp_w (the mean draw of idle and\n"
           "of busy GPU-buckets, split at 5 %%) and, where Redfish reports wall power,\n"
           "power.server_base_w, all from the window, and records the window, nodes and\n"
           "figures in the scenario's \"measured\" object. --growth trend also writes\n"
           "demand.growth_per_month from the trend of daily busy GPU-hours (as plan --growth\n"
           "trend fits it) when it is significant (or --force-trend) and within -50 %% to\n"
           "+100 %% a month; the fit is recorded in measured.growth either way.\n"
           "--prometheus URL (with the connection options of capacity) measures on the\n"
           "fleet's Prometheus-compatible server instead of stored telemetry.\n");
}

/* The line that says what was measured and saved: the draws as the scenario now holds them
 * (write_measured fills a side without buckets from the other and keeps busy >= idle), each
 * such stand-in said, never a 0 W that was not saved. */
static void measure_said(const gp_measured *m, bool growth, bool forced) {
    printf("saved \"%s\" as version %d: %lld GPU%s, %.1f %% busy, ", m->name, m->version, m->gpus,
           m->gpus == 1 ? "" : "s", m->busy_share * 100);
    if (!m->has_idle_w && !m->has_busy_w) {
        printf("GPU power left as it was (no power readings in the window)");
    } else {
        double idle = m->has_idle_w ? m->idle_w : m->busy_w;
        double busy = m->has_busy_w && m->busy_w >= idle ? m->busy_w : idle;
        printf("idle %.1f W%s, busy %.1f W%s", idle,
               m->has_idle_w ? "" : " (no idle GPU-bucket: the busy draw)", busy,
               !m->has_busy_w          ? " (no busy GPU-bucket: the idle draw)"
               : m->busy_w < m->idle_w ? " (measured below idle: the idle draw)"
                                       : "");
    }
    printf("%s\n", m->has_base ? ", server base from Redfish" : "");
    if (!growth)
        return;
    if (m->growth_written)
        printf("growth_per_month %+.4f (%+.2f %% a month, R^2 %.3f over %zu days)\n",
               m->trend.growth, m->trend.growth * 100, m->trend.r2, m->trend.days);
    else
        printf("growth_per_month left as it was: the trend (%+.2f %% a month, R^2 %.3f over %zu "
               "days) is %s\n",
               m->trend.growth * 100, m->trend.r2, m->trend.days,
               forced                  ? "outside -50 % to +100 % a month"
               : m->trend.days < 7     ? "fitted on fewer than 7 days"
               : !m->trend.significant ? "not significant (--force-trend writes it)"
                                       : "outside -50 % to +100 % a month");
}

int cmd_scenario_measure(gp_session *ses, int argc, char **argv) {
    gp_cap_query q;
    cap_flags flags;
    int rc = cli_capacity_options(CAP_MEASURE, argc, argv, ses, &q, &flags);
    if (rc || flags.help)
        return flags.help ? measure_help(), 0 : rc;
    if (argc - flags.first_arg != 1)
        return cli_usage_error("scenario measure takes one scenario NAME");
    if (flags.mix_rq.has_growth && !flags.mix_rq.trend)
        return cli_usage_error("scenario measure --growth takes trend (a rate is not measured)");
    gp_measure_request rq = {flags.mix_rq.trend, flags.mix_rq.force_trend};
    gp_err err;
    gp_err_clear(&err);
    gp_measured m;
    if (gp_scenario_measure(ses, argv[flags.first_arg], &q, &rq, gp_now_ms(), &m, &err))
        return cli_fail(&err);
    measure_said(&m, rq.growth, rq.force_trend);
    return 0;
}
