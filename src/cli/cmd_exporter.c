/* gpuplan exporter: /metrics for Prometheus. Parses the options, opens the exporter service
 * (src/app/exporter.c) read-only, and serves what it computes through libmicrohttpd, rendered
 * by src/report/report_metrics.c, until SIGINT or SIGTERM. One connection is served at a time
 * (the internal polling thread), so the service sees one caller. */
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "cli.h"
#include "gpuplan/app_exporter.h"
#include "gpuplan/clock.h"
#include "gpuplan/report_metrics.h"

#define DEFAULT_LISTEN "127.0.0.1:9402"

static void exporter_help(void) {
    printf("usage: gpuplan exporter [--listen ADDR] [--since 7d] [--busy-threshold 5]\n"
           "                        [--scenario NAME|FILE | --price-per-kwh X] [--by LABEL]\n"
           "                        [--max-label-values 50] [--max-age 5m]\n\n"
           "Serves /metrics for Prometheus (its text format, or OpenMetrics when the scraper\n"
           "asks for it) from the database, read-only: OpenCost's node_gpu_hourly_cost and\n"
           "node_gpu_count, each GPU's and node's busy share and idle money over the window,\n"
           "the cost of a busy GPU-hour, chargeback by --by LABEL, every saved scenario's\n"
           "cheapest choice, totals and break-even months, the catalog's price ages and each\n"
           "node's last collection (docs/exporter.md lists the families and their labels).\n"
           "--scenario prices the fleet (all-in GPU-hour, tariff, PUE); without it,\n"
           "--price-per-kwh prices idle GPUs by their energy only. Figures are computed again\n"
           "when the database changes (a collection cycle) or are older than --max-age.\n"
           "--listen HOST:PORT, default %s (loopback only; give another address to\n"
           "serve beyond this machine; port 0 takes a free one). The address served is\n"
           "printed on stdout once the port answers.\n",
           DEFAULT_LISTEN);
}

/* "30d", "12h", "90m", "45s" into milliseconds (at most ten years); false for anything else. */
static bool parse_duration(const char *s, long long *ms) {
    char *end;
    double v = strtod(s, &end);
    double unit = !strcmp(end, "d")   ? 86400e3
                  : !strcmp(end, "h") ? 3600e3
                  : !strcmp(end, "m") ? 60e3
                  : !strcmp(end, "s") ? 1e3
                                      : -1;
    if (end == s || !(v > 0) || unit < 0 || v * unit > 3650 * 86400e3)
        return false;
    *ms = (long long)(v * unit);
    return true;
}

/* HOST:PORT or [V6]:PORT into a socket address (numeric ports; hosts as getaddrinfo finds). */
static int parse_listen(const char *arg, struct sockaddr_storage *sa, socklen_t *len) {
    char host[256];
    const char *colon = strrchr(arg, ':');
    if (!colon || colon == arg || !colon[1] || (size_t)(colon - arg) >= sizeof host)
        return cli_usage_error("--listen: \"%s\" is not HOST:PORT (like %s)", arg, DEFAULT_LISTEN);
    memcpy(host, arg, (size_t)(colon - arg));
    host[colon - arg] = '\0';
    if (host[0] == '[' && host[strlen(host) - 1] == ']') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    int port;
    if (!gp_parse_int(colon + 1, &port) || port < 0 || port > 65535)
        return cli_usage_error("--listen: \"%s\" is not a port (0 to 65535)", colon + 1);
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV | AI_PASSIVE};
    struct addrinfo *res = NULL;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0 || !res) {
        if (res)
            freeaddrinfo(res);
        return cli_usage_error("--listen: cannot resolve \"%s\"", host);
    }
    memcpy(sa, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

typedef struct serve_state {
    gp_exporter *x;
    bool serving;         /* the server started: its own errors are told from then on */
    char last_error[512]; /* told once on stderr, again only when it changes */
    /* The set as rendered, per format (text, OpenMetrics), with the exporter's generation it
     * was rendered at: a scrape of kept figures copies it instead of rendering 25,000 samples
     * again (a copy, as a reply in flight may outlive the next rendering). */
    gp_buf rendered[2];
    unsigned long long rendered_gen[2];
    bool has_rendered[2];
} serve_state;

/* libmicrohttpd's error lines once serving, prefixed like every other; at startup the one
 * line that the address cannot be listened on says it. */
static void mhd_log(void *cls, const char *fmt, va_list ap) {
    if (!((serve_state *)cls)->serving)
        return;
    fputs("gpuplan: exporter: ", stderr);
    vfprintf(stderr, fmt, ap);
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned code, const char *type,
                             char *body, size_t len, bool owned) {
    struct MHD_Response *r = MHD_create_response_from_buffer(
        len, body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        if (owned)
            free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Vary", "Accept");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    enum MHD_Result ok = MHD_queue_response(conn, code, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result metrics(serve_state *st, struct MHD_Connection *conn) {
    const gp_metric_set *set;
    gp_err err;
    gp_err_clear(&err);
    if (gp_exporter_metrics(st->x, gp_now_ms(), &set, &err) != GP_OK) {
        char line[512];
        snprintf(line, sizeof line, "%s%s%s", err.where, err.where[0] ? ": " : "", err.msg);
        if (strcmp(line, st->last_error)) {
            fprintf(stderr,
                    "gpuplan: exporter: refresh failed, serving the previous figures: "
                    "%s\n",
                    line);
            snprintf(st->last_error, sizeof st->last_error, "%s", line);
        }
    } else {
        st->last_error[0] = '\0';
    }
    if (!set) {
        static char unavailable[] = "no figures yet: the store could not be read\n";
        return reply(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", unavailable,
                     sizeof unavailable - 1, false);
    }
    bool om = gp_metrics_accepts_openmetrics(
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
    gp_buf *out = &st->rendered[om];
    unsigned long long gen = gp_exporter_generation(st->x);
    if (!st->has_rendered[om] || st->rendered_gen[om] != gen) {
        gp_buf_done(out);
        gp_buf_init(out, 1u << 30);
        st->has_rendered[om] = false;
        if (gp_report_metrics(set, om, out)) {
            gp_buf_done(out);
            static char toobig[] = "the metrics are larger than 1 GiB\n";
            return reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8", toobig,
                         sizeof toobig - 1, false);
        }
        st->has_rendered[om] = true;
        st->rendered_gen[om] = gen;
    }
    char *body = gp_xmalloc(out->len ? out->len : 1);
    if (out->len)
        memcpy(body, out->data, out->len);
    return reply(conn, MHD_HTTP_OK, om ? GP_METRICS_OPENMETRICS_TYPE : GP_METRICS_TEXT_TYPE, body,
                 out->len, true);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls) {
    (void)version, (void)upload, (void)upload_size, (void)con_cls;
    static char home[] = "gpuplan exporter: the metrics are at /metrics\n";
    static char missing[] = "not found: the metrics are at /metrics\n";
    static char refused[] = "only GET and HEAD\n";
    const char *plain = "text/plain; charset=utf-8";
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED, plain, refused, sizeof refused - 1, false);
    if (!strcmp(url, "/metrics"))
        return metrics(cls, conn);
    if (!strcmp(url, "/"))
        return reply(conn, MHD_HTTP_OK, plain, home, sizeof home - 1, false);
    return reply(conn, MHD_HTTP_NOT_FOUND, plain, missing, sizeof missing - 1, false);
}

/* --since: a window of 5 minutes or more. */
static int exporter_since(const char *v, void *dest) {
    long long ms;
    if (!parse_duration(v, &ms) || ms < 300000)
        return CLI_OPT_BAD;
    *(long long *)dest = ms;
    return 0;
}

/* --max-age: a second or more. */
static int exporter_max_age(const char *v, void *dest) {
    long long ms;
    if (!parse_duration(v, &ms) || ms < 1000)
        return CLI_OPT_BAD;
    *(int64_t *)dest = ms;
    return 0;
}

/* --busy-threshold: a multiple of 5 from 5 to 100. */
static int exporter_threshold(const char *v, void *dest) {
    int *t = dest;
    return gp_parse_int(v, t) && *t >= 5 && *t <= 100 && *t % 5 == 0 ? 0 : CLI_OPT_BAD;
}

static int parse(int argc, char **argv, gp_exporter_opts *o, const char **listen, bool *help) {
    const cli_opt opts[] = {
        {CLI_STR("listen", listen)},
        {CLI_CALL("since", &o->since_ms, exporter_since),
         .bad = "\"%s\" is not a window like 7d or 12h (5m at least)"},
        {CLI_CALL("busy-threshold", &o->threshold, exporter_threshold),
         .bad = "\"%s\" is not a multiple of 5 from 5 to 100"},
        {CLI_STR("scenario", &o->scenario)},
        {CLI_DOUBLE("price-per-kwh", &o->price, 0, INFINITY), .given = &o->has_price,
         .bad = "\"%s\" is not a price"},
        {CLI_STR("by", &o->by)},
        {CLI_INT("max-label-values", &o->max_label_values, 1, GP_EXPORTER_MAX_LABEL_VALUES),
         .bad = "\"%s\" is not a count from 1 to " CLI_STRING(GP_EXPORTER_MAX_LABEL_VALUES)},
        {CLI_CALL("max-age", &o->max_age_ms, exporter_max_age),
         .bad = "\"%s\" is not a duration like 5m or 30s"},
        {CLI_HELP(help)},
        {0}};
    int first, rc = cli_parse(&(cli_parser){.cmd = "exporter", .opts = opts}, argc, argv, &first);
    if (rc || *help)
        return rc;
    if (first != argc)
        return cli_usage_error("exporter takes no arguments (see --help)");
    if (o->scenario && o->has_price)
        return cli_usage_error("--scenario prices the power itself: leave out --price-per-kwh");
    return 0;
}

int cmd_exporter(gp_session *ses, int argc, char **argv) {
    gp_exporter_opts o;
    gp_exporter_opts_init(&o);
    const char *listen = DEFAULT_LISTEN;
    bool help = false;
    int rc = parse(argc, argv, &o, &listen, &help);
    if (rc || help)
        return help ? exporter_help(), 0 : rc;
    struct sockaddr_storage sa;
    socklen_t sa_len = 0;
    if ((rc = parse_listen(listen, &sa, &sa_len)))
        return rc;
    ses->read_only = true; /* never a write lock: the collector keeps writing */
    gp_err err;
    gp_err_clear(&err);
    serve_state st = {0};
    if (gp_exporter_open(ses, &o, gp_now_ms(), &st.x, &err))
        return cli_fail(&err);
    /* The signals are taken by sigwait below; blocked before the server's thread starts, so
     * it inherits the mask and they reach this thread only. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
                     (sa.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
    /* The port again beside the address, for libmicrohttpd's own error lines. */
    uint16_t port = ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&sa)->sin6_port
                                                   : ((struct sockaddr_in *)&sa)->sin_port);
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, port, NULL, NULL, handle, &st, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
        MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_CONNECTION_TIMEOUT, 30u,
        MHD_OPTION_EXTERNAL_LOGGER, mhd_log, &st, MHD_OPTION_END);
    if (!d) {
        gp_exporter_close(st.x);
        gp_errorf(&err, GP_E_IO, listen, "cannot listen (in use, or not an address of this host)");
        return cli_fail(&err);
    }
    st.serving = true;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    char host[128] = "";
    getnameinfo((struct sockaddr *)&sa, sa_len, host, sizeof host, NULL, 0, NI_NUMERICHOST);
    printf("gpuplan exporter: serving http://%s%s%s:%u/metrics\n",
           sa.ss_family == AF_INET6 ? "[" : "", host, sa.ss_family == AF_INET6 ? "]" : "",
           info ? (unsigned)info->port : 0u);
    fflush(stdout);
    int sig = 0;
    sigwait(&sigs, &sig);
    MHD_stop_daemon(d);
    gp_exporter_close(st.x);
    gp_buf_done(&st.rendered[0]);
    gp_buf_done(&st.rendered[1]);
    return 0;
}
