/* Telemetry speed targets: parsing dcgm exposition text (>= 200 MB/s on one core) and storing
 * samples (>= 500,000 a second). The text is generated: 1,000 scrapes of 8 GPUs with 12
 * fields each, labels as dcgm-exporter writes them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpuplan/store_telemetry.h"
#include "gpuplan/samples.h"
#include "gpuplan/xmem.h"
#include "../dbfile.h"

static double cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static gp_status count(const gp_prom_sample *s, void *arg, gp_err *err) {
    (void)s, (void)err;
    (*(size_t *)arg)++;
    return GP_OK;
}

int main(void) {
    static const char *const fields[] = {"DCGM_FI_DEV_SM_CLOCK",
                                         "DCGM_FI_DEV_MEM_CLOCK",
                                         "DCGM_FI_DEV_MEMORY_TEMP",
                                         "DCGM_FI_DEV_GPU_TEMP",
                                         "DCGM_FI_DEV_POWER_USAGE",
                                         "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
                                         "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
                                         "DCGM_FI_DEV_GPU_UTIL",
                                         "DCGM_FI_DEV_MEM_COPY_UTIL",
                                         "DCGM_FI_DEV_FB_FREE",
                                         "DCGM_FI_DEV_FB_USED",
                                         "DCGM_FI_DEV_XID_ERRORS"};
    gp_buf text;
    gp_buf_init(&text, 1u << 30);
    for (int scrape = 0; scrape < 1000; scrape++) {
        for (int f = 0; f < 12; f++) {
            gp_buf_printf(&text, "# HELP %s field %d.\n# TYPE %s gauge\n", fields[f], f, fields[f]);
            for (int g = 0; g < 8; g++)
                gp_buf_printf(&text,
                              "%s{gpu=\"%d\",UUID=\"GPU-%08x-69c4-b61d-e0bc-7b24600%05d\","
                              "pci_bus_id=\"00000000:%02X:00.0\",device=\"nvidia%d\","
                              "modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node-%04d\","
                              "DCGM_FI_DRIVER_VERSION=\"580.105.08\"} %d.%06d\n",
                              fields[f], g, scrape, g, 0x53 + g, g, scrape, 100 + g * 7 + f,
                              scrape);
        }
    }
    double mb = text.len / 1e6;
    /* The exposition format alone, then with the DCGM mapping (per scrape, as a node sends). */
    size_t n = 0;
    gp_err err;
    double t0 = now_s();
    for (int r = 0; r < 3; r++)
        gp_prom_text_parse(text.data, text.len, "bench", count, &n, &err);
    double t = (now_s() - t0) / 3;
    printf("telemetry: exposition text parsed at %.0f MB/s (%.1f MB, %zu samples)\n", mb / t, mb,
           n / 3);
    gp_samples s;
    gp_samples_init(&s, 1u << 24);
    t0 = now_s();
    if (gp_dcgm_parse(text.data, text.len, "bench", &s, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    t = now_s() - t0;
    printf("telemetry: dcgm scrape parsed into canonical samples at %.0f MB/s (%zu GPUs, %zu "
           "samples)\n",
           mb / t, s.n_gpus, s.n);
    gp_samples_done(&s);
    gp_buf_done(&text);

    /* Storing: 100 GPUs x 7 metrics x 1,500 times (15 s apart) = 1,050,000 samples. */
    char db[] = "/var/tmp/gpuplan-bench-tel-XXXXXX";
    int fd = mkstemp(db);
    close(fd);
    unlink(db);
    gp_store *st;
    if (gp_store_open(db, &st, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    gp_source_cfg src = {0};
    long long node;
    gp_store_node_add(st, "bench", &src, 0, &err);
    gp_store_node_id(st, "bench", &node, &err);
    gp_samples_init(&s, 1u << 24);
    int64_t t_start = 1767225600000LL;
    for (int g = 0; g < 100; g++) {
        char uuid[32];
        snprintf(uuid, sizeof uuid, "GPU-%04d", g);
        int gi = gp_samples_gpu(&s, uuid, g % 8, "", "NVIDIA H100 80GB HBM3", "h");
        for (int k = 0; k < 1500; k++)
            for (int m = 0; m < 7; m++)
                gp_samples_add(&s, gi, (gp_metric)m, (k * 7 + m) % 100, t_start + k * 15000LL, -1,
                               &err);
    }
    size_t written;
    t0 = now_s();
    double c0 = cpu_s();
    gp_store_begin(st, &err);
    if (gp_store_samples_write(st, node, &s, t_start, &written, &err) || gp_store_commit(st, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    t = now_s() - t0;
    /* CPU time too: on a shared machine it says more than the wall clock. */
    printf("telemetry: %zu samples stored with their rollups at %.0f samples/s (%.0f per CPU "
           "second)\n",
           written, written / t, written / (cpu_s() - c0));
    gp_samples_done(&s);
    gp_store_close(st);
    test_remove_db(db);
    return 0;
}
