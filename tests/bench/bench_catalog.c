/* Catalog speed targets: every bundled file into an empty database (< 2 s), the 3.8 MB
 * instances.json alone (< 0.5 s), and a filtered `pricing list` over the whole catalog
 * (< 20 ms). Usage: bench_catalog SOURCE_ROOT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuplan/catalog_load.h"
#include "gpuplan/store_catalog.h"
#include "../dbfile.h"

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fresh(const char *path, gp_store **st) {
    test_remove_db(path);
    gp_err err;
    if (gp_store_open(path, st, &err)) {
        fprintf(stderr, "%s: %s\n", err.where, err.msg);
        exit(1);
    }
}

static int count(const gp_offer_price *o, void *arg) {
    (void)o;
    (*(int *)arg)++;
    return 0;
}

int main(int argc, char **argv) {
    const char *root = argc > 1 ? argv[1] : ".";
    char db[] = "/var/tmp/gpuplan-bench-XXXXXX";
    int fd = mkstemp(db);
    close(fd);
    gp_store *st;
    gp_err err;

    fresh(db, &st);
    gp_bundle_stats bs;
    double t0 = now_s();
    if (gp_catalog_load_bundle(st, false, &bs, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    printf("catalog: every bundled file (%zu files, %zu prices) into an empty database: %.3f s\n",
           bs.files, bs.prices_added, now_s() - t0);

    /* A filtered list over the whole catalog, the mean of 50. */
    gp_offer_filter f = {0};
    f.gpu = "H100";
    f.pricing = -1;
    f.as_of = "2026-11-22";
    f.sort = GP_SORT_GPU_HOUR;
    int n = 0;
    t0 = now_s();
    for (int i = 0; i < 50; i++)
        gp_store_catalog_list(st, &f, count, &n, &err);
    printf("catalog: pricing list --gpu H100 --sort gpu-hour: %.2f ms (%d rows)\n",
           (now_s() - t0) / 50 * 1e3, n / 50);
    f.gpu = NULL;
    n = 0;
    t0 = now_s();
    for (int i = 0; i < 10; i++)
        gp_store_catalog_list(st, &f, count, &n, &err);
    printf("catalog: pricing list, no filter: %.2f ms (%d rows)\n", (now_s() - t0) / 10 * 1e3,
           n / 10);
    gp_store_close(st);

    fresh(db, &st);
    char path[1024];
    snprintf(path, sizeof path, "%s/pricing/prices/aws_ec2_gpu_instances_vantage_raw.json", root);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return perror(path), 1;
    char *buf = malloc(8u << 20);
    size_t len = fread(buf, 1, 8u << 20, fp);
    fclose(fp);
    gp_catalog_batch b;
    gp_catalog_batch_init(&b, 1u << 22);
    gp_import_stats s;
    t0 = now_s();
    if (gp_catalog_import(st, buf, len, path, GP_FMT_EC2INSTANCES, NULL, "bench", "2025-11-30",
                          "2025-11-30", false, &b, &s, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    printf("catalog: instances.json (%.1f MB, %zu prices) parsed and imported: %.3f s\n", len / 1e6,
           s.added, now_s() - t0);
    gp_catalog_batch_done(&b);
    free(buf);
    gp_store_close(st);
    fresh(db, &st);
    gp_store_close(st);
    unlink(db);
    return 0;
}
