/* The option table of every command (cli.h): one getopt_long loop, the values checked as they
 * are read, one line for each kind of bad input. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplan/clock.h"
#include "gpuplan/xmem.h"

/* getopt_long's val for entry i: above every character, so a short letter never collides. */
#define LONG_VAL 256
#define MAX_OPTS 64

/* The entry's bad line with "%s" standing for the value, after "--name: ". */
static int say_bad(const cli_parser *p, const cli_opt *o, const char *value, const char *bad) {
    char line[512];
    value = value ? value : "";
    size_t n = 0;
    for (const char *s = bad; *s && n + 1 < sizeof line; s++) {
        if (s[0] == '%' && s[1] == 's') {
            n += (size_t)snprintf(line + n, sizeof line - n, "%s", value);
            n = n < sizeof line ? n : sizeof line - 1;
            s++;
        } else {
            line[n++] = *s;
        }
    }
    line[n] = '\0';
    if (p->cmd && p->cmd_in_values)
        return cli_usage_error("%s: --%s: %s", p->cmd, o->name, line);
    return cli_usage_error("--%s: %s", o->name, line);
}

/* The words of a kind's bad line when the entry gives none, in buf where they carry the
 * range. */
static const char *default_bad(const cli_opt *o, char *buf, size_t cap) {
    const char *what = o->kind == CLI_OPT_INT ? "a whole number" : "a number";
    switch (o->kind) {
    case CLI_OPT_INT:
    case CLI_OPT_DOUBLE:
        if (!(o->min < o->max))
            snprintf(buf, cap, "\"%%s\" is not %s", what);
        else if (isinf(o->max))
            snprintf(buf, cap, "\"%%s\" is not %s, %.15g or more", what, o->min);
        else
            snprintf(buf, cap, "\"%%s\" is not %s from %.15g to %.15g", what, o->min, o->max);
        return buf;
    case CLI_OPT_DURATION:
        return "\"%s\" is not a duration like 30s, 5m, 12h or 7d";
    case CLI_OPT_DATE:
        return "\"%s\" is not a date YYYY-MM-DD";
    case CLI_OPT_ENUM:
        return "\"%s\" is not one of the choices (see --help)";
    case CLI_OPT_LIST:
        return "given too many times";
    default:
        return "bad value \"%s\"";
    }
}

static bool in_range(const cli_opt *o, double v) {
    return !(o->min < o->max) || (v >= o->min && v <= o->max);
}

/* Whether v is a value o takes, written to o->dest when store; listed: the values of a LIST
 * entry read before this one and not yet stored. A CALL or ACTION value is its callback's to
 * judge, when it is called: true here. */
static bool convert(const cli_opt *o, const char *v, bool store, int listed) {
    switch (o->kind) {
    case CLI_OPT_FLAG:
    case CLI_OPT_HELP:
        if (store)
            *(bool *)o->dest = true;
        return true;
    case CLI_OPT_STRING:
        if (store)
            *(const char **)o->dest = v;
        return true;
    case CLI_OPT_INT: {
        int n;
        if (!gp_parse_int(v, &n) || !in_range(o, n))
            return false;
        if (store)
            *(int *)o->dest = n;
        return true;
    }
    case CLI_OPT_DOUBLE: {
        double x;
        if (!gp_parse_double(v, &x) || !in_range(o, x))
            return false;
        if (store)
            *(double *)o->dest = x;
        return true;
    }
    case CLI_OPT_DURATION: {
        int64_t ms;
        if (!cli_duration_ms(v, &ms) || (o->max > 0 && ms > o->max))
            return false;
        if (store)
            *(int64_t *)o->dest = ms;
        return true;
    }
    case CLI_OPT_DATE:
        if (!gp_valid_date(v))
            return false;
        if (store)
            snprintf(o->dest, 11, "%s", v);
        return true;
    case CLI_OPT_ENUM: {
        int k = 0;
        while (o->choices[k] && strcmp(o->choices[k], v))
            k++;
        if (!o->choices[k])
            return false;
        if (store)
            *(int *)o->dest = k;
        return true;
    }
    case CLI_OPT_LIST:
        if (*o->count + listed >= (int)o->max)
            return false;
        if (store)
            ((const char **)o->dest)[(*o->count)++] = v;
        return true;
    case CLI_OPT_CALL:
    case CLI_OPT_ACTION:
        return true;
    }
    return false;
}

/* The bad line of o for v: the entry's words, or its kind's. Returns the exit status, 2. */
static int refuse(const cli_parser *p, const cli_opt *o, const char *v) {
    char words[128];
    return say_bad(p, o, v, o->bad ? o->bad : default_bad(o, words, sizeof words));
}

/* One option's value into its destination, its callback called: 0, or the exit status of a
 * value the callback refuses (the others were checked by convert as the line was read). */
static int take(const cli_parser *p, const cli_opt *o, const char *v) {
    if (o->kind == CLI_OPT_CALL || o->kind == CLI_OPT_ACTION) {
        int rc = o->call(v, o->dest);
        if (rc > 0)
            return rc;
        if (rc)
            return refuse(p, o, v);
    } else if (!convert(o, v, true, 0)) {
        return refuse(p, o, v);
    }
    if (o->given)
        *o->given = true;
    return 0;
}

/* The word on the command line that getopt_long just refused. A long option's is behind
 * optind; a letter's too when it ended its word ("-x"), else getopt is still on the word ("-xo"
 * refusing x). */
static const char *unknown_word(int argc, char **argv) {
    const char *prev = optind > 1 ? argv[optind - 1] : "";
    if (optopt <= 0 || optopt >= LONG_VAL)
        return prev;
    size_t len = strlen(prev);
    if (prev[0] == '-' && len > 1 && prev[len - 1] == optopt)
        return prev;
    return optind < argc ? argv[optind] : prev;
}

/* The entry a refused "--name=value" names when name takes no value (a flag): getopt_long
 * refuses it as an unknown option, which would mislead. NULL for any other word. */
static const cli_opt *flag_with_value(const cli_parser *p, const char *word) {
    const char *eq = strchr(word, '=');
    if (word[0] != '-' || word[1] != '-' || !eq)
        return NULL;
    size_t len = (size_t)(eq - word - 2);
    for (const cli_opt *o = p->opts; o->name; o++)
        if ((o->kind == CLI_OPT_FLAG || o->kind == CLI_OPT_HELP || o->kind == CLI_OPT_ACTION) &&
            strlen(o->name) == len && !strncmp(o->name, word + 2, len))
            return o;
    return NULL;
}

/* The entry named name in p's table; NULL when there is none. */
static const cli_opt *entry_named(const cli_parser *p, const char *name) {
    for (const cli_opt *o = p->opts; o->name; o++)
        if (!strcmp(o->name, name))
            return o;
    return NULL;
}

/* The line as read, in its order: each option met and its value, for the second pass. */
typedef struct occurrence {
    const cli_opt *o;
    const char *value; /* points into argv; NULL for an option without one */
} occurrence;

/* The line for a word getopt_long refused: the caller's own, a flag given a value, or an
 * unknown option (or one without its value). Returns the exit status. */
static int refuse_word(const cli_parser *p, const char *word) {
    int rc = p->unknown ? p->unknown(word) : 0;
    if (rc)
        return rc;
    const cli_opt *flag = flag_with_value(p, word);
    if (flag && p->cmd)
        return cli_usage_error("%s: --%s takes no value (%s)", p->cmd, flag->name, word);
    if (flag)
        return cli_usage_error("--%s takes no value (%s)", flag->name, word);
    if (p->cmd)
        return cli_usage_error("%s: unknown option or missing value: %s (see --help)", p->cmd,
                               word);
    return cli_usage_error("unknown option or missing value: %s (see --help)", word);
}

/* Each option given without the one it needs, in the table's order: the first one found's
 * line, or 0. */
static int check_needs(const cli_parser *p, size_t n, const bool *given) {
    for (size_t k = 0; k < n; k++) {
        const cli_opt *o = &p->opts[k], *need = o->needs ? entry_named(p, o->needs) : NULL;
        if (!given[k] || !o->needs || (need && given[need - p->opts]))
            continue;
        if (p->cmd)
            return cli_usage_error("%s: --%s needs --%s (see --help)", p->cmd, o->name, o->needs);
        return cli_usage_error("--%s needs --%s (see --help)", o->name, o->needs);
    }
    return 0;
}

int cli_parse(const cli_parser *p, int argc, char **argv, int *first) {
    struct option longs[MAX_OPTS + 1];
    bool given[MAX_OPTS] = {false};
    int listed[MAX_OPTS] = {0};
    char shorts[2 * MAX_OPTS + 4] = "";
    size_t n = 0, ns = 0;
    *first = argc;
    if (p->in_order)
        shorts[ns++] = '+';
    shorts[ns++] = ':'; /* a missing value apart from an unknown option: both one line, ours */
    for (; p->opts[n].name; n++) {
        const cli_opt *o = &p->opts[n];
        if (n == MAX_OPTS) /* a table grown past this file's arrays: say so, read nothing */
            return cli_usage_error("an option table holds more than %d options", MAX_OPTS);
        bool value =
            o->kind != CLI_OPT_FLAG && o->kind != CLI_OPT_HELP && o->kind != CLI_OPT_ACTION;
        longs[n] = (struct option){o->name, value ? required_argument : no_argument, NULL,
                                   LONG_VAL + (int)n};
        if (o->letter) {
            shorts[ns++] = o->letter;
            if (value)
                shorts[ns++] = ':';
        }
    }
    longs[n] = (struct option){NULL, 0, NULL, 0};
    shorts[ns] = '\0';
    /* Two passes, so that a line refused runs no callback (one may open a database or print):
     * the first reads the whole line and judges all but the callbacks' values, writing
     * nothing; the second takes the values and calls the callbacks, in the line's order. */
    occurrence *line = NULL; /* as many as the line holds: "-fff" is three in one word */
    size_t n_line = 0, cap = 0;
    int rc = 0;
    optind = 0; /* a fresh start, whatever an earlier parse left half read */
    opterr = 0;
    for (;;) {
        int opt = getopt_long(argc, argv, shorts, longs, NULL);
        if (opt == -1)
            break;
        const cli_opt *o = NULL;
        if (opt >= LONG_VAL && opt < LONG_VAL + (int)n)
            o = &p->opts[opt - LONG_VAL];
        for (size_t k = 0; !o && opt != '?' && opt != ':' && k < n; k++)
            if (p->opts[k].letter == opt)
                o = &p->opts[k];
        if (!o) {
            rc = refuse_word(p, unknown_word(argc, argv));
            goto out;
        }
        if (o->kind == CLI_OPT_HELP) { /* the command prints help: nothing else is taken */
            *first = optind;
            rc = take(p, o, NULL);
            goto out;
        }
        size_t k = (size_t)(o - p->opts);
        if (!convert(o, optarg, false, listed[k])) {
            rc = refuse(p, o, optarg);
            goto out;
        }
        listed[k] += o->kind == CLI_OPT_LIST;
        given[k] = true;
        line = gp_xgrow(line, &cap, n_line, sizeof *line, 16);
        line[n_line++] = (occurrence){o, optarg};
    }
    *first = optind;
    rc = check_needs(p, n, given);
    for (size_t i = 0; !rc && i < n_line; i++)
        rc = take(p, line[i].o, line[i].value);
out:
    free(line);
    return rc;
}

int cli_opt_history_timeout(const char *value, void *history_opts) {
    gp_history_opts *h = history_opts;
    int64_t ms;
    if (!cli_duration_ms(value, &ms) || ms > GP_HOUR_MS)
        return CLI_OPT_BAD;
    h->total_timeout_ms = (long)ms;
    if (h->connect_timeout_ms > h->total_timeout_ms)
        h->connect_timeout_ms = h->total_timeout_ms;
    return 0;
}
