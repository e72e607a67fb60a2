/* The sweep summary as text, and the sweep's names (report_sweep.h). */
#include <stdio.h>

#include "gpuplan/report_sweep.h"

/* Append printf-style text unless an earlier append already failed. */
#define P(...) (st = st ? st : gp_buf_printf(out, __VA_ARGS__))

/* Characters of UTF-8 text, the columns a name takes in a terminal (one a character). */
static int chars(const char *t) {
    int n = 0;
    for (; *t; t++)
        n += ((unsigned char)*t & 0xC0) != 0x80;
    return n;
}

const char *gp_sweep_contender(const gp_scenario *s, int i) {
    return i < 0 ? "self_hosted" : s->options[i].name;
}

void gp_sweep_axis_label(char *out, size_t cap, const gp_scenario *s, const gp_sweep_axis *a) {
    if (gp_sweep_param_per_option(a->param))
        snprintf(out, cap, "%s:%s", gp_sweep_param_name(a->param), s->options[a->option].name);
    else
        snprintf(out, cap, "%s", gp_sweep_param_name(a->param));
}

gp_status gp_report_sweep_summary(const gp_scenario *s, const gp_sweep_axis *axes,
                                  const gp_sweep_summary *sum, gp_buf *out) {
    gp_status st = GP_OK;
    uint64_t points = sum->points;
    int n_axes = sum->n_axes;
    P("%llu grid point%s\n\nshare of the grid won:\n", (unsigned long long)points,
      points == 1 ? "" : "s");
    /* One column for the shares, however long the names (a catalog offer's run past 40). */
    int width = 40;
    for (int i = -1; i < s->n_options; i++) {
        int n = chars(gp_sweep_contender(s, i));
        width = n > width ? n : width;
    }
    for (int i = -1; i < s->n_options; i++) {
        uint64_t w = sum->wins[i + 1];
        const char *name = gp_sweep_contender(s, i);
        P("  %s%*s %6.2f%%  (%llu point%s)\n", name, width - chars(name), "",
          points ? 100.0 * (double)w / (double)points : 0.0, (unsigned long long)w,
          w == 1 ? "" : "s");
    }
    if (sum->ties) /* equal lowest totals are no side's win */
        P("  %s%*s %6.2f%%  (%llu point%s)\n", "a tie (equal lowest totals)",
          width - chars("a tie (equal lowest totals)"), "",
          points ? 100.0 * (double)sum->ties / (double)points : 0.0, (unsigned long long)sum->ties,
          sum->ties == 1 ? "" : "s");
    char label[GP_NAME_BYTES + 16];
    gp_sweep_axis_label(label, sizeof label, s, &axes[n_axes - 1]);
    if (sum->n_flips == 0) {
        P("\nthe answer never flips along %s\n", label);
        return st;
    }
    P("\nwhere the answer flips along %s (%llu flips%s):\n", label,
      (unsigned long long)sum->n_flips, sum->n_flips > GP_SWEEP_MAX_FLIPS ? ", the first 20" : "");
    for (uint64_t k = 0; k < sum->n_flips && k < GP_SWEEP_MAX_FLIPS; k++) {
        const gp_sweep_flip *f = &sum->flips[k];
        if (!f->tied)
            P("  %s -> %s between %s %.6g and %.6g", gp_sweep_contender(s, f->from),
              gp_sweep_contender(s, f->to), label, f->prev_last, f->values[n_axes - 1]);
        else if (f->tie_first == f->tie_last) /* neither side wins at the tie */
            P("  %s -> %s: a tie at %s %.6g", gp_sweep_contender(s, f->from),
              gp_sweep_contender(s, f->to), label, f->tie_first);
        else
            P("  %s -> %s: a tie from %s %.6g to %.6g", gp_sweep_contender(s, f->from),
              gp_sweep_contender(s, f->to), label, f->tie_first, f->tie_last);
        for (int a = 0; a + 1 < n_axes; a++) {
            char other[GP_NAME_BYTES + 16];
            gp_sweep_axis_label(other, sizeof other, s, &axes[a]);
            P("%s%s=%.6g", a == 0 ? " (at " : ", ", other, f->values[a]);
        }
        P("%s\n", n_axes > 1 ? ")" : "");
    }
    return st;
}
