/* Every command's --help against the option table it parses with (src/cli/cli_options.c), in
 * both directions: each entry of the table (but --help and the hidden ones) is named in the
 * help's usage lines, by its --name or its -letter, where the man page and the shell
 * completions read it; and every option the help names is an entry of a table that prints it.
 * The command lines are gpuplan's own: the commands of `gpuplan --help`, the subcommands each
 * help names ("gpuplan CMD SUB [SUB2]") and the modes an option selects (import --prometheus),
 * each run whole in process (main.c built as gpuplan_main), its stdout caught. The table in
 * which cli_parse met --help is seen from outside the parser: the test is linked with
 * --wrap=cli_parse (tests/meson.build), so every call of gpuplan's objects goes through
 * __wrap_cli_parse below, which runs the real parser and keeps the table whose help entry it
 * set. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dirent.h>

#include <cmocka.h>

#include "cli.h"

int gpuplan_main(int argc, char **argv);

#define MAX_RUNS 128
#define MAX_NAMES 64
#define MAX_CMDS 64

/* A table as the parse saw it: the entries' names point to string literals, which outlive it. */
typedef struct table {
    int n;
    cli_opt copy[4 * MAX_NAMES]; /* room for the union of a command's tables */
} table;

typedef struct run {
    char line[160]; /* the command line, for the messages */
    char *out;      /* its stdout */
    int rc;
    bool has_table;
    table t;
} run;

static run runs[MAX_RUNS];
static int n_runs;
static table *seen; /* where __wrap_cli_parse writes, NULL: nowhere */
static bool seen_any;
static const char *commands[MAX_CMDS];
static int n_commands;
static int failures;

int __real_cli_parse(const cli_parser *p, int argc, char **argv, int *first);
int __wrap_cli_parse(const cli_parser *p, int argc, char **argv, int *first);

/* Every cli_parse that gpuplan's objects call (the link's --wrap=cli_parse): the real one,
 * and when it set the bool of one of the table's help entries (--help, gpuplan's --version),
 * the table kept in *seen. */
int __wrap_cli_parse(const cli_parser *p, int argc, char **argv, int *first) {
    bool before[4 * MAX_NAMES] = {false};
    int n = 0;
    for (const cli_opt *o = p->opts; o->name && n < 4 * MAX_NAMES; o++, n++)
        before[n] = o->kind == CLI_OPT_HELP && *(bool *)o->dest;
    int rc = __real_cli_parse(p, argc, argv, first);
    bool help = false;
    for (int k = 0; k < n && !rc; k++)
        help |= p->opts[k].kind == CLI_OPT_HELP && !before[k] && *(bool *)p->opts[k].dest;
    if (!help || !seen)
        return rc;
    seen->n = 0;
    for (const cli_opt *o = p->opts; o->name && seen->n < MAX_NAMES; o++)
        seen->copy[seen->n++] = *o;
    seen_any = true;
    return rc;
}

__attribute__((format(printf, 1, 2))) static void finding(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    failures++;
}

/* gpuplan WORDS... as one command line; its stdout kept. Returns the run. */
static run *run_line(int n, const char *const *words) {
    assert_true(n_runs < MAX_RUNS);
    run *r = &runs[n_runs++];
    char *argv[16];
    argv[0] = strdup("gpuplan");
    size_t len = snprintf(r->line, sizeof r->line, "gpuplan");
    for (int i = 0; i < n && i < 14; i++) {
        argv[i + 1] = strdup(words[i]);
        len += snprintf(r->line + len, len < sizeof r->line ? sizeof r->line - len : 0, " %s",
                        words[i]);
    }
    argv[n + 1] = NULL;
    FILE *f = tmpfile();
    assert_non_null(f);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0 && dup2(fileno(f), STDOUT_FILENO) >= 0);
    seen = &r->t;
    seen_any = false;
    r->rc = gpuplan_main(n + 1, argv);
    fflush(stdout);
    seen = NULL;
    r->has_table = seen_any;
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    long size = ftell(f);
    rewind(f);
    r->out = calloc(1, size > 0 ? (size_t)size + 1 : 1);
    assert_non_null(r->out);
    if (size > 0)
        assert_int_equal(fread(r->out, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    for (int i = 0; i <= n && i < 15; i++)
        free(argv[i]);
    return r;
}

/* A gpuplan command's name, or another program's whose options a help quotes. */
static bool is_command(const char *w, size_t len) {
    static const char *const outside[] = {"nvidia-smi", "ipmitool"};
    for (size_t i = 0; i < sizeof outside / sizeof *outside; i++)
        if (strlen(outside[i]) == len && !strncmp(outside[i], w, len))
            return true;
    for (int i = 0; i < n_commands; i++)
        if (strlen(commands[i]) == len && !strncmp(commands[i], w, len))
            return true;
    return false;
}

static bool word_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/* Whether the option at s[i] belongs to another command, in prose: the words before it, over
 * other options and placeholders (LABEL, FILE), reach a command's name ("as capacity --by
 * LABEL --scenario does", "(collect --keep-raw)"). */
static bool cross_reference(const char *s, size_t i) {
    size_t end = i;
    for (;;) {
        while (end > 0 && strchr(" \n", s[end - 1]))
            end--;
        size_t start = end;
        while (start > 0 && !strchr(" \n", s[start - 1]))
            start--;
        if (start == end)
            return false;
        const char *w = s + start;
        size_t len = end - start;
        while (len && strchr("([`\"", *w))
            w++, len--;
        bool option = len && w[0] == '-';
        bool placeholder = len && w[0] >= 'A' && w[0] <= 'Z';
        for (size_t k = 0; placeholder && k < len; k++)
            placeholder = (w[k] >= 'A' && w[k] <= 'Z') || strchr("0-9_.|/", w[k]) || w[k] == '-';
        if (!option && !placeholder)
            return is_command(w, len);
        end = start;
    }
}

/* The options text s[0..len) names: "--name" anywhere, "-x" in usage lines only (prose quotes
 * other programs' letters); in prose, not those of other commands. Each is written with its
 * dashes into out[k], at most max; returns how many. */
static int options_in(const char *s, size_t len, bool usage, char out[][48], int max) {
    int n = 0;
    for (size_t i = 0; i + 1 < len && n < max; i++) {
        if (s[i] != '-' || (i > 0 && !strchr(" [(|\"`\n", s[i - 1])))
            continue;
        size_t j = i + 1 + (s[i + 1] == '-');
        if (j >= len || s[j] < 'a' || s[j] > 'z')
            continue;
        size_t k = j;
        while (k < len && word_char(s[k]))
            k++;
        bool lng = j == i + 2;
        if ((!lng && (k != j + 1 || !usage)) || (!usage && cross_reference(s, i)) || k - i >= 48)
            continue;
        memcpy(out[n], s + i, k - i);
        out[n++][k - i] = '\0';
        i = k;
    }
    return n;
}

/* Whether the option word ("--since", "-o") names an entry of t. */
static bool in_table(const table *t, const char *word) {
    for (int k = 0; k < t->n; k++) {
        const cli_opt *o = &t->copy[k];
        if (word[1] == '-' ? !strcmp(o->name, word + 2) : (o->letter && o->letter == word[1]))
            return true;
    }
    return false;
}

/* The usage lines: the first block, and the indented blocks right after it (as the man page's
 * synopsis takes them: gpuplan --help's "gpuplan [--db PATH] [--demo]"). */
static size_t usage_len(const char *help) {
    const char *blank = strstr(help, "\n\n");
    while (blank && blank[2] == ' ')
        blank = strstr(blank + 2, "\n\n");
    return blank ? (size_t)(blank - help) : strlen(help);
}

/* Table to help: every entry a person may give is in the usage lines; needs names an entry. */
static void check_table(const run *r) {
    char opts[256][48];
    int n = options_in(r->out, usage_len(r->out), true, opts, 256);
    for (int k = 0; k < r->t.n; k++) {
        const cli_opt *o = &r->t.copy[k];
        if (o->needs) {
            table self = r->t;
            char word[64];
            snprintf(word, sizeof word, "--%s", o->needs);
            if (!in_table(&self, word))
                finding("%s: --%s needs --%s, which its table lacks", r->line, o->name, o->needs);
        }
        if (o->hidden || o->kind == CLI_OPT_HELP)
            continue;
        bool named = false;
        for (int i = 0; i < n && !named; i++)
            named = opts[i][1] == '-' ? !strcmp(opts[i] + 2, o->name)
                                      : o->letter && opts[i][1] == o->letter;
        if (!named)
            finding("%s: --%s is in the table but not in the usage lines of its --help", r->line,
                    o->name);
    }
}

/* Whether run r is one of the command lines under prefix's ("gpuplan scenario draft --help"
 * under "gpuplan scenario --help"). */
static bool under(const run *r, const run *prefix) {
    size_t len = strlen(prefix->line) - strlen("--help");
    return !strncmp(r->line, prefix->line, len);
}

/* Help to table: every option a help names (usage lines, and its prose but for other
 * commands') is an entry of a table that prints this help, or of a command line under one
 * that does (a command's help lists its subcommands' options). */
static void check_help(const run *r) {
    table all = {0};
    for (int i = 0; i < n_runs; i++)
        for (int j = 0; j < n_runs; j++)
            if (runs[i].has_table && !strcmp(runs[j].out, r->out) && under(&runs[i], &runs[j]))
                for (int k = 0; k < runs[i].t.n; k++) {
                    char word[64];
                    snprintf(word, sizeof word, "--%s", runs[i].t.copy[k].name);
                    if (!in_table(&all, word)) {
                        assert_true(all.n < 4 * MAX_NAMES);
                        all.copy[all.n++] = runs[i].t.copy[k];
                    }
                }
    if (!all.n) {
        finding("%s: its help is printed by no option table", r->line);
        return;
    }
    char opts[256][48];
    size_t u = usage_len(r->out);
    int n = options_in(r->out, u, true, opts, 256);
    n += options_in(r->out + u, strlen(r->out + u), false, opts + n, 256 - n);
    for (int i = 0; i < n; i++)
        if (!in_table(&all, opts[i]))
            finding("%s: its --help names %s, which no table that prints it has", r->line, opts[i]);
}

/* The words W in "gpuplan PREFIX W" of text, each once, into out; returns how many. */
static int subcommands(const char *text, const char *prefix, char out[][32], int max) {
    char pat[96];
    int n = snprintf(pat, sizeof pat, "gpuplan %s ", prefix);
    int found = 0;
    for (const char *s = strstr(text, pat); s && found < max; s = strstr(s + 1, pat)) {
        const char *w = s + n;
        size_t len = 0;
        while (w[len] >= 'a' && w[len] <= 'z')
            len++;
        if (!len || len >= 32 || !strchr(" \n", w[len]))
            continue;
        bool dup = false;
        for (int i = 0; i < found && !dup; i++)
            dup = strlen(out[i]) == len && !strncmp(out[i], w, len);
        if (!dup) {
            memcpy(out[found], w, len);
            out[found++][len] = '\0';
        }
    }
    return found;
}

/* How many times text occurs in the C files of src/cli/. */
static int occurrences(const char *text) {
    const char *root = getenv("GP_SOURCE_ROOT");
    assert_non_null(root);
    char path[4096];
    snprintf(path, sizeof path, "%s/src/cli", root);
    DIR *d = opendir(path);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".c"))
            continue;
        snprintf(path, sizeof path, "%s/src/cli/%s", root, e->d_name);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char buf[1 << 16];
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        assert_true(got < sizeof buf - 1); /* the whole file */
        buf[got] = '\0';
        fclose(f);
        for (const char *s = strstr(buf, text); s; s = strstr(s + 1, text))
            n++;
    }
    closedir(d);
    return n;
}

/* Whether two tables hold the same entries, in the same order. */
static bool same_table(const table *a, const table *b) {
    if (a->n != b->n)
        return false;
    for (int k = 0; k < a->n; k++)
        if (strcmp(a->copy[k].name, b->copy[k].name))
            return false;
    return true;
}

/* Where the test's own parsing could be fooled: a help of three options and a table of two. */
static void test_the_checks_find_a_planted_gap(void **state) {
    (void)state;
    const char *words[] = {"--help"};
    run *r = run_line(1, words);
    assert_int_equal(r->rc, 0);
    assert_true(r->has_table);
    n_runs--;
    char *real = r->out;
    run planted = *r;
    planted.out = strdup("usage: gpuplan x [--db PATH] [--quiet] [--nonesuch]\n\nas capacity "
                         "--by LABEL --scenario does; --missing-too\n");
    planted.t.n = 0;
    planted.t.copy[planted.t.n++] = (cli_opt){CLI_STR("db", NULL)};
    planted.t.copy[planted.t.n++] = (cli_opt){CLI_FLAG("quiet", NULL)};
    planted.t.copy[planted.t.n++] = (cli_opt){CLI_FLAG("left-out", NULL)};
    planted.t.copy[planted.t.n++] = (cli_opt){CLI_FLAG("secret", NULL), .hidden = true};
    runs[n_runs++] = planted;
    commands[n_commands++] = "capacity";
    failures = 0;
    check_table(&planted);
    assert_int_equal(failures, 1); /* --left-out; --secret is hidden */
    failures = 0;
    check_help(&planted);
    assert_int_equal(failures,
                     2); /* --nonesuch and --missing-too; --by, --scenario are capacity's */
    failures = 0;
    n_runs--;
    n_commands--;
    free(planted.out);
    free(real);
}

static void test_every_help_matches_its_table(void **state) {
    (void)state;
    const char *top[] = {"--help"};
    run *main_help = run_line(1, top);
    const char *list = strstr(main_help->out, "\ncommands:\n");
    assert_non_null(list);
    for (const char *s = list + 11; *s == ' ' && n_commands < MAX_CMDS;) {
        while (*s == ' ')
            s++;
        size_t len = strcspn(s, " \n");
        commands[n_commands++] = strndup(s, len);
        s = strchr(s, '\n');
        s = s ? s + 1 : "";
    }
    assert_true(n_commands >= 10);
    for (int c = 0; c < n_commands; c++) {
        const char *cmd[] = {commands[c], "--help"};
        run *r = run_line(2, cmd);
        char subs[32][32];
        int n = subcommands(r->out, commands[c], subs, 32);
        for (int i = 0; i < n; i++) {
            const char *sub[] = {commands[c], subs[i], "--help"};
            run *rs = run_line(3, sub);
            char prefix[96], subs2[16][32];
            snprintf(prefix, sizeof prefix, "%s %s", commands[c], subs[i]);
            int n2 = subcommands(rs->out, prefix, subs2, 16);
            for (int k = 0; k < n2; k++) {
                const char *sub2[] = {commands[c], subs[i], subs2[k], "--help"};
                run_line(4, sub2);
            }
        }
    }
    /* The modes an option selects, each with a help of its own. */
    const char *history[] = {"import", "--prometheus", "http://127.0.0.1:1", "--help"};
    run_line(4, history);
    const char *measure[] = {"throughput", "import", "--prometheus", "http://127.0.0.1:1",
                             "--help"};
    run_line(5, measure);

    failures = 0;
    for (int i = 0; i < n_runs; i++) {
        run *r = &runs[i];
        if (r->rc != 0 || strncmp(r->out, "usage: ", 7))
            finding("%s: exit status %d, %s", r->line, r->rc,
                    r->out[0] ? "stdout not a usage" : "nothing on stdout");
        else if (r->has_table)
            check_table(r);
        bool first = true; /* each help text checked once */
        for (int k = 0; k < i && first; k++)
            first = strcmp(runs[k].out, r->out) != 0;
        if (first && r->rc == 0)
            check_help(r);
    }
    /* Every table was reached: one a CLI_HELP entry in the sources, but the one capacity's
     * options are built from, which is one table for each command that builds it. */
    int tables = 0;
    for (int i = 0; i < n_runs; i++) {
        bool first = runs[i].has_table;
        for (int k = 0; k < i && first; k++)
            first = !runs[k].has_table || !same_table(&runs[k].t, &runs[i].t);
        tables += first;
    }
    int expected = occurrences("CLI_HELP(") - 1 + occurrences("cli_capacity_options(CAP_");
    if (tables != expected)
        finding("%d option tables reached by --help, the sources hold %d: a command line is "
                "missing here",
                tables, expected);
    printf("%d command lines, %d option tables, their --help held against them\n", n_runs, tables);
    assert_int_equal(failures, 0);
    for (int i = 0; i < n_runs; i++)
        free(runs[i].out);
}

/* A home of its own: nothing here may touch the user's database. */
static char dir[] = "/tmp/gpuplan-help-XXXXXX";

static int setup(void **state) {
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    char db[sizeof dir + 16];
    snprintf(db, sizeof db, "%s/gp.db", dir);
    setenv("HOME", dir, 1);
    setenv("XDG_DATA_HOME", dir, 1);
    setenv("GPUPLAN_DB", db, 1);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    char db[sizeof dir + 16];
    snprintf(db, sizeof db, "%s/gp.db", dir);
    unlink(db);
    rmdir(dir);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_checks_find_a_planted_gap),
        cmocka_unit_test(test_every_help_matches_its_table),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
