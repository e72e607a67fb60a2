/* gpuplan scenario save|list|show|export|rm: scenarios stored in SQLite, every version kept. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <math.h>

#include "cli.h"
#include "gpuplan/scenario_json.h"
#include "gpuplan/store_catalog.h"

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

static int save(cli *c, const char *path) {
    gp_err err;
    gp_err_clear(&err);
    gp_buf text;
    if (cli_read_file(path, GP_SCENARIO_MAX_BYTES, &text, &err))
        return cli_fail(&err);
    gp_scenario *s = gp_xmalloc(sizeof *s);
    gp_store *st;
    int version = 0;
    gp_status rc =
        gp_scenario_parse(text.data, text.len, strcmp(path, "-") ? path : "<stdin>", s, NULL, &err);
    if (rc == GP_OK)
        rc = cli_store(c, &st, &err);
    if (rc == GP_OK)
        rc = gp_store_scenario_save(st, s->name, text.data, &version, &err);
    if (rc == GP_OK)
        printf("saved \"%s\" as version %d\n", s->name, version);
    free(s);
    gp_buf_done(&text);
    return rc == GP_OK ? 0 : cli_fail(&err);
}

static int print_info(const gp_scenario_info *info, void *arg) {
    int *n = arg;
    if ((*n)++ == 0)
        printf("%-50s %8s  %-20s  %s\n", "NAME", "VERSIONS", "CREATED", "LAST SAVED");
    printf("%-50s %8d  %-20s  %s\n", info->name, info->versions, info->created_at, info->saved_at);
    return 0;
}

static int list(cli *c) {
    gp_err err;
    gp_err_clear(&err);
    gp_store *st;
    int n = 0;
    c->read_only = true;
    if (cli_store(c, &st, &err) || gp_store_scenario_list(st, print_info, &n, &err))
        return cli_fail(&err);
    if (n == 0)
        printf("no scenarios stored yet; add one with `gpuplan scenario save FILE.json`\n");
    return 0;
}

static int print_version(int version, const char *saved_at, void *arg) {
    (void)arg;
    printf("  version %d  saved %s\n", version, saved_at);
    return 0;
}

static int show_or_export(cli *c, const char *name, int version, const char *output, bool show) {
    gp_err err;
    gp_err_clear(&err);
    gp_store *st;
    char *json = NULL, saved[21] = "";
    int got = 0;
    c->read_only = true;
    if (cli_store(c, &st, &err) ||
        gp_store_scenario_get(st, name, version, &json, &got, saved, &err))
        return cli_fail(&err);
    gp_status rc = GP_OK;
    if (show) {
        printf("%s\n", name);
        rc = gp_store_scenario_versions(st, name, print_version, NULL, &err);
        if (rc == GP_OK)
            printf("\nversion %d (saved %s):\n%s%s", got, saved, json,
                   json[0] && json[strlen(json) - 1] == '\n' ? "" : "\n");
    } else {
        rc = cli_write_output(output, json, strlen(json), &err);
    }
    free(json);
    return rc == GP_OK ? 0 : cli_fail(&err);
}

int cmd_scenario(cli *c, int argc, char **argv) {
    static const struct option longs[] = {{"version", required_argument, NULL, 'v'},
                                          {"output", required_argument, NULL, 'o'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    if (argc < 2)
        return cli_usage_error("scenario: which one: save, list, show, export or rm? (see --help)");
    const char *sub = argv[1];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        help(stdout);
        return 0;
    }
    if (strcmp(sub, "draft") == 0)
        return cmd_scenario_draft(c, argc - 1, argv + 1);
    if (strcmp(sub, "measure") == 0)
        return cmd_scenario_measure(c, argc - 1, argv + 1);
    int version = 0, opt;
    const char *output = NULL;
    optind = 1;
    opterr = 0; /* one error line, ours */
    while ((opt = getopt_long(argc - 1, argv + 1, "o:h", longs, NULL)) != -1) {
        switch (opt) {
        case 'v':
            if (!cli_parse_int(optarg, &version) || version < 1)
                return cli_usage_error("--version: \"%s\" is not a version number", optarg);
            break;
        case 'o':
            output = optarg;
            break;
        case 'h':
            help(stdout);
            return 0;
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
    if (strcmp(sub, "list") == 0) {
        if (nargs != 0)
            return cli_usage_error("scenario list takes no arguments");
        return list(c);
    }
    if (nargs != 1) {
        return cli_usage_error("scenario %s takes one argument", sub);
    }
    if (strcmp(sub, "save") == 0)
        return save(c, args[0]);
    if (strcmp(sub, "show") == 0)
        return show_or_export(c, args[0], version, NULL, true);
    if (strcmp(sub, "export") == 0)
        return show_or_export(c, args[0], version, output, false);
    if (strcmp(sub, "rm") == 0) {
        gp_err err;
        gp_err_clear(&err);
        gp_store *st;
        if (cli_store(c, &st, &err) || gp_store_scenario_rm(st, args[0], &err))
            return cli_fail(&err);
        printf("removed \"%s\"\n", args[0]);
        return 0;
    }
    return cli_usage_error("unknown scenario command \"%s\" (see gpuplan scenario --help)", sub);
}

/* ---- scenario draft: buy servers with that GPU, or rent the cheapest offers ------------------ */

typedef struct pick {
    bool found;
    char catalog[300], label[160];
    gp_pricing pricing;
    int term;
    gp_purchase purchase;
    double per_gpu_hour;
} pick;

static int take_first_whole(const gp_offer_price *o, void *arg) {
    pick *p = arg;
    if (o->gpu_count != (int)o->gpu_count || strcmp(o->currency, "USD") != 0)
        return 0; /* a slice of a GPU, or another currency: not referable */
    p->found = true;
    snprintf(p->catalog, sizeof p->catalog, "%s/%s/%s", o->provider, o->instance, o->region);
    snprintf(p->label, sizeof p->label, "%s %s %s", o->instance, o->region,
             o->pricing == GP_COMMITTED ? (o->term_months == 12 ? "1-year" : "3-year")
             : o->pricing == GP_SPOT    ? "spot"
                                        : "on-demand");
    p->pricing = o->pricing;
    p->term = o->term_months;
    p->purchase = o->purchase;
    p->per_gpu_hour = o->hourly / o->gpu_count;
    return 1;
}

typedef struct hw_pick {
    bool found;
    gp_hw_price h;
    char source[256];
} hw_pick;

static int newest_hw(const gp_hw_price *h, const char *source, void *arg) {
    hw_pick *p = arg;
    if (h->gpus < 1)
        return 0;
    if (!p->found || strcmp(h->date, p->h.date) >= 0) { /* rows come oldest first */
        p->found = true;
        p->h = *h;
        snprintf(p->source, sizeof p->source, "%s", source);
    }
    return 0;
}

static int first_spec(const gp_gpu_spec *g, const char *source, void *arg) {
    (void)source;
    *(gp_gpu_spec *)arg = *g;
    return 1;
}

typedef struct state_price {
    const char *want;
    double price;
    char year[16];
    bool found;
} state_price;

static int find_state(const gp_elec_price *e, const char *year, const char *source, void *arg) {
    (void)source;
    state_price *sp = arg;
    if (strcasecmp(e->region, sp->want) == 0 && strcmp(e->sector, "industrial") == 0) {
        sp->price = e->price_per_kwh;
        snprintf(sp->year, sizeof sp->year, "%s", year);
        sp->found = true;
        return 1;
    }
    return 0;
}

int cmd_scenario_draft(cli *c, int argc, char **argv) {
    enum {
        D_GPUS = 256,
        D_GPU,
        D_REGION_PREFIX,
        D_UTIL,
        D_HORIZON,
        D_TARIFF,
        D_STATE,
        D_PUE,
        D_PER_SERVER,
        D_BASE_W,
        D_IDLE_W,
        D_NAME,
        D_OUT,
        D_AS_OF
    };
    static const struct option longs[] = {
        {"gpus", required_argument, NULL, D_GPUS},
        {"gpu", required_argument, NULL, D_GPU},
        {"region-prefix", required_argument, NULL, D_REGION_PREFIX},
        {"utilization", required_argument, NULL, D_UTIL},
        {"horizon", required_argument, NULL, D_HORIZON},
        {"tariff", required_argument, NULL, D_TARIFF},
        {"state", required_argument, NULL, D_STATE},
        {"pue", required_argument, NULL, D_PUE},
        {"gpus-per-server", required_argument, NULL, D_PER_SERVER},
        {"server-base-w", required_argument, NULL, D_BASE_W},
        {"idle-w", required_argument, NULL, D_IDLE_W},
        {"name", required_argument, NULL, D_NAME},
        {"output", required_argument, NULL, 'o'},
        {"as-of", required_argument, NULL, D_AS_OF},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int gpus = 0, horizon = 36, per_server = 8, opt;
    double util = 0.6, pue = 0, base_w = -1, idle_w = -1;
    const char *gpu_arg = NULL, *prefix = NULL, *tariff = NULL, *state = NULL, *name = NULL,
               *output = NULL;
    char as_of[11];
    cli_today(as_of);
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "o:h", longs, NULL)) != -1) {
        bool ok = true;
        switch (opt) {
        case D_GPUS:
            ok = cli_parse_int(optarg, &gpus) && gpus >= 1 && gpus <= 1000000;
            break;
        case D_GPU:
            gpu_arg = optarg;
            break;
        case D_REGION_PREFIX:
            prefix = optarg;
            break;
        case D_UTIL:
            ok = cli_parse_double(optarg, &util) && util >= 0 && util <= 1;
            break;
        case D_HORIZON:
            ok = cli_parse_int(optarg, &horizon) && horizon >= 1 && horizon <= 240;
            break;
        case D_TARIFF:
            tariff = optarg;
            break;
        case D_STATE:
            state = optarg;
            break;
        case D_PUE:
            ok = cli_parse_double(optarg, &pue) && pue >= 1 && pue <= 5;
            break;
        case D_PER_SERVER:
            ok = cli_parse_int(optarg, &per_server) && per_server >= 1 && per_server <= 64;
            break;
        case D_BASE_W:
            ok = cli_parse_double(optarg, &base_w) && base_w >= 0;
            break;
        case D_IDLE_W:
            ok = cli_parse_double(optarg, &idle_w) && idle_w >= 0;
            break;
        case D_NAME:
            name = optarg;
            break;
        case 'o':
            output = optarg;
            break;
        case D_AS_OF:
            ok = cli_valid_date(optarg);
            if (ok)
                snprintf(as_of, sizeof as_of, "%s", optarg);
            break;
        case 'h':
            printf("usage: gpuplan scenario draft --gpus N --gpu MODEL [--region-prefix us-]\n"
                   "         [--utilization 0.6] [--horizon 36] [--tariff PRESET | --state NAME]\n"
                   "         [--pue X] [--gpus-per-server 8] [--server-base-w W] [--idle-w W]\n"
                   "         [--name TEXT] [-o FILE] [--as-of DATE]\n\n"
                   "Writes a scenario: buying servers of that GPU (newest catalog purchase price,\n"
                   "the GPU's TDP) against the cheapest on-demand, spot and committed offers per\n"
                   "GPU-hour that have it. Assumptions not in the catalog are stated in notes.\n");
            return 0;
        default:
            return cli_usage_error(
                "scenario draft: unknown option or missing value: %s (see --help)",
                argv[optind - 1]);
        }
        if (!ok)
            return cli_usage_error("scenario draft: bad value \"%s\"", optarg);
    }
    if (!gpus || !gpu_arg || optind != argc)
        return cli_usage_error("scenario draft needs --gpus N and --gpu MODEL (see --help)");
    if (tariff && state)
        return cli_usage_error("scenario draft: --tariff or --state, not both");
    gp_err err;
    gp_err_clear(&err);
    gp_store *st;
    if (cli_catalog(c, &st, &err))
        return cli_fail(&err);
    char gpu[GP_GPU_NAME_BYTES];
    gp_gpu_normalize(gpu_arg, 0, gpu, sizeof gpu);

    gp_gpu_spec spec = {0};
    hw_pick hw = {0};
    if (gp_store_specs(st, gpu, first_spec, &spec, &err) ||
        gp_store_hardware(st, gpu, newest_hw, &hw, &err))
        return cli_fail(&err);
    if (!spec.has[GP_SPEC_TDP_W])
        return cli_usage_error(
            "scenario draft: the catalog has no TDP for %s (see gpuplan pricing gpus)", gpu);
    if (!hw.found)
        return cli_usage_error("scenario draft: the catalog has no purchase price for %s (see "
                               "gpuplan pricing hardware)",
                               gpu);

    pick picks[3] = {{0}};
    static const gp_pricing kinds[3] = {GP_ON_DEMAND, GP_SPOT, GP_COMMITTED};
    for (int k = 0; k < 3; k++) {
        gp_offer_filter f = {0};
        f.gpu = gpu;
        f.region_prefix = prefix;
        f.pricing = kinds[k];
        f.as_of = as_of;
        f.sort = GP_SORT_GPU_HOUR;
        if (gp_store_catalog_list(st, &f, take_first_whole, &picks[k], &err))
            return cli_fail(&err);
    }
    if (!picks[0].found && !picks[1].found && !picks[2].found)
        return cli_usage_error("scenario draft: no offer with %s%s%s in the catalog", gpu,
                               prefix ? " in regions " : "", prefix ? prefix : "");

    double server_price = hw.h.price_usd / hw.h.gpus * per_server;
    double tdp = spec.v[GP_SPEC_TDP_W];
    if (base_w < 0)
        base_w = 1500.0 * per_server / 8; /* CPUs, memory, NICs, fans of an 8-GPU server */
    if (idle_w < 0)
        idle_w = 0.15 * tdp;
    if (pue == 0)
        pue = 1.56; /* Uptime Institute 2024 survey average (pricing pue) */

    cJSON *doc = cJSON_CreateObject();
    char title[200];
    snprintf(title, sizeof title, "%d x %s: own or rent%s%s", gpus, gpu, prefix ? " in " : "",
             prefix ? prefix : "");
    cJSON_AddStringToObject(doc, "name", name ? name : title);
    cJSON_AddNumberToObject(doc, "horizon_months", horizon);
    char notes[1024];
    snprintf(notes, sizeof notes,
             "Drafted by gpuplan on %s. Server price: %s (%s, %s) scaled to %d GPUs a server. "
             "GPU busy draw: TDP %g W (%s). Assumed, not from the catalog: idle draw %g W a GPU, "
             "%g W a server besides its GPUs, PUE %g%s. Cloud offers: the cheapest per GPU-hour "
             "as of %s.",
             as_of, hw.h.item, hw.h.date, hw.source, per_server, tdp, spec.full_name, idle_w,
             base_w, pue, pue == 1.56 ? " (Uptime 2024 average)" : "", as_of);
    cJSON_AddStringToObject(doc, "notes", notes);
    cJSON *d = cJSON_AddObjectToObject(doc, "demand");
    cJSON_AddNumberToObject(d, "gpus", gpus);
    cJSON_AddNumberToObject(d, "utilization", util);
    cJSON *sh = cJSON_AddObjectToObject(doc, "self_hosted");
    cJSON_AddNumberToObject(sh, "gpus_per_server", per_server);
    cJSON_AddNumberToObject(sh, "server_price", round(server_price * 100) / 100);
    cJSON *pw = cJSON_AddObjectToObject(sh, "power");
    cJSON_AddNumberToObject(pw, "server_base_w", base_w);
    cJSON_AddNumberToObject(pw, "gpu_idle_w", idle_w);
    cJSON_AddNumberToObject(pw, "gpu_tdp_w", tdp);
    cJSON_AddNumberToObject(pw, "pue", pue);
    if (tariff) {
        gp_tariff_preset t;
        if (gp_store_tariff(st, tariff, &t, &err)) {
            cJSON_Delete(doc);
            return cli_fail(&err);
        }
        cJSON_AddItemToObject(sh, "tariff", cJSON_Parse(t.tariff_json));
    } else if (state) {
        state_price sp = {state, 0, "", false};
        if (gp_store_electricity(st, find_state, &sp, &err)) {
            cJSON_Delete(doc);
            return cli_fail(&err);
        }
        if (!sp.found) {
            cJSON_Delete(doc);
            return cli_usage_error("scenario draft: no industrial electricity price for \"%s\" "
                                   "(see gpuplan pricing electricity)",
                                   state);
        }
        cJSON *t = cJSON_AddObjectToObject(sh, "tariff");
        cJSON *ps = cJSON_AddArrayToObject(t, "periods");
        cJSON *p = cJSON_CreateObject();
        char pname[96];
        snprintf(pname, sizeof pname, "%s industrial average %s", state, sp.year);
        cJSON_AddStringToObject(p, "name", pname);
        cJSON_AddNumberToObject(p, "hours_per_day", 24);
        cJSON_AddNumberToObject(p, "price_per_kwh", sp.price);
        cJSON_AddItemToArray(ps, p);
    }
    cJSON *opts = cJSON_AddArrayToObject(doc, "cloud_options");
    for (int k = 0; k < 3; k++) {
        if (!picks[k].found)
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", picks[k].label);
        cJSON_AddStringToObject(o, "pricing", gp_pricing_name(picks[k].pricing));
        cJSON_AddStringToObject(o, "catalog", picks[k].catalog);
        if (picks[k].pricing == GP_COMMITTED) {
            cJSON_AddNumberToObject(o, "term_months", picks[k].term);
            static const char *const pn[] = {"no_upfront", "partial_upfront", "all_upfront"};
            cJSON_AddStringToObject(o, "purchase", pn[picks[k].purchase]);
        }
        cJSON_AddItemToArray(opts, o);
    }
    char *text = cJSON_Print(doc);
    cJSON_Delete(doc);
    gp_status rc = cli_write_output(output, text, strlen(text), &err);
    if (rc == GP_OK && (!output || !strcmp(output, "-")))
        putchar('\n');
    free(text);
    return rc ? cli_fail(&err) : 0;
}
