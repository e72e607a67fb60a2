/* Fuzz target: the option table's parser (src/cli/cli_options.c) on any command line. The input
 * is the words of argv, split at NUL bytes; a table holds every kind of option. Whatever the
 * words, cli_parse returns 0 or a usage status, never 0 with an option given without the one
 * it needs, a refused line takes nothing, and the arguments it leaves behind the options are
 * words of the command line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/clock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int odd(const char *v, void *dest) {
    (void)dest;
    return strlen(v) % 2 ? 0 : CLI_OPT_BAD;
}

static int tick(const char *v, void *dest) {
    (void)v;
    ++*(int *)dest;
    return 0;
}

static const char *const names[] = {"a", "bb", "ccc", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static FILE *null; /* the lines of bad input go here: the parse is the point */
    if (!null && !(null = fopen("/dev/null", "w")))
        return 0;
    if (size > 4096)
        return 0;
    char *text = malloc(size + 1), *argv[65];
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    int argc = 0;
    argv[argc++] = "cmd";
    for (char *w = text; w < text + size && argc < 64; w += strlen(w) + 1)
        argv[argc++] = w;
    argv[argc] = NULL;
    char *given[65];
    memcpy(given, argv, sizeof given);
    bool flag = false, help = false, n_given = false, odd_given = false;
    const char *str = NULL, *list[4];
    int n = 0, k = 0, count = 0, ticks = 0, first = -1;
    double x = 0;
    int64_t ms = 0;
    char date[11] = "";
    const cli_opt opts[] = {{CLI_FLAG("flag", &flag), .letter = 'f'},
                            {CLI_STR("str", &str), .letter = 's'},
                            {CLI_INT("n", &n, -5, 5), .needs = "str", .given = &n_given},
                            {CLI_DOUBLE("x", &x, 0, 1)},
                            {CLI_DURATION("wait", &ms, GP_HOUR_MS)},
                            {CLI_DATE("date", date)},
                            {CLI_ENUM("pick", &k, names)},
                            {CLI_LIST("add", list, &count, 4), .letter = 'a'},
                            {CLI_CALL("odd", NULL, odd), .needs = "none", .given = &odd_given},
                            {CLI_ACTION("tick", &ticks, tick)},
                            {CLI_HELP(&help)},
                            {0}};
    bool in_order = size && data[0] % 2;
    FILE *saved = stderr;
    stderr = null;
    int rc = cli_parse(&(cli_parser){.cmd = "cmd", .opts = opts, .in_order = in_order}, argc, argv,
                       &first);
    stderr = saved;
    if (rc != 0 && rc != 2)
        abort();
    if (first < 1 || first > argc || count > 4 || n < -5 || n > 5 || !(x >= 0 && x <= 1) ||
        ms < 0 || ms > GP_HOUR_MS || k < 0 || k > 2 || strlen(date) > 10)
        abort();
    /* A parse that took an option without the one it needs (the table lacks --none) failed. */
    if (rc == 0 && !help && ((n_given && !str) || odd_given))
        abort();
    /* A refused line, or one with --help, took nothing and called nothing (--odd's callback,
     * the one that could refuse, is never reached: --odd needs an option the table lacks). */
    if ((rc != 0 || help) && (ticks || flag || str || count || n_given || date[0]))
        abort();
    /* The words left are words of the command line, each at most once. */
    for (int i = first; i < argc; i++) {
        int j = 1;
        while (j < argc && given[j] != argv[i])
            j++;
        if (j == argc)
            abort();
        given[j] = NULL;
    }
    free(text);
    return 0;
}
