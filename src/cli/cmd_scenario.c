/* gpuplan scenario save|list|show|export|rm: scenarios stored in SQLite, every version kept. */
#include <getopt.h>
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
    static const struct option longs[] = {{"version", required_argument, NULL, 'v'},
                                          {"output", required_argument, NULL, 'o'},
                                          {"help", no_argument, NULL, 'h'},
                                          {"names", no_argument, NULL, 'n'},
                                          {NULL, 0, NULL, 0}};
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
    int version = 0, opt;
    bool names = false;
    const char *output = NULL;
    optind = 1;
    opterr = 0; /* one error line, ours */
    while ((opt = getopt_long(argc - 1, argv + 1, "o:h", longs, NULL)) != -1) {
        switch (opt) {
        case 'v':
            if (!gp_parse_int(optarg, &version) || version < 1)
                return cli_usage_error("--version: \"%s\" is not a version number", optarg);
            break;
        case 'o':
            output = optarg;
            break;
        case 'h':
            help(stdout);
            return 0;
        case 'n':
            names = true;
            break;
        default:
            return cli_usage_error("scenario %s: unknown option or missing value: %s (see --help)",
                                   sub, argv[optind]);
        }
    }
    int nargs = argc - 1 - optind;
    char **args = argv + 1 + optind;
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

/* What an option of scenario draft takes, for the refusal of a value out of range. */
static const char *draft_range(int opt) {
    switch (opt) {
    case 'g':
        return "a whole number of GPUs, 1 to 1,000,000";
    case 'u':
        return "a busy share, 0 to 1 or 0% to 100%";
    case 'H':
        return "whole months, 1 to 240";
    case 'p':
        return "1 to 5";
    case 'k':
        return "a whole number, 1 to 64";
    case 'b':
    case 'i':
        return "watts, 0 or more";
    case 'I':
        return "a share a month, 0 to 1 or 0% to 100%";
    case 'w':
        return "a share a month, -50% to 100% (5% or 0.05)";
    case 'c':
        return "a share of the peak above 0, at most 1 (or 100%)";
    case 'C':
        return "a three-letter currency code";
    case 'P':
        return "at most 8 providers";
    case 'W':
        return "work a month, a number above 0";
    default:
        return "a date YYYY-MM-DD";
    }
}

/* One option's value into the request; false when it is out of range. */
static bool draft_option(int opt, const char *v, gp_draft_request *rq, const char **output) {
    switch (opt) {
    case 'g':
        return gp_parse_int(v, &rq->gpus) && rq->gpus >= 1 && rq->gpus <= 1000000;
    case 'G':
        return rq->gpu = v, true;
    case 'r':
        return rq->region_prefix = v, true;
    case 'u':
        return gp_parse_share(v, &rq->utilization) && rq->utilization <= 1;
    case 'H':
        return gp_parse_int(v, &rq->horizon_months) && rq->horizon_months >= 1 &&
               rq->horizon_months <= 240;
    case 't':
        return rq->tariff = v, true;
    case 's':
        return rq->state = v, true;
    case 'p':
        return gp_parse_double(v, &rq->pue) && rq->pue >= 1 && rq->pue <= 5;
    case 'k':
        return gp_parse_int(v, &rq->gpus_per_server) && rq->gpus_per_server >= 1 &&
               rq->gpus_per_server <= 64;
    case 'b':
        return gp_parse_double(v, &rq->server_base_w) && rq->server_base_w >= 0;
    case 'i':
        return gp_parse_double(v, &rq->gpu_idle_w) && rq->gpu_idle_w >= 0;
    case 'n':
        return rq->name = v, true;
    case 'P':
        if (rq->n_providers == 8)
            return false;
        rq->providers[rq->n_providers++] = v;
        return true;
    case 'M':
        return rq->marketplace = true;
    case 'o':
        return *output = v, true;
    case 'I':
        return gp_parse_share(v, &rq->spot_interruptions) && rq->spot_interruptions <= 1;
    case 'w': { /* a share a month, negative for a decline */
        bool neg = v[0] == '-';
        double g;
        if (!gp_parse_share(v + neg, &g) || g > (neg ? 0.5 : 1.0))
            return false;
        return rq->growth = neg ? -g : g, true;
    }
    case 'c':
        return gp_parse_share(v, &rq->commit_share) && rq->commit_share > 0 &&
               rq->commit_share <= 1;
    case 'C':
        return gp_fx_valid_code(v) && (rq->currency = v);
    case 'W':
        return gp_parse_double(v, &rq->work_per_month) && rq->work_per_month > 0 &&
               isfinite(rq->work_per_month);
    case 'F':
        return rq->profile = v, true;
    case 'A':
        return rq->api = v, true;
    default: /* 'a' */
        return gp_valid_date(v) && (rq->as_of = v);
    }
}

int cmd_scenario_draft(gp_session *ses, int argc, char **argv) {
    static const struct option longs[] = {{"gpus", required_argument, NULL, 'g'},
                                          {"gpu", required_argument, NULL, 'G'},
                                          {"region-prefix", required_argument, NULL, 'r'},
                                          {"utilization", required_argument, NULL, 'u'},
                                          {"horizon", required_argument, NULL, 'H'},
                                          {"tariff", required_argument, NULL, 't'},
                                          {"state", required_argument, NULL, 's'},
                                          {"pue", required_argument, NULL, 'p'},
                                          {"gpus-per-server", required_argument, NULL, 'k'},
                                          {"server-base-w", required_argument, NULL, 'b'},
                                          {"idle-w", required_argument, NULL, 'i'},
                                          {"name", required_argument, NULL, 'n'},
                                          {"output", required_argument, NULL, 'o'},
                                          {"as-of", required_argument, NULL, 'a'},
                                          {"provider", required_argument, NULL, 'P'},
                                          {"marketplace", no_argument, NULL, 'M'},
                                          {"spot-interruptions", required_argument, NULL, 'I'},
                                          {"growth", required_argument, NULL, 'w'},
                                          {"commit-share", required_argument, NULL, 'c'},
                                          {"currency", required_argument, NULL, 'C'},
                                          {"work", required_argument, NULL, 'W'},
                                          {"profile", required_argument, NULL, 'F'},
                                          {"api", required_argument, NULL, 'A'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    gp_draft_request rq;
    gp_draft_defaults(&rq, ses->today);
    const char *output = NULL;
    int opt;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
        if (opt == 'h')
            return draft_help(), 0;
        if (opt == '?')
            return cli_usage_error(
                "scenario draft: unknown option or missing value: %s (see --help)",
                argv[optind - 1]);
        if (!draft_option(opt, optarg, &rq, &output))
            return cli_usage_error("scenario draft: %s: bad value \"%s\" (%s)",
                                   argv[optind - 1 - (argv[optind - 1] == optarg)], optarg,
                                   draft_range(opt));
    }
    bool work = rq.work_per_month > 0;
    if (work && rq.gpus)
        return cli_usage_error("scenario draft: --gpus or --work, not both");
    if (work != (rq.profile != NULL))
        return cli_usage_error("scenario draft: --work and --profile go together (work mode)");
    if (rq.api && !work)
        return cli_usage_error(
            "scenario draft: --api prices work: a work-mode draft (--work and --profile) only");
    if ((!rq.gpus && !work) || !rq.gpu || optind != argc)
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
    gp_status rc = cli_write_output(output, text, strlen(text), &err);
    if (rc == GP_OK && (!output || !strcmp(output, "-")))
        putchar('\n');
    free(text);
    return rc ? cli_fail(&err) : 0;
}

/* ---- scenario measure --------------------------------------------------------------------- */

static void measure_help(void) {
    printf("usage: gpuplan scenario measure NAME [--since 30d] [--node NAME]... [--gpu MODEL]\n"
           "                                     [--busy-threshold 5] [--growth trend\n"
           "                                     [--force-trend]] [--prometheus URL ...]\n\n"
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

/* The line that says what was measured and saved. */
static void measure_said(const gp_measured *m, bool growth, bool forced) {
    printf("saved \"%s\" as version %d: %lld GPU%s, %.1f %% busy, idle %.1f W, busy %.1f W%s\n",
           m->name, m->version, m->gpus, m->gpus == 1 ? "" : "s", m->busy_share * 100,
           m->has_idle_w ? m->idle_w : 0, m->has_busy_w ? m->busy_w : 0,
           m->has_base ? ", server base from Redfish" : "");
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
    int rc = cli_capacity_options(argc, argv, ses, &q, &flags);
    if (rc || flags.help)
        return flags.help ? measure_help(), 0 : rc;
    if (flags.print_rules)
        return cli_usage_error("--print-rules goes with capacity alone");
    if (argc - optind != 1)
        return cli_usage_error("scenario measure takes one scenario NAME");
    if (flags.mix_rq.has_growth && !flags.mix_rq.trend)
        return cli_usage_error("scenario measure --growth takes trend (a rate is not measured)");
    gp_measure_request rq = {flags.mix_rq.trend, flags.mix_rq.force_trend};
    gp_err err;
    gp_err_clear(&err);
    gp_measured m;
    if (gp_scenario_measure(ses, argv[optind], &q, &rq, gp_now_ms(), &m, &err))
        return cli_fail(&err);
    measure_said(&m, rq.growth, rq.force_trend);
    return 0;
}
