/* The option table's parser (src/cli/cli_options.c): each kind of option, the line for each
 * kind of bad input, and where the arguments end up. Run on argv as a shell would give it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"
#include "gpuplan/clock.h"

/* A command line of words, writable as getopt wants it; ended by NULL. */
typedef struct cmdline {
    int argc;
    char *argv[32];
} cmdline;

static cmdline words(const char *first, ...) {
    cmdline c = {0};
    va_list ap;
    va_start(ap, first);
    for (const char *w = first; w && c.argc < 31; w = va_arg(ap, const char *))
        c.argv[c.argc++] = strdup(w);
    va_end(ap);
    c.argv[c.argc] = NULL;
    return c;
}

static void done(cmdline *c) {
    for (int i = 0; i < c->argc; i++)
        free(c->argv[i]);
}

/* cli_parse with stderr caught: its status, the line it printed into err. */
static int parse(const cli_parser *p, cmdline *c, int *first, char *err, size_t cap) {
    FILE *saved = stderr, *f = tmpfile();
    assert_non_null(f);
    stderr = f;
    int rc = cli_parse(p, c->argc, c->argv, first);
    stderr = saved;
    rewind(f);
    size_t n = fread(err, 1, cap - 1, f);
    err[n] = '\0';
    fclose(f);
    return rc;
}

/* Every kind of value, read right. */
typedef struct vals {
    bool flag, help, given_str;
    const char *str, *list[3];
    int n_list, num, pick;
    double x;
    int64_t ms;
    char date[11];
    int calls;
} vals;

static const char *const colours[] = {"red", "green", "blue", NULL};

static int even(const char *v, void *dest) {
    int n;
    if (!gp_parse_int(v, &n) || n % 2)
        return CLI_OPT_BAD;
    *(int *)dest = n;
    return 0;
}

static int own_line(const char *v, void *dest) {
    (void)dest;
    return cli_usage_error("my own words about %s", v) + 5; /* 7: told apart from 2 */
}

static int count_calls(const char *v, void *dest) {
    assert_null(v);
    ++*(int *)dest;
    return 0;
}

#define TABLE(v)                                                                                   \
    const cli_opt opts[] = {{CLI_FLAG("flag", &(v).flag)},                                         \
                            {CLI_STR("str", &(v).str), .letter = 's', .given = &(v).given_str},    \
                            {CLI_INT("num", &(v).num, 1, 10), .bad = "\"%s\" is not 1..10"},       \
                            {CLI_DOUBLE("x", &(v).x, 0, 1)},                                       \
                            {CLI_INT("level", &(v).num, 1, 3)},                                    \
                            {CLI_DOUBLE("more", &(v).x, 0, INFINITY)},                             \
                            {CLI_DURATION("wait", &(v).ms, GP_HOUR_MS)},                           \
                            {CLI_DATE("as-of", (v).date)},                                         \
                            {CLI_ENUM("colour", &(v).pick, colours), .bad = "red, green or blue"}, \
                            {CLI_LIST("add", (v).list, &(v).n_list, 3), .bad = "at most 3"},       \
                            {CLI_CALL("even", &(v).num, even), .bad = "%s is odd"},                \
                            {CLI_CALL("mine", NULL, own_line)},                                    \
                            {CLI_ACTION("tick", &(v).calls, count_calls)},                         \
                            {CLI_HELP(&(v).help)},                                                 \
                            {0}}

static void every_kind_read(void **state) {
    (void)state;
    vals v = {0};
    TABLE(v);
    cmdline c =
        words("cmd", "--flag", "--str", "a b", "--num=7", "--x", "0.25", "--wait", "2m", "--as-of",
              "2026-02-28", "--colour=blue", "--add", "one", "--add=two", "--tick", "--tick", NULL);
    char err[512];
    int first = -1;
    assert_int_equal(parse(&(cli_parser){.cmd = "cmd", .opts = opts}, &c, &first, err, sizeof err),
                     0);
    assert_string_equal(err, "");
    assert_int_equal(first, c.argc);
    assert_true(v.flag);
    assert_false(v.help);
    assert_string_equal(v.str, "a b");
    assert_true(v.given_str);
    assert_int_equal(v.num, 7);
    assert_true(v.x == 0.25);
    assert_int_equal(v.ms, 2 * GP_MINUTE_MS);
    assert_string_equal(v.date, "2026-02-28");
    assert_int_equal(v.pick, 2);
    assert_int_equal(v.n_list, 2);
    assert_string_equal(v.list[0], "one");
    assert_string_equal(v.list[1], "two");
    assert_int_equal(v.calls, 2);
    done(&c);
}

/* Short letters: "-s value" and "-svalue"; arguments among the options move behind them, in
 * their order; "--" ends the options, "-" is an argument. */
static void letters_arguments_and_the_end(void **state) {
    (void)state;
    vals v = {0};
    TABLE(v);
    cmdline c =
        words("cmd", "one", "-s", "x", "two", "-sy", "--flag", "-", "--", "--num", "-s", NULL);
    char err[512];
    int first;
    assert_int_equal(parse(&(cli_parser){.opts = opts}, &c, &first, err, sizeof err), 0);
    assert_string_equal(v.str, "y");
    assert_true(v.flag);
    assert_int_equal(v.num, 0); /* after "--": an argument, not the option */
    assert_int_equal(c.argc - first, 5);
    assert_string_equal(c.argv[first], "one");
    assert_string_equal(c.argv[first + 1], "two");
    assert_string_equal(c.argv[first + 2], "-");
    assert_string_equal(c.argv[first + 3], "--num");
    assert_string_equal(c.argv[first + 4], "-s");
    done(&c);
}

/* Letters run together in one word are as many options: more of them than the line has words,
 * each taken (the line is held whole before anything is taken). */
static void letters_in_one_word(void **state) {
    (void)state;
    int calls = 0;
    bool flag = false;
    const char *str = NULL;
    const cli_opt opts[] = {{CLI_ACTION("tick", &calls, count_calls), .letter = 't'},
                            {CLI_FLAG("flag", &flag), .letter = 'f'},
                            {CLI_STR("str", &str), .letter = 's'},
                            {0}};
    char word[64] = "-";
    for (int i = 1; i < 41; i++)
        word[i] = 't';
    memcpy(word + 41, "fsv", 4);
    cmdline c = words("cmd", word, "-ttf", NULL);
    char err[512];
    int first;
    assert_int_equal(parse(&(cli_parser){.opts = opts}, &c, &first, err, sizeof err), 0);
    assert_int_equal(calls, 42);
    assert_true(flag);
    assert_string_equal(str, "v");
    assert_int_equal(first, c.argc);
    done(&c);
}

/* in_order: the options end at the first argument, which keeps its own. */
static void in_order_stops_at_the_command(void **state) {
    (void)state;
    vals v = {0};
    TABLE(v);
    cmdline c = words("gpuplan", "--flag", "report", "--str", "x", NULL);
    char err[512];
    int first;
    assert_int_equal(
        parse(&(cli_parser){.opts = opts, .in_order = true}, &c, &first, err, sizeof err), 0);
    assert_true(v.flag);
    assert_null(v.str);
    assert_int_equal(first, 2);
    assert_string_equal(c.argv[2], "report");
    assert_string_equal(c.argv[3], "--str");
    done(&c);
}

/* --help stops at once: what follows is not read, a bad option after it included; what
 * stands before it is not taken, no callback called. */
static void help_stops(void **state) {
    (void)state;
    vals v = {0};
    TABLE(v);
    cmdline c = words("cmd", "--flag", "--tick", "--str", "s", "-h", "--nope", "--num", "99", NULL);
    char err[512];
    int first;
    assert_int_equal(parse(&(cli_parser){.opts = opts}, &c, &first, err, sizeof err), 0);
    assert_true(v.help);
    assert_false(v.flag);
    assert_int_equal(v.calls, 0);
    assert_null(v.str);
    assert_int_equal(v.num, 0);
    assert_string_equal(err, "");
    done(&c);
}

typedef struct bad_case {
    const char *word, *value; /* value NULL: the word alone */
    const char *line;
} bad_case;

/* One line each, naming the option and the value, exit status 2. */
static void bad_values_one_line(void **state) {
    (void)state;
    static const bad_case cases[] = {
        {"--num", "11", "gpuplan: cmd: --num: \"11\" is not 1..10\n"},
        {"--num=0", NULL, "gpuplan: cmd: --num: \"0\" is not 1..10\n"},
        {"--num", "3.5", "gpuplan: cmd: --num: \"3.5\" is not 1..10\n"},
        {"--x", "1.5", "gpuplan: cmd: --x: \"1.5\" is not a number from 0 to 1\n"},
        {"--x", "nan", "gpuplan: cmd: --x: \"nan\" is not a number from 0 to 1\n"},
        {"--level", "4", "gpuplan: cmd: --level: \"4\" is not a whole number from 1 to 3\n"},
        {"--more=-1", NULL, "gpuplan: cmd: --more: \"-1\" is not a number, 0 or more\n"},
        {"--wait", "2h",
         "gpuplan: cmd: --wait: \"2h\" is not a duration like 30s, 5m, 12h or 7d\n"},
        {"--wait", "5", "gpuplan: cmd: --wait: \"5\" is not a duration like 30s, 5m, 12h or 7d\n"},
        {"--as-of", "2026-02-30",
         "gpuplan: cmd: --as-of: \"2026-02-30\" is not a date YYYY-MM-DD\n"},
        {"--colour", "Red", "gpuplan: cmd: --colour: red, green or blue\n"},
        {"--even", "3", "gpuplan: cmd: --even: 3 is odd\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vals v = {0};
        TABLE(v);
        cmdline c = words("cmd", "arg", cases[i].word, cases[i].value, NULL);
        char err[512];
        int first;
        int rc = parse(&(cli_parser){.cmd = "cmd", .opts = opts, .cmd_in_values = true}, &c, &first,
                       err, sizeof err);
        assert_int_equal(rc, 2);
        assert_string_equal(err, cases[i].line);
        done(&c);
    }
}

/* Without cmd_in_values the line starts at the option; a value is never read as a format. */
static void bad_value_without_the_command(void **state) {
    (void)state;
    vals v = {0};
    TABLE(v);
    cmdline c = words("cmd", "--num", "%s%n%%", NULL);
    char err[512];
    int first;
    assert_int_equal(parse(&(cli_parser){.cmd = "cmd", .opts = opts}, &c, &first, err, sizeof err),
                     2);
    assert_string_equal(err, "gpuplan: --num: \"%s%n%%\" is not 1..10\n");
    done(&c);
}

/* A list holds what its array holds. */
static void list_full(void **state) {
    (void)state;
    vals v = {0};
    TABLE(v);
    cmdline c = words("cmd", "--add", "1", "--add", "2", "--add", "3", "--add", "4", NULL);
    char err[512];
    int first;
    assert_int_equal(parse(&(cli_parser){.opts = opts}, &c, &first, err, sizeof err), 2);
    assert_string_equal(err, "gpuplan: --add: at most 3\n");
    assert_int_equal(v.n_list, 0); /* a refused line takes nothing */
    done(&c);
}

/* A callback's own line and status stand as they are. */
static void callback_own_status(void **state) {
    (void)state;
    vals v = {0};
    TABLE(v);
    cmdline c = words("cmd", "--mine", "it", NULL);
    char err[512];
    int first;
    assert_int_equal(parse(&(cli_parser){.opts = opts}, &c, &first, err, sizeof err), 7);
    assert_string_equal(err, "gpuplan: my own words about it\n");
    done(&c);
}

/* Unknown options and missing values: the word as typed, with and without the command. */
static void unknown_and_missing(void **state) {
    (void)state;
    static const struct {
        const char *a, *b, *cmd, *line;
    } cases[] = {
        {"--nope", NULL, "cmd",
         "gpuplan: cmd: unknown option or missing value: --nope (see --help)\n"},
        {"--nope=1", NULL, NULL,
         "gpuplan: unknown option or missing value: --nope=1 (see --help)\n"},
        {"--flag=1", NULL, "cmd", "gpuplan: cmd: --flag takes no value (--flag=1)\n"},
        {"--flag=", NULL, NULL, "gpuplan: --flag takes no value (--flag=)\n"},
        {"-q", NULL, "cmd", "gpuplan: cmd: unknown option or missing value: -q (see --help)\n"},
        {"-qs", "x", "cmd", "gpuplan: cmd: unknown option or missing value: -qs (see --help)\n"},
        {"arg", "--num", "cmd",
         "gpuplan: cmd: unknown option or missing value: --num (see --help)\n"},
        {"arg", "-s", "cmd", "gpuplan: cmd: unknown option or missing value: -s (see --help)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vals v = {0};
        TABLE(v);
        cmdline c = words("cmd", cases[i].a, cases[i].b, NULL);
        char err[512];
        int first;
        assert_int_equal(
            parse(&(cli_parser){.cmd = cases[i].cmd, .opts = opts}, &c, &first, err, sizeof err),
            2);
        assert_string_equal(err, cases[i].line);
        done(&c);
    }
}

static int negative_number(const char *word) {
    return gp_parse_double(word, &(double){0}) ? cli_usage_error("VALUE %s: below 0", word) : 0;
}

/* The unknown hook sees the whole word, and may leave it to the usual line. */
static void unknown_hook(void **state) {
    (void)state;
    vals v = {0};
    TABLE(v);
    char err[512];
    int first;
    cli_parser p = {.cmd = "set", .opts = opts, .unknown = negative_number};
    cmdline c = words("set", "A", "-5.5", NULL);
    assert_int_equal(parse(&p, &c, &first, err, sizeof err), 2);
    assert_string_equal(err, "gpuplan: VALUE -5.5: below 0\n");
    done(&c);
    c = words("set", "A", "-z", NULL);
    assert_int_equal(parse(&p, &c, &first, err, sizeof err), 2);
    assert_string_equal(err, "gpuplan: set: unknown option or missing value: -z (see --help)\n");
    done(&c);
}

/* A second parse starts afresh, whatever the first left half read. */
static void parses_again(void **state) {
    (void)state;
    char err[512];
    int first;
    vals v = {0};
    TABLE(v);
    cmdline c = words("cmd", "-qs", "x", NULL);
    assert_int_equal(parse(&(cli_parser){.opts = opts}, &c, &first, err, sizeof err), 2);
    done(&c);
    vals w = {0};
    const cli_opt again[] = {{CLI_STR("str", &w.str), .letter = 's'}, {0}};
    c = words("cmd", "b", "-s", "y", NULL);
    assert_int_equal(parse(&(cli_parser){.opts = again}, &c, &first, err, sizeof err), 0);
    assert_string_equal(w.str, "y");
    assert_int_equal(first, 3);
    assert_string_equal(c.argv[first], "b");
    done(&c);
}

/* An entry given without the entry it needs: one line naming both, exit status 2, wherever
 * on the line either stands; the needed one alone, both, or --help instead, are fine. */
static void needs_its_partner(void **state) {
    (void)state;
    const char *url = NULL, *match = NULL;
    bool insecure = false, help = false;
    int n = 0;
    const cli_opt opts[] = {{CLI_STR("prometheus", &url)},
                            {CLI_STR("match", &match), .needs = "prometheus"},
                            {CLI_FLAG("insecure", &insecure), .needs = "prometheus"},
                            {CLI_HELP(&help)},
                            {0}};
    const cli_parser p = {.cmd = "capacity", .opts = opts};
    char err[512];
    int first;
    cmdline c = words("capacity", "--match", "{job=\"x\"}", NULL);
    assert_int_equal(parse(&p, &c, &first, err, sizeof err), 2);
    assert_string_equal(err, "gpuplan: capacity: --match needs --prometheus (see --help)\n");
    done(&c);
    /* the first in the table's order, whatever the order on the line */
    c = words("capacity", "--insecure", "--match", "m", NULL);
    assert_int_equal(parse(&p, &c, &first, err, sizeof err), 2);
    assert_string_equal(err, "gpuplan: capacity: --match needs --prometheus (see --help)\n");
    done(&c);
    /* without a command in the parser, the line names the options alone */
    c = words("x", "--insecure", NULL);
    assert_int_equal(parse(&(cli_parser){.opts = opts}, &c, &first, err, sizeof err), 2);
    assert_string_equal(err, "gpuplan: --insecure needs --prometheus (see --help)\n");
    done(&c);
    /* the needed one after, or alone */
    c = words("capacity", "--match", "m", "--insecure", "--prometheus=http://p", NULL);
    assert_int_equal(parse(&p, &c, &first, err, sizeof err), 0);
    assert_string_equal(err, "");
    assert_string_equal(url, "http://p");
    done(&c);
    url = NULL;
    c = words("capacity", "--prometheus", "http://p", NULL);
    assert_int_equal(parse(&p, &c, &first, err, sizeof err), 0);
    done(&c);
    /* --help wins: the reading stops before anything is held against it */
    c = words("capacity", "--match", "m", "--help", NULL);
    assert_int_equal(parse(&p, &c, &first, err, sizeof err), 0);
    assert_true(help);
    assert_string_equal(err, "");
    done(&c);
    /* an entry not given needs nothing; one whose partner the table lacks is refused */
    c = words("capacity", NULL);
    assert_int_equal(parse(&p, &c, &first, err, sizeof err), 0);
    done(&c);
    const char *list[1];
    const cli_opt lonely[] = {{CLI_LIST("node", list, &n, 1), .needs = "nowhere"}, {0}};
    c = words("capacity", "--node", "a", NULL);
    assert_int_equal(
        parse(&(cli_parser){.cmd = "capacity", .opts = lonely}, &c, &first, err, sizeof err), 2);
    assert_string_equal(err, "gpuplan: capacity: --node needs --nowhere (see --help)\n");
    done(&c);
}

/* A callback that counts its calls and keeps the last value: a side effect the test can see. */
typedef struct effects {
    int calls;
    const char *last;
} effects;

static int remember(const char *v, void *dest) {
    effects *e = dest;
    e->calls++;
    e->last = v;
    return 0;
}

static int refuse_no(const char *v, void *dest) {
    ++*(int *)dest;
    return strcmp(v, "no") ? 0 : CLI_OPT_BAD;
}

/* A line refused for a missing needed option, an unknown option, a missing value or a bad
 * value calls no callback and writes nothing, wherever on the line the fault stands: the
 * whole line is read before anything is taken. A callback's own refusal comes in the line's
 * order, after the callbacks before it. */
static void refused_lines_call_nothing(void **state) {
    (void)state;
    static const struct {
        const char *words[6];
        const char *line;
    } cases[] = {
        {{"--load", "a.json", "--match", "m"},
         "gpuplan: capacity: --match needs --prometheus (see --help)\n"},
        {{"--tick", "--load", "a.json", "--insecure"},
         "gpuplan: capacity: --insecure needs --prometheus (see --help)\n"},
        {{"--load", "a.json", "--tick", "--nope"},
         "gpuplan: capacity: unknown option or missing value: --nope (see --help)\n"},
        {{"--load", "a.json", "--top"},
         "gpuplan: capacity: unknown option or missing value: --top (see --help)\n"},
        {{"--load", "a.json", "--tick=1"}, "gpuplan: capacity: --tick takes no value (--tick=1)\n"},
        {{"--tick", "--load", "a.json", "--top", "0"},
         "gpuplan: capacity: --top: \"0\" is not a whole number from 1 to 9\n"},
        {{"--load", "a.json", "--prometheus", "http://p", "--top", "x"},
         "gpuplan: capacity: --top: \"x\" is not a whole number from 1 to 9\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        effects load = {0}, tick = {0};
        const char *url = NULL, *match = NULL;
        bool insecure = false;
        int top = 0, checks = 0;
        const cli_opt opts[] = {{CLI_CALL("load", &load, remember)},
                                {CLI_ACTION("tick", &tick, remember)},
                                {CLI_CALL("check", &checks, refuse_no)},
                                {CLI_STR("prometheus", &url)},
                                {CLI_STR("match", &match), .needs = "prometheus"},
                                {CLI_FLAG("insecure", &insecure), .needs = "prometheus"},
                                {CLI_INT("top", &top, 1, 9)},
                                {0}};
        cmdline c = {.argc = 1, .argv = {strdup("capacity")}};
        for (int w = 0; w < 6 && cases[i].words[w]; w++)
            c.argv[c.argc++] = strdup(cases[i].words[w]);
        char err[512];
        int first;
        assert_int_equal(
            parse(&(cli_parser){.cmd = "capacity", .opts = opts, .cmd_in_values = true}, &c, &first,
                  err, sizeof err),
            2);
        assert_string_equal(err, cases[i].line);
        assert_int_equal(load.calls, 0);
        assert_int_equal(tick.calls, 0);
        assert_null(url);
        assert_null(match);
        assert_false(insecure);
        assert_int_equal(top, 0);
        done(&c);
    }
    /* the good line calls each callback once, in the line's order; a callback that refuses
     * stops the taking there: those before it have run, those after it have not */
    effects load = {0};
    int checks = 0, top = 0;
    const cli_opt opts[] = {{CLI_CALL("load", &load, remember)},
                            {CLI_CALL("check", &checks, refuse_no)},
                            {CLI_INT("top", &top, 1, 9)},
                            {0}};
    char err[512];
    int first;
    cmdline c = words("cmd", "--load", "a", "--check", "yes", "--load", "b", "--top", "3", NULL);
    assert_int_equal(parse(&(cli_parser){.opts = opts}, &c, &first, err, sizeof err), 0);
    assert_int_equal(load.calls, 2);
    assert_string_equal(load.last, "b");
    assert_int_equal(checks, 1);
    assert_int_equal(top, 3);
    done(&c);
    load = (effects){0};
    checks = top = 0;
    c = words("cmd", "--load", "a", "--check", "no", "--top", "3", "--load", "b", NULL);
    assert_int_equal(parse(&(cli_parser){.opts = opts}, &c, &first, err, sizeof err), 2);
    assert_string_equal(err, "gpuplan: --check: bad value \"no\"\n");
    assert_int_equal(load.calls, 1);
    assert_string_equal(load.last, "a");
    assert_int_equal(checks, 1);
    assert_int_equal(top, 0);
    done(&c);
}

/* The shared --timeout of the Prometheus options: at most an hour, the connect timeout under
 * it. */
static void history_timeout(void **state) {
    (void)state;
    gp_history_opts h;
    gp_history_opts_init(&h);
    assert_int_equal(cli_opt_history_timeout("2s", &h), 0);
    assert_int_equal(h.total_timeout_ms, 2000);
    assert_true(h.connect_timeout_ms <= 2000);
    assert_int_equal(cli_opt_history_timeout("2h", &h), CLI_OPT_BAD);
    assert_int_equal(cli_opt_history_timeout("soon", &h), CLI_OPT_BAD);
    assert_int_equal(h.total_timeout_ms, 2000);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kind_read),
        cmocka_unit_test(letters_arguments_and_the_end),
        cmocka_unit_test(letters_in_one_word),
        cmocka_unit_test(in_order_stops_at_the_command),
        cmocka_unit_test(help_stops),
        cmocka_unit_test(bad_values_one_line),
        cmocka_unit_test(bad_value_without_the_command),
        cmocka_unit_test(list_full),
        cmocka_unit_test(callback_own_status),
        cmocka_unit_test(unknown_and_missing),
        cmocka_unit_test(unknown_hook),
        cmocka_unit_test(parses_again),
        cmocka_unit_test(history_timeout),
        cmocka_unit_test(needs_its_partner),
        cmocka_unit_test(refused_lines_call_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
