/* gpuplan scenario save|list|show|export|rm: scenarios stored in SQLite, every version kept. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/scenario_json.h"

static void help(FILE *f) {
    fprintf(f, "usage: gpuplan scenario save FILE.json    store FILE (\"-\": stdin) as the next\n"
               "                                          version of the scenario it names\n"
               "       gpuplan scenario list              every stored scenario\n"
               "       gpuplan scenario show NAME [--version N]\n"
               "                                          its versions and the chosen one\n"
               "       gpuplan scenario export NAME [--version N] [-o OUT]\n"
               "                                          the JSON, as saved\n"
               "       gpuplan scenario rm NAME           remove it and all its versions\n");
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
    gp_status rc = gp_scenario_parse(text.data, text.len, strcmp(path, "-") ? path : "<stdin>", s,
                                     NULL, &err);
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
    printf("%-50s %8d  %-20s  %s\n", info->name, info->versions, info->created_at,
           info->saved_at);
    return 0;
}

static int list(cli *c) {
    gp_err err;
    gp_err_clear(&err);
    gp_store *st;
    int n = 0;
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

static int show_or_export(cli *c, const char *name, int version, const char *output,
                          bool show) {
    gp_err err;
    gp_err_clear(&err);
    gp_store *st;
    char *json = NULL, saved[21] = "";
    int got = 0;
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
