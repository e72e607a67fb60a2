/* gpuplan db stats|check: what the database holds, how large it is, and whether it is whole. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/clock.h"
#include "gpuplan/numfmt.h"
#include "gpuplan/text.h"

static int print_space(const char *table, long long bytes, void *arg) {
    (void)arg;
    char mb[48];
    printf("  %-22s %12s MB\n", table, gp_fmt_grouped(bytes / 1e6, 2, mb, sizeof mb));
    return 0;
}

static void print_problem(const char *line, void *arg) {
    (void)arg;
    char clean[1024];
    gp_text_clean(line, clean, sizeof clean);
    printf("damaged: %s\n", clean);
}

/* db check: integrity_check and every chunk's checksum; exit 1 when something is damaged. */
static int db_check(gp_session *ses) {
    gp_err err;
    gp_err_clear(&err);
    gp_db_check c;
    ses->read_only = true;
    if (gp_db_verify(ses, print_problem, NULL, &c, &err))
        return cli_fail(&err);
    char n[6][32];
    long long all = c.chunks[0] + c.chunks[1] + c.chunks[2] + c.chunks[3];
    printf("integrity:   %s\nchunks:      %s checked (5 min %s, 1 h %s, capacity hours %s, fleet "
           "%s), %lld damaged\n",
           c.integrity_problems ? "problems found" : "ok",
           gp_fmt_grouped((double)all, 0, n[0], sizeof n[0]),
           gp_fmt_grouped((double)c.chunks[0], 0, n[1], sizeof n[1]),
           gp_fmt_grouped((double)c.chunks[1], 0, n[2], sizeof n[2]),
           gp_fmt_grouped((double)c.chunks[2], 0, n[3], sizeof n[3]),
           gp_fmt_grouped((double)c.chunks[3], 0, n[4], sizeof n[4]), c.damaged);
    if (c.unsummed)
        printf("             %s written before chunks carried a checksum (decoded, not verified)\n",
               gp_fmt_grouped((double)c.unsummed, 0, n[5], sizeof n[5]));
    if (c.damaged || c.integrity_problems) {
        fprintf(stderr,
                "gpuplan: %s: damaged: %lld chunks refused, %lld integrity_check problems\n",
                ses->path, c.damaged, c.integrity_problems);
        return 1;
    }
    return 0;
}

static void db_help(void) {
    printf("usage: gpuplan db stats [--space]\n       gpuplan db check\n\nstats: what the "
           "database holds and how large it is. Raw samples are kept for 48 h\n(collect "
           "--keep-raw), 5-minute and 1-hour rollups for a year.\n\n  --space   where the "
           "file's bytes go: the pages of each table with its indexes,\n            largest "
           "first, and the free pages (reads the whole file)\n\ncheck: SQLite's "
           "integrity_check and every day chunk decoded, its checksum\nverified; each "
           "damaged chunk is named with its series (or node) and day.\nExit 1 when "
           "something is damaged. Reads the whole file; works read-only.\n");
}

int cmd_db(gp_session *ses, int argc, char **argv) {
    bool space = false, asked = false;
    const cli_opt opts[] = {{CLI_FLAG("space", &space)}, {CLI_HELP(&asked)}, {0}};
    int first, rc = cli_parse(&(cli_parser){.cmd = "db", .opts = opts}, argc, argv, &first);
    if (rc || asked)
        return asked ? db_help(), 0 : rc;
    const char *sub = first < argc ? argv[first] : "";
    if (argc - first == 1 && !strcmp(sub, "check") && !space)
        return db_check(ses);
    if (argc - first != 1 || strcmp(sub, "stats") != 0)
        return cli_usage_error("db: usage: gpuplan db stats [--space] | gpuplan db check");
    ses->read_only = true;
    gp_err err;
    gp_err_clear(&err);
    gp_db_stats s;
    if (gp_db_stats_read(ses, &s, &err))
        return cli_fail(&err);
    char a[32], b[32], n[5][32];
    gp_fmt_local_time(s.oldest_sample_ms, a, sizeof a);
    gp_fmt_local_time(s.newest_sample_ms, b, sizeof b);
    printf("file:        %s MB\nscenarios:   %lld\ncatalog:     %lld offers, %lld prices\n"
           "nodes:       %lld with %lld GPU%s, %lld collection cycle%s\n"
           "series:      %s\nraw samples: %s (%s .. %s)\nrollups:     %s of 5 min, %s "
           "of 1 h\n",
           gp_fmt_grouped(s.file_bytes / 1e6, 1, n[0], sizeof n[0]), s.scenarios, s.offers,
           s.prices, s.nodes, s.gpus, s.gpus == 1 ? "" : "s", s.cycles, s.cycles == 1 ? "" : "s",
           gp_fmt_grouped((double)s.series, 0, n[1], sizeof n[1]),
           gp_fmt_grouped((double)s.samples, 0, n[2], sizeof n[2]), a, b,
           gp_fmt_grouped((double)s.rollups_5m, 0, n[3], sizeof n[3]),
           gp_fmt_grouped((double)s.rollups_1h, 0, n[4], sizeof n[4]));
    if (space) {
        printf("space:       pages of each table with its indexes\n");
        if (gp_db_space(ses, print_space, NULL, &err))
            return cli_fail(&err);
    }
    return 0;
}
