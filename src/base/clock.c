#include "gpuplan/clock.h"

#include <stdio.h>
#include <time.h>

int64_t gp_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void gp_fmt_local_time(int64_t ms, char *out, size_t cap) {
    if (ms <= 0) {
        snprintf(out, cap, "never");
        return;
    }
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    localtime_r(&t, &tm);
    char buf[32] = ""; /* strftime leaves nothing defined when out is short: cut it here */
    strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(out, cap, "%s", buf);
}

void gp_fmt_utc_time(int64_t ms, char *out, size_t cap) {
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    char buf[32] = ""; /* strftime leaves nothing defined when out is short: cut it here */
    if (gmtime_r(&t, &tm))
        strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(out, cap, "%s", buf);
}
