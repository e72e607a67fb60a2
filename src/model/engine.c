/* The month-by-month engine of docs/model.md version 2: demand by month, owned servers in batches,
 * running costs, the bridge, cloud options with terms and bursts, and the results. Every
 * formula of the model is written once, here or (inline, those a sweep runs at every point) in
 * engine_int.h: the steady state's totals (engine_steady.c) and the totals kept between a
 * sweep's points (engine_totals below) call the same functions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_int.h"
#include "gpuplan/engine.h"
#include "gpuplan/xmem.h"

#define HOURS GP_MONTH_HOURS
#define MAX_GPUS 10000000.0

/* ---- the rules every count and comparison follows ------------------------------------ */

/* ceil+ of docs/model.md: floating-point noise of relative 1e-9 never adds a GPU. */
static double ceil_plus(double v) {
    return ceil_pos(v - 1e-9 * max2(1.0, v));
}

void eng_fill_order(const gp_scenario *s, int *order) {
    /* Ascending price, ties in the order given: a stable insertion sort over <= 24 items. */
    for (int i = 0; i < s->n_periods; i++) {
        int j = i;
        while (j > 0 && s->periods[order[j - 1]].price_per_kwh > s->periods[i].price_per_kwh) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}

bool gp_money_equal(double a, double b) {
    return fabs(a - b) <= 1e-9 * max2(1.0, max2(fabs(a), fabs(b)));
}

static bool ties_equal(double a, double b) {
    return gp_money_equal(a, b);
}

static bool at_most(double a, double b) {
    return a < b || ties_equal(a, b);
}

/* (1 + rate)^(months / 12), by pow() as docs/model.md asks; 1 without a trend. A committed term's
 * locked price; trends by month come from trend_table. */
static double trend(double rate, double months) {
    return rate == 0.0 ? 1.0 : pow(1.0 + rate, months / 12.0);
}

/* The longest table of powers: a batch's value looks up to M + lead time months ahead. */
#define TREND_MAX (2 * GP_MAX_MONTHS + 64)

/* out[n] = base^(n * step) for n = 0..count-1 (count <= TREND_MAX), each the product of two pow()
 * values (whole dozens of steps, then the rest): 12 + count/12 calls instead of count, and no
 * running product, so no error accumulates along the horizon. */
static void powers(double base, double step, int count, double *out) {
    double rest[12], dozens[TREND_MAX / 12 + 1];
    rest[0] = dozens[0] = 1.0; /* pow(base, 0) */
    for (int k = 1; k < 12 && k < count; k++)
        rest[k] = pow(base, k * step);
    for (int y = 1; y * 12 < count; y++)
        dozens[y] = pow(base, 12.0 * y * step);
    for (int y = 0; y * 12 < count; y++)
        for (int k = 0; k < 12 && y * 12 + k < count; k++)
            out[y * 12 + k] = dozens[y] * rest[k];
}

/* ---- demand by month ------------------------------------------------------------------ */

/* Demand indexed by month j = 1..M (slot 0 unused). */
typedef struct demand {
    int m;
    bool work;
    double n[GP_MAX_MONTHS + 1]; /* N_j, GPU mode */
    double u[GP_MAX_MONTHS + 1];
    double w[GP_MAX_MONTHS + 1]; /* W_j */
} demand;

static void demand_build(const gp_scenario *s, demand *d) {
    d->m = s->horizon_months;
    d->work = s->work_mode;
    double n = s->gpus, w = s->work_per_month, u = s->utilization;
    double grow[GP_MAX_MONTHS];
    bool grows = s->n_steps == 0 && s->growth_per_month != 0.0;
    if (grows)
        powers(1.0 + s->growth_per_month, 1.0, d->m, grow);
    int k = 0;
    for (int j = 1; j <= d->m; j++) {
        for (; k < s->n_steps && s->steps[k].month <= j; k++) {
            const gp_step *st = &s->steps[k];
            if (st->has_gpus)
                n = st->gpus;
            if (st->has_work)
                w = st->work_per_month;
            if (st->has_utilization)
                u = st->utilization;
        }
        double g = grows ? grow[j - 1] : 1.0;
        d->u[j] = u;
        if (d->work) {
            d->n[j] = 0.0;
            d->w[j] = w * g;
        } else {
            d->n[j] = s->n_steps > 0 ? n : ceil_plus(n * g);
            d->w[j] = d->n[j] * HOURS * u;
        }
    }
}

/* demand_build for GPU mode with growth and no steps, without its 17 pow() calls when it can:
 * N_j = ceil+(N * g_j) is an integer, so a running product (within 1e-12 of the powers()
 * value, relative, over 240 months) decides it unless N * g_j lies that close to where ceil+
 * steps; only then is g_j computed as powers() does. The same N_j, bit for bit. */
static bool growth_only(const gp_scenario *s) {
    return !s->work_mode && s->n_steps == 0 && s->growth_per_month > -1.0 &&
           s->growth_per_month < 1.0;
}

/* N_j = c stays while the running product is within (lo, hi]: ceil+(N * g) = c for every
 * N * g in ((c - 1) / (1 - 1e-9), c / (1 - 1e-9)] once N * g >= 1, narrowed by 4e-12 for the
 * running product's error and this arithmetic's; NaN (never within) below 2 GPUs. */
static void growth_bounds(double c, double n, double *lo, double *hi) {
    if (!(c >= 2.0 && n > 0.0)) {
        *lo = *hi = NAN;
        return;
    }
    *lo = (c - 1.0) / (1.0 - 1e-9) * (1.0 + 4e-12) / n;
    *hi = c / (1.0 - 1e-9) * (1.0 - 4e-12) / n;
}

/* demand_build for GPU mode with growth and no steps (growth_only). With keep, d holds the
 * demand of the same shape (M, u) and lo/hi its months' bounds (growth_bounds): months whose
 * N_j stays are skipped, those that move are rewritten and listed in moved. Returns how many
 * moved (M without keep). */
static int demand_growth_fast(const gp_scenario *s, demand *d, bool keep, double *lo, double *hi,
                              int *moved) {
    double base = 1.0 + s->growth_per_month, n = s->gpus, u = s->utilization, run = 1.0;
    int count = 0;
    d->m = s->horizon_months;
    d->work = false;
    for (int j = 1; j <= d->m; j++, run *= base) {
        if (keep && run > lo[j] && run <= hi[j])
            continue; /* ceil+ gives the N_j held */
        double v = n * run, slack = 1e-12 * max2(1.0, v);
        double t = v - 1e-9 * max2(1.0, v);
        double c = ceil_pos(t);
        if (c - t < slack || t - (c - 1.0) <= slack) { /* ceil+ steps within the slack */
            int k = j - 1;
            double g = pow(base, 12.0 * (k / 12) * 1.0) * pow(base, (k % 12) * 1.0);
            c = ceil_plus(n * g);
        }
        growth_bounds(c, n, &lo[j], &hi[j]);
        if (keep && memcmp(&c, &d->n[j], sizeof c) == 0)
            continue;
        if (moved)
            moved[count] = j;
        count++;
        d->u[j] = u;
        d->n[j] = c;
        d->w[j] = c * HOURS * u;
    }
    return count;
}

/* Demand with every u_j replaced by ubar (GPU mode): N_j held, W_j = N_j * 730 * ubar. */
static void demand_at(const demand *base, double ubar, demand *d) {
    d->m = base->m;
    d->work = false;
    for (int j = 1; j <= d->m; j++) {
        d->n[j] = base->n[j];
        d->u[j] = ubar;
        d->w[j] = base->n[j] * HOURS * ubar;
    }
}

/* A side's busy GPU-hours Q^X_j and GPUs N^X_j at throughput rho (GPU mode: W_j and N_j). */
static double side_q(const demand *d, int j, double rho) {
    return d->work ? d->w[j] / rho : d->w[j];
}

static double side_n(const demand *d, int j, double rho) {
    if (!d->work)
        return d->n[j];
    if (d->w[j] == 0.0)
        return 0.0;
    return ceil_plus(d->w[j] / rho / (HOURS * d->u[j]));
}

/* Rented busy GPU-hours for the part of Q a side's own capacity (q) does not do; 0 within the
 * slack ceil+ allows. */
static double rented_hours(double q_need, double q_done, double u, double rho_side,
                           double rho_rented) {
    double rest = q_need - q_done;
    if (rest <= 1e-9 * max2(q_need, HOURS * u))
        return 0.0;
    return rest * rho_side / rho_rented;
}

static double rho_of_self(const gp_scenario *s) {
    return s->work_mode ? s->work_per_gpu_hour : 1.0;
}

static double rho_of(const gp_scenario *s, const gp_option *o) {
    return s->work_mode ? o->work_per_gpu_hour : 1.0;
}

/* ---- cloud pieces --------------------------------------------------------------------- */

/* (1 + rate)^(n / 12) for n = 0..count-1 into out, by powers(); 1 without a trend. */
static void trend_table(double rate, int count, double *out) {
    if (rate == 0.0) {
        for (int n = 0; n < count; n++)
            out[n] = 1.0;
    } else {
        powers(1.0 + rate, 1.0 / 12.0, count, out);
    }
}

/* ---- owned servers -------------------------------------------------------------------- */

/* The self-hosted plan: batches, servers in service and GPUs at work by month. */
typedef struct plan {
    int m;
    int n_batches;
    gp_batch *b; /* caller storage, GP_MAX_BATCHES */
    int in_service[GP_MAX_MONTHS + 2];
    double at_work[GP_MAX_MONTHS + 1];      /* G_j */
    double energy_trend[GP_MAX_MONTHS + 1]; /* (1 + tau_e)^((j - 1) / 12), index j */
    double bridge_trend[GP_MAX_MONTHS + 1]; /* the bridge's (1 + tau_o)^((j - 1) / 12) */
} plan;

static int exit_index(const gp_scenario *s, int d) {
    int m = s->horizon_months, p = s->refresh_months, k = s->order_every_months;
    if (p <= 0)
        return m;
    int x = d + (p + k - 1) / k * k;
    return x < m ? x : m;
}

static void energy_trend_build(const gp_scenario *s, plan *pl) {
    pl->energy_trend[0] = 1.0;
    trend_table(s->energy_price_trend_per_year, s->horizon_months, pl->energy_trend + 1);
}

static void bridge_trend_build(const gp_scenario *s, plan *pl) {
    pl->bridge_trend[0] = 1.0;
    trend_table(s->bridge >= 0 ? s->options[s->bridge].price_trend_per_year : 0.0,
                s->horizon_months, pl->bridge_trend + 1);
}

/* s_j: the servers a month wants for n GPUs, under max_servers. */
int eng_servers_wanted(const gp_scenario *s, double n) {
    int sj = (int)ceil_pos(n / s->gpus_per_server);
    if (s->has_max_servers && sj > s->max_servers)
        sj = s->max_servers;
    return sj;
}

static void plan_build(const gp_scenario *s, const demand *dm, gp_batch *batches, plan *pl) {
    int m = s->horizon_months, g = s->gpus_per_server, lead = s->lead_time_months;
    int kappa = s->order_every_months;
    double rho = rho_of_self(s);
    int want[GP_MAX_MONTHS + 1];
    for (int j = 1; j <= m; j++)
        want[j] = eng_servers_wanted(s, side_n(dm, j, rho));
    /* The largest s_j from month j on, for all_at_once. */
    int from_on[GP_MAX_MONTHS + 2];
    from_on[m + 1] = 0;
    for (int j = m; j >= 1; j--)
        from_on[j] = want[j] > from_on[j + 1] ? want[j] : from_on[j + 1];
    pl->m = m;
    pl->b = batches;
    pl->n_batches = 0;
    energy_trend_build(s, pl);
    int live = 0;      /* servers in service after the last delivery */
    int next_sale = 0; /* exits are non-decreasing in purchase order */
    for (int d = lead; d < m; d += kappa) {
        int next = d + kappa < m ? d + kappa : m;
        int c = 0;
        if (s->buy == GP_BUY_AS_NEEDED) {
            for (int j = d + 1; j <= next; j++)
                c = want[j] > c ? want[j] : c;
        } else {
            c = from_on[d + 1];
        }
        int first_sold = next_sale;
        while (next_sale < pl->n_batches && batches[next_sale].exit == d)
            live -= batches[next_sale++].servers;
        int first_new = pl->n_batches;
        for (int i = first_sold; i < next_sale; i++) {
            int r = c - live;
            r = r < 0 ? 0 : r > batches[i].servers ? batches[i].servers : r;
            batches[i].passed_on = r;
            if (r > 0) {
                gp_batch *nb = &batches[pl->n_batches++];
                memset(nb, 0, sizeof *nb);
                nb->servers = r;
                nb->index = d;
                nb->refresh = true;
                nb->replaces = i;
                nb->network_index = batches[i].network_index;
                live += r;
            }
        }
        if (live < c) {
            gp_batch *nb = &batches[pl->n_batches++];
            memset(nb, 0, sizeof *nb);
            nb->servers = c - live;
            nb->index = d;
            nb->replaces = -1;
            nb->network_index = d;
            live = c;
        }
        for (int i = first_new; i < pl->n_batches; i++)
            batches[i].exit = exit_index(s, d);
    }
    int diff[GP_MAX_MONTHS + 2] = {0};
    for (int i = 0; i < pl->n_batches; i++) {
        diff[batches[i].index + 1] += batches[i].servers;
        diff[batches[i].exit + 1] -= batches[i].servers;
    }
    int run = 0;
    for (int j = 1; j <= m; j++) {
        run += diff[j];
        pl->in_service[j] = run;
        double owned = (double)run * g, need = side_n(dm, j, rho);
        pl->at_work[j] = need < owned ? need : owned;
    }
}

/* The first month in which a side is past 10,000,000 GPUs, else 0. */
static int first_month_too_many(const demand *dm, double rho) {
    for (int j = 1; j <= dm->m; j++) {
        if (side_n(dm, j, rho) > MAX_GPUS)
            return j;
    }
    return 0;
}

/* Owned busy GPU-hours and the bridge's busy GPU-hours in month j. */
static void self_busy(const gp_scenario *s, const demand *dm, const plan *pl, int j, double *q,
                      double *z) {
    double rho = rho_of_self(s);
    double need = side_q(dm, j, rho), cap = pl->at_work[j] * HOURS * dm->u[j];
    *q = need < cap ? need : cap;
    double rho_b = s->bridge >= 0 ? rho_of(s, &s->options[s->bridge]) : rho;
    *z = rented_hours(need, *q, dm->u[j], rho, rho_b);
}

static gp_status check_bridge(const gp_scenario *s, const demand *dm, const plan *pl, gp_err *err) {
    if (s->bridge >= 0)
        return GP_OK;
    for (int j = 1; j <= dm->m; j++) {
        double q, z;
        self_busy(s, dm, pl, j, &q, &z);
        if (z > 0.0)
            return gp_errorf(err, GP_E_INPUT, "$.self_hosted.bridge",
                             "month %d needs %.6g busy GPU-hours that owned servers cannot do "
                             "(lead time or max_servers) and there is no bridge",
                             j, z);
    }
    return GP_OK;
}

/* ---- resale value --------------------------------------------------------------------- */

double eng_bulk_discount(const gp_scenario *s, int servers) {
    int best = 0;
    double pct = 0.0;
    for (int i = 0; i < s->n_tiers; i++) {
        if (s->tiers[i].min_servers <= servers && s->tiers[i].min_servers > best) {
            best = s->tiers[i].min_servers;
            pct = s->tiers[i].pct;
        }
    }
    return pct;
}

/* What price_batches reads of the batches' shapes and not of prices, three per batch: the
 * resale shares at its exit for its servers and for its network, its order's bulk discount. */
static void batch_shares(const gp_scenario *s, const plan *pl, double *pct) {
    for (int i = 0; i < pl->n_batches;) {
        int d = pl->b[i].index, end = i, n = 0;
        while (end < pl->n_batches && pl->b[end].index == d)
            n += pl->b[end++].servers;
        double beta = eng_bulk_discount(s, n);
        for (; i < end; i++) {
            const gp_batch *b = &pl->b[i];
            pct[3 * i] = eng_pct_at(s, b->exit - b->index);
            pct[3 * i + 1] = eng_pct_at(s, b->exit - b->network_index);
            pct[3 * i + 2] = beta;
        }
    }
}

/* Prices, capex and exit values of every batch; pct: batch_shares of these batches (kept with
 * their shapes), or NULL to compute them here. */
static void price_batches(const gp_scenario *s, plan *pl, const double *pct) {
    int lead = s->lead_time_months;
    double net = s->network_per_server;
    /* (1 + tau_h)^(n / 12) for n = 0..M + lead: every exponent below is in that range. */
    double tr[TREND_MAX];
    int count = s->horizon_months + lead + 1;
    trend_table(s->server_price_trend_per_year, count, tr);
    for (int i = 0; i < pl->n_batches;) {
        int d = pl->b[i].index, end = i, n = 0;
        while (end < pl->n_batches && pl->b[end].index == d)
            n += pl->b[end++].servers;
        double beta = pct ? pct[3 * i + 2] : eng_bulk_discount(s, n);
        double unit = s->server_price * s->price_factor * tr[d - lead];
        for (; i < end; i++) {
            gp_batch *b = &pl->b[i];
            b->unit_price = unit;
            b->bulk_pct = beta;
            b->hardware_capex = eng_hardware_capex(b->servers, unit, beta, b->refresh ? 0.0 : net);
            b->capex = b->hardware_capex + (i == 0 ? s->fixed_capex : 0.0);
            int x = b->exit, t = x - d, k = x < s->horizon_months ? b->passed_on : 0;
            double pct_t = pct ? pct[3 * i] : eng_pct_at(s, t);
            double pct_n = pct ? pct[3 * i + 1] : eng_pct_at(s, x - b->network_index);
            b->value =
                eng_batch_value(pct_t * b->servers * unit * (1.0 - beta), tr[t + lead],
                                pct_n * (b->servers - k) * net, tr[x - b->network_index + lead]);
        }
    }
}

/* ---- self-hosted running costs -------------------------------------------------------- */

typedef struct running {
    eng_power p;
    double bridge_hours, bridge_cost;
} running;

static void self_month(const gp_scenario *s, const int *order, const demand *dm, const plan *pl,
                       int j, running *r) {
    double at_work = pl->at_work[j];
    double q, z;
    self_busy(s, dm, pl, j, &q, &z);
    eng_self_power(s, order, at_work, ceil_pos(at_work / s->gpus_per_server), pl->in_service[j], q,
                   dm->u[j], pl->energy_trend[j], &r->p);
    r->bridge_hours = z;
    r->bridge_cost = 0.0;
    if (z > 0.0) {
        const gp_option *br = &s->options[s->bridge];
        r->bridge_cost =
            eng_pay_per_use_cost(br, eng_pay_per_use_slope(br, z, pl->bridge_trend[j]));
    }
}

/* ---- a cloud option's flows ----------------------------------------------------------- */

typedef struct option_flows {
    double total;
    double slope;     /* d total / d hourly */
    double burst;     /* the burst's costs */
    int burst_months; /* months with Z^o_j > 0 */
    int needs_burst;  /* first month with Z^o_j > 0 and no burst, else 0 */
    int instances;    /* R of the first term; 0 for pay-per-use */
    double first_month_instance_hours;
} option_flows;

/* A committed option's instances in the term from start (R). */
static double term_instances(const demand *dm, const gp_option *o, double rho, int start) {
    int end = start + o->term_months < dm->m ? start + o->term_months : dm->m;
    double inst = 0.0;
    for (int j = start + 1; j <= end; j++) {
        double need = eng_instances(side_n(dm, j, rho), o->gpus_per_instance);
        inst = need > inst ? need : inst;
    }
    return inst;
}

/* F (nullable) gets F[0..M]; z (nullable) the burst's hours by month (index j - 1); tr
 * (nullable: computed here) a pay-per-use option's price trend by month j (trend_table of its
 * trend, index j). */
static void option_eval(const gp_scenario *s, const demand *dm, const gp_option *o, double *f,
                        double *z_out, option_flows *r, const double *tr) {
    int m = dm->m;
    double rho = rho_of(s, o), extras = eng_extras(o);
    double flow[GP_MAX_MONTHS + 1], own[GP_MAX_MONTHS + 1];
    memset(r, 0, sizeof *r);
    memset(flow, 0, sizeof(double) * (size_t)(m + 1));
    if (o->pricing != GP_COMMITTED) {
        if (!tr) {
            own[0] = 1.0;
            trend_table(o->price_trend_per_year, m, own + 1);
            tr = own;
        }
        for (int j = 1; j <= m; j++) {
            double sl = eng_pay_per_use_slope(o, side_q(dm, j, rho), tr[j]);
            flow[j] = eng_pay_per_use_cost(o, sl);
            r->slope += sl;
            if (j == 1)
                r->first_month_instance_hours = side_q(dm, j, rho) / o->gpus_per_instance *
                                                (1.0 + o->idle_overhead) * spot_factor(o);
        }
    } else {
        int t = o->term_months, gi = o->gpus_per_instance;
        const gp_option *bo = o->burst >= 0 ? &s->options[o->burst] : NULL;
        if (bo && o->has_base_gpus) {
            own[0] = 1.0;
            trend_table(bo->price_trend_per_year, m, own + 1);
        }
        for (int start = 0; start < m; start += t) {
            int end = start + t < m ? start + t : m;
            double inst = o->has_base_gpus ? eng_instances(o->base_gpus, gi)
                                           : term_instances(dm, o, rho, start);
            if (start == 0) {
                r->instances = (int)inst;
                r->first_month_instance_hours = inst * HOURS;
            }
            double lock = trend(o->price_trend_per_year, start);
            flow[start] += eng_term_upfront(o, inst, lock);
            double per_month = eng_term_month(o, inst, lock);
            int after = start + t > m ? start + t - m : 0;
            for (int j = start + 1; j <= end; j++) {
                flow[j] += per_month * o->hourly + extras;
                if (!o->has_base_gpus)
                    continue;
                double need = side_q(dm, j, rho), cap = inst * gi * HOURS * dm->u[j];
                double done = need < cap ? need : cap;
                double z = rented_hours(need, done, dm->u[j], rho, bo ? rho_of(s, bo) : rho);
                if (z_out)
                    z_out[j - 1] = z;
                if (z > 0.0) {
                    r->burst_months++;
                    if (!bo) {
                        if (!r->needs_burst)
                            r->needs_burst = j;
                        continue;
                    }
                    double c = eng_pay_per_use_cost(bo, eng_pay_per_use_slope(bo, z, own[j]));
                    flow[j] += c;
                    r->burst += c;
                }
            }
            flow[m] += after * per_month * o->hourly;
            r->slope += (end - start + after) * per_month;
        }
    }
    double total = 0.0;
    for (int i = 0; i <= m; i++)
        total += flow[i];
    r->total = total;
    if (f)
        memcpy(f, flow, sizeof(double) * (size_t)(m + 1));
}

/* ---- the engine ----------------------------------------------------------------------- */

typedef struct engine {
    const gp_scenario *s;
    demand dm;
    plan pl;
    int order[GP_MAX_PERIODS];
    double fixed[GP_MAX_MONTHS + 1]; /* self flows that do not depend on utilization */
    double fixed_total;
} engine;

static gp_status engine_plan(engine *e, const gp_scenario *s, gp_batch *batches, gp_err *err) {
    e->s = s;
    demand_build(s, &e->dm);
    int j = first_month_too_many(&e->dm, rho_of_self(s));
    if (j)
        return gp_errorf(err, GP_E_INPUT, "$.demand",
                         "self-hosted needs more than 10,000,000 GPUs in month %d", j);
    for (int i = 0; i < s->n_options; i++) {
        const gp_option *o = &s->options[i];
        if (s->work_mode && o->work_per_gpu_hour <= 0.0)
            continue; /* unresolved: parsing already required it */
        if ((j = first_month_too_many(&e->dm, rho_of(s, o))))
            return gp_errorf(err, GP_E_INPUT, "$.demand",
                             "option \"%s\" needs more than 10,000,000 GPUs in month %d", o->name,
                             j);
    }
    plan_build(s, &e->dm, batches, &e->pl);
    bridge_trend_build(s, &e->pl);
    return check_bridge(s, &e->dm, &e->pl, err);
}

static gp_status check_bursts(const gp_scenario *s, const demand *dm, gp_err *err) {
    for (int i = 0; i < s->n_options; i++) {
        const gp_option *o = &s->options[i];
        if (!o->has_base_gpus || o->burst >= 0)
            continue;
        option_flows r;
        option_eval(s, dm, o, NULL, NULL, &r, NULL);
        if (r.needs_burst) {
            char where[64];
            snprintf(where, sizeof where, "$.cloud_options[%d].burst", i);
            return gp_errorf(err, GP_E_INPUT, where,
                             "option \"%s\" needs more than its base_gpus in month %d and has "
                             "no burst",
                             o->name, r.needs_burst);
        }
    }
    return GP_OK;
}

double eng_loan_annuity(const gp_scenario *s) {
    double r = s->loan_apr / 12.0;
    int term = s->loan_term_months;
    return r == 0.0 ? 1.0 / term : r / (1.0 - pow(1.0 + r, -term));
}

double eng_loan_balance(double principal, double a, double r, int t, double grow_t) {
    if (r == 0.0)
        return principal - a * t;
    return principal * grow_t - a * (grow_t - 1.0) / r;
}

/* Self-hosted flows that do not move with utilization: capex, loans, values, maintenance,
 * staff and other; colocation (on the installed peak) is added per month by the caller. */
/* grow (nullable) holds (1 + apr/12)^t for t = 0..M when kept from an earlier call; bd and
 * exit_value are NULL for the flows alone (sweeps). */
static void self_fixed_flows(const gp_scenario *s, const plan *pl, double *f, gp_breakdown *bd,
                             double *exit_value, const double *grow) {
    int m = pl->m;
    double pay[GP_MAX_MONTHS + 2], maint[GP_MAX_MONTHS + 2];
    memset(pay, 0, sizeof(double) * (size_t)(m + 2));
    memset(maint, 0, sizeof(double) * (size_t)(m + 2));
    memset(f, 0, sizeof(double) * (size_t)(m + 1));
    if (exit_value)
        *exit_value = 0.0;
    bool loan = s->financing == GP_LOAN;
    double r = s->loan_apr / 12.0;
    int term = s->loan_term_months;
    /* Payment per unit of principal, and (1 + r)^t by age t for the balances. */
    double annuity = eng_loan_annuity(s);
    double own[GP_MAX_MONTHS + 1];
    const double *grow_at = grow ? grow : own;
    if (loan && r != 0.0 && !grow)
        powers(1.0 + r, 1.0, m + 1, own);
    for (int i = 0; i < pl->n_batches; i++) {
        const gp_batch *b = &pl->b[i];
        int d = b->index, x = b->exit, t = x - d;
        if (bd) {
            bd->capex += b->capex;
            bd->residual -= b->value;
            if (x == m)
                *exit_value += b->value;
        }
        f[x] -= b->value;
        if (!loan) {
            f[d] += b->capex;
        } else {
            double principal = b->capex * s->loan_fraction;
            f[d] += b->capex - principal;
            double a = principal * annuity;
            int last = d + term < x ? d + term : x;
            pay[d + 1] += a;
            pay[last + 1] -= a;
            double paid = a * (last - d), balance = 0.0;
            if (term > t) {
                balance = eng_loan_balance(principal, a, r, t, r == 0.0 ? 1.0 : grow_at[t]);
                f[x] += balance;
            }
            if (bd)
                bd->interest += paid + balance - principal;
        }
        int from = d + s->warranty_months + 1;
        if (from <= x) {
            double mm = eng_maintenance_month(s, b->hardware_capex);
            maint[from] += mm;
            maint[x + 1] -= mm;
        }
    }
    double run_pay = 0.0, run_maint = 0.0;
    for (int j = 1; j <= m; j++) {
        run_pay += pay[j];
        run_maint += maint[j];
        f[j] += run_pay + run_maint + s->staff_per_month + s->other_per_month;
        if (bd) {
            bd->maintenance += run_maint;
            bd->staff += s->staff_per_month;
            bd->other += s->other_per_month;
        }
    }
}

/* Self-hosted's total at demand dm (the plan held), and its demand charges and months with
 * bridge hours, for break_even_utilization. */
static double self_total_at(const engine *e, const demand *dm, double *charges, int *bridge_months,
                            bool *needs_bridge) {
    double total = e->fixed_total;
    *charges = 0.0;
    *bridge_months = 0;
    *needs_bridge = false;
    for (int j = 1; j <= dm->m; j++) {
        running r;
        self_month(e->s, e->order, dm, &e->pl, j, &r);
        total += r.p.power + r.p.colo + r.p.charge + r.bridge_cost;
        *charges += r.p.charge;
        if (r.bridge_hours > 0.0) {
            ++*bridge_months;
            *needs_bridge |= e->s->bridge < 0;
        }
    }
    return total;
}

/* ---- results -------------------------------------------------------------------------- */

static void compare(const double *self_f, double exit_value, const double *opt_f, int m,
                    bool *has_be, int *be, bool *has_pb, int *pb) {
    bool counts[GP_MAX_MONTHS + 1], ok[GP_MAX_MONTHS + 1];
    double cs = 0.0, co = 0.0;
    /* Revision 2.1: the leading months in which both sides paid the same (a bridge that is the
     * option compared, servers on order) are level, no break-even. */
    bool differed = false;
    *has_be = false;
    for (int i = 0; i <= m; i++) {
        cs += self_f[i] + (i == m ? exit_value : 0.0);
        co += opt_f[i];
        ok[i] = at_most(cs, co);
        differed |= !ties_equal(cs, co);
        counts[i] = ok[i] && differed && !(ties_equal(cs, 0.0) && ties_equal(co, 0.0));
        if (counts[i] && !*has_be) {
            *has_be = true;
            *be = i;
        }
    }
    *has_pb = false;
    for (int i = m; i >= 0 && ok[i]; i--) {
        if (counts[i]) {
            *has_pb = true;
            *pb = i;
        }
    }
}

static void cheapest_of(gp_result *out) {
    double low = out->self.total;
    for (int i = 0; i < out->n_options; i++)
        low = out->options[i].total < low ? out->options[i].total : low;
    out->cheapest = -1;
    if (ties_equal(out->self.total, low))
        return;
    for (int i = 0; i < out->n_options; i++) {
        if (ties_equal(out->options[i].total, low)) {
            out->cheapest = i;
            return;
        }
    }
}

static void break_even_hourly(const gp_scenario *s, int i, const gp_self_result *self,
                              double bridge_slope, const option_flows *of, gp_option_result *r) {
    const gp_option *o = &s->options[i];
    /* A per_unit option's root is its price_per_unit: hourly less the input part, held. */
    double held = gp_option_input_part(o), varied = o->hourly - held;
    double opt_d = of->slope, self_d = s->bridge == i ? bridge_slope : 0.0;
    double opt0 = of->total - varied * opt_d, self0 = self->total - varied * self_d;
    r->has_break_even_hourly = false;
    if (ties_equal(opt_d, self_d))
        return;
    if (ties_equal(self0, opt0)) {
        r->has_break_even_hourly = true;
        r->break_even_hourly = 0.0;
        return;
    }
    double h = (self0 - opt0) / (opt_d - self_d);
    if (h >= 0.0) {
        r->has_break_even_hourly = true;
        r->break_even_hourly = h;
    }
}

/* The utilizations at which the totals bend, ascending into pts: 0, where shifted busy hours
 * fill each cheaper tariff period, and 1. Returns their count. */
static int utilization_knots(const engine *e, double *pts) {
    const gp_scenario *s = e->s;
    int np = 0;
    pts[np++] = 0.0;
    if (s->shift_to_cheapest && !s->has_gpu_avg_w) {
        double hours = 0.0;
        for (int i = 0; i + 1 < s->n_periods; i++) {
            hours += s->periods[e->order[i]].hours_per_day;
            double b = hours / 24.0;
            if (b > pts[np - 1] && b < 1.0)
                pts[np++] = b;
        }
    }
    pts[np++] = 1.0;
    return np;
}

/* Where self-hosted's totals self_tot and an option's opt, linear between the knots pts[0..np),
 * cross; d_first is their difference at the first knot, its extras aside. */
static void utilization_crossing(const double *pts, int np, const double *self_tot,
                                 const double *opt, double d_first, gp_option_result *r) {
    double d_prev = d_first;
    for (int k = 0; k + 1 < np; k++) {
        double d_next = self_tot[k + 1] - opt[k + 1];
        if (ties_equal(self_tot[k + 1], opt[k + 1])) {
            r->has_break_even_utilization = true;
            r->break_even_utilization = pts[k + 1];
            return;
        }
        if ((d_prev < 0.0) != (d_next < 0.0)) {
            r->has_break_even_utilization = true;
            r->break_even_utilization = pts[k] + (pts[k + 1] - pts[k]) * d_prev / (d_prev - d_next);
            return;
        }
        d_prev = d_next;
    }
}

/* docs/model.md's break_even_utilization for every option (GPU mode). */
static void break_even_utilization(engine *e, gp_result *out) {
    const gp_scenario *s = e->s;
    double pts[GP_MAX_PERIODS + 2];
    int np = utilization_knots(e, pts);
    demand at;
    double self_tot[GP_MAX_PERIODS + 2], charge0 = 0.0, charge1 = 0.0;
    double opt_tot[GP_MAX_OPTIONS][GP_MAX_PERIODS + 2];
    int burst_months1[GP_MAX_OPTIONS] = {0};
    bool lacks_burst[GP_MAX_OPTIONS] = {false};
    int bridge_months1 = 0;
    bool lacks_bridge = false;
    for (int k = 0; k < np; k++) {
        demand_at(&e->dm, pts[k], &at);
        double ch;
        int bm;
        bool nb;
        self_tot[k] = self_total_at(e, &at, &ch, &bm, &nb);
        if (k == 0)
            charge0 = ch;
        if (k == np - 1) {
            charge1 = ch;
            bridge_months1 = bm;
            lacks_bridge = nb;
        }
        for (int i = 0; i < s->n_options; i++) {
            const gp_option *o = &s->options[i];
            if (o->pricing == GP_COMMITTED && !o->has_base_gpus) {
                /* Its terms are sized on N_j alone: the same at every utilization. */
                opt_tot[i][k] = out->options[i].total;
                continue;
            }
            option_flows of;
            option_eval(s, &at, o, NULL, NULL, &of, NULL);
            opt_tot[i][k] = of.total;
            if (k == np - 1) {
                burst_months1[i] = of.burst_months;
                lacks_burst[i] = of.needs_burst != 0;
            }
        }
    }
    double bridge_extras = s->bridge >= 0 ? eng_extras(&s->options[s->bridge]) : 0.0;
    for (int i = 0; i < s->n_options; i++) {
        const gp_option *o = &s->options[i];
        gp_option_result *r = &out->options[i];
        const double *opt = opt_tot[i];
        r->has_break_even_utilization = false;
        if (lacks_bridge || lacks_burst[i])
            continue;
        if (ties_equal(self_tot[0], opt[0])) {
            r->has_break_even_utilization = true;
            r->break_even_utilization = 0.0;
            continue;
        }
        double burst_extras = o->burst >= 0 ? eng_extras(&s->options[o->burst]) : 0.0;
        double d_first = self_tot[0] - opt[0] + bridge_extras * bridge_months1 -
                         burst_extras * burst_months1[i] + charge1 - charge0;
        utilization_crossing(pts, np, self_tot, opt, d_first, r);
    }
}

static double npv_of(const double *f, const double *disc, int m) {
    double v = 0.0;
    for (int i = 0; i <= m; i++)
        v += f[i] * disc[i];
    return v;
}

/* The first result that is not finite, named by its report JSON path into where. */
static bool finite_all(const double *v, int n) {
    for (int i = 0; i < n; i++) {
        if (!isfinite(v[i]))
            return false;
    }
    return true;
}

static void check_finite(const gp_scenario *s, gp_result *out) {
    const gp_self_result *r = &out->self;
    int m = out->horizon_months;
    const char *bad = NULL;
    char where[96];
    const gp_breakdown *bd = &r->breakdown;
    double bdv[] = {bd->capex, bd->power, bd->colo,     bd->demand_charge, bd->maintenance,
                    bd->staff, bd->other, bd->interest, bd->residual,      bd->bridge};
    if (!isfinite(out->demand_work) || !finite_all(out->demand_work_month, m))
        bad = "demand_work";
    else if (!isfinite(r->hardware_capex) || !isfinite(r->capex))
        bad = "self_hosted.capex";
    else if (!isfinite(r->total))
        bad = "self_hosted.total";
    else if (!isfinite(r->npv))
        bad = "self_hosted.npv";
    else if (r->has_cost_per_gpu_hour && !isfinite(r->cost_per_gpu_hour))
        bad = "self_hosted.cost_per_gpu_hour";
    else if (r->has_cost_per_work_unit && !isfinite(r->cost_per_work_unit))
        bad = "self_hosted.cost_per_work_unit";
    else if (!isfinite(r->energy_kwh) || !isfinite(r->co2_kg))
        bad = "self_hosted.energy_kwh";
    else if (!isfinite(r->depreciation_per_year))
        bad = "self_hosted.depreciation_per_year";
    else if (!finite_all(bdv, 10))
        bad = "self_hosted.breakdown";
    else if (!finite_all(r->monthly, m + 1))
        bad = "self_hosted.monthly";
    for (int i = 0; !bad && i < r->n_batches; i++) {
        if (!isfinite(r->batches[i].hardware_capex) || !isfinite(r->batches[i].value))
            bad = "self_hosted.purchases";
    }
    for (int i = 0; !bad && i < out->n_options; i++) {
        const gp_option_result *o = &out->options[i];
        const char *key = NULL;
        if (!isfinite(o->total))
            key = "total";
        else if (!isfinite(o->npv))
            key = "npv";
        else if (o->has_cost_per_gpu_hour && !isfinite(o->cost_per_gpu_hour))
            key = "cost_per_gpu_hour";
        else if (o->has_cost_per_work_unit && !isfinite(o->cost_per_work_unit))
            key = "cost_per_work_unit";
        else if (o->has_break_even_utilization && !isfinite(o->break_even_utilization))
            key = "break_even_utilization";
        else if (o->has_break_even_hourly && !isfinite(o->break_even_hourly))
            key = "break_even_hourly";
        else if (!isfinite(o->burst))
            key = "burst";
        else if (!finite_all(o->monthly, m + 1))
            key = "monthly";
        if (key) {
            snprintf(where, sizeof where, "options[%d].%s", i, key);
            bad = where;
        }
    }
    if (bad)
        gp_errorf(&out->error, GP_E_INPUT, bad,
                  "scenario \"%s\" gives a result that is not a finite number", s->name);
}

static void fill_self(engine *e, gp_result *out, double *bridge_slope) {
    const gp_scenario *s = e->s;
    gp_self_result *r = &out->self;
    int m = e->dm.m;
    memset(&r->breakdown, 0, sizeof r->breakdown);
    price_batches(s, &e->pl, NULL);
    self_fixed_flows(s, &e->pl, e->fixed, &r->breakdown, &r->exit_value, NULL);
    e->fixed_total = 0.0;
    for (int i = 0; i <= m; i++)
        e->fixed_total += e->fixed[i];
    memcpy(r->monthly, e->fixed, sizeof(double) * (size_t)(m + 1));
    gp_breakdown *bd = &r->breakdown;
    double energy = 0.0;
    *bridge_slope = 0.0;
    r->servers = 0;
    for (int j = 1; j <= m; j++) {
        running mr;
        self_month(s, e->order, &e->dm, &e->pl, j, &mr);
        r->monthly[j] += mr.p.power + mr.p.colo + mr.p.charge + mr.bridge_cost;
        bd->power += mr.p.power;
        bd->colo += mr.p.colo;
        bd->demand_charge += mr.p.charge;
        bd->bridge += mr.bridge_cost;
        energy += mr.p.energy;
        r->servers_in_service[j - 1] = e->pl.in_service[j];
        r->gpus_at_work[j - 1] = (int)e->pl.at_work[j];
        r->bridge_hours[j - 1] = mr.bridge_hours;
        r->bridge_cost[j - 1] = mr.bridge_cost;
        if (mr.bridge_hours > 0.0)
            *bridge_slope += eng_pay_per_use_slope(&s->options[s->bridge], mr.bridge_hours,
                                                   e->pl.bridge_trend[j]);
        if (e->pl.in_service[j] > r->servers)
            r->servers = e->pl.in_service[j];
    }
    double hw = 0.0, value = 0.0;
    for (int i = 0; i < e->pl.n_batches; i++) {
        hw += e->pl.b[i].hardware_capex;
        value += e->pl.b[i].value;
    }
    r->n_batches = e->pl.n_batches;
    r->hardware_capex = hw;
    r->capex = e->pl.n_batches > 0 ? hw + s->fixed_capex : 0.0;
    r->bulk_pct = e->pl.n_batches > 0 ? e->pl.b[0].bulk_pct : 0.0;
    r->energy_kwh = energy;
    r->co2_kg = energy * s->grid_kg_co2_per_kwh;
    r->depreciation_per_year = (hw - value) / s->depreciation_years;
    r->power_per_month = bd->power / m;
    r->colo_per_month = bd->colo / m;
    r->demand_charge_per_month = bd->demand_charge / m;
    /* The installed peak at most: the largest of any month (version 1: the one peak). */
    double peak_w = 0.0;
    for (int j = 1; j <= m; j++) {
        double gpu_w = s->gpu_tdp_w;
        if (s->has_gpu_avg_w && s->gpu_avg_w > gpu_w)
            gpu_w = s->gpu_avg_w;
        double w = e->pl.in_service[j] * s->server_base_w + e->pl.at_work[j] * gpu_w;
        peak_w = w > peak_w ? w : peak_w;
    }
    r->peak_it_kw = peak_w / 1000.0;
    r->loan_principal = 0.0;
    r->loan_payment = 0.0;
    if (s->financing == GP_LOAN && e->pl.n_batches > 0) {
        double rr = s->loan_apr / 12.0, principal = e->pl.b[0].capex * s->loan_fraction;
        r->loan_principal = principal;
        r->loan_payment = rr == 0.0 ? principal / s->loan_term_months
                                    : principal * rr / (1.0 - pow(1.0 + rr, -s->loan_term_months));
    }
    /* Sales: by exit index, then purchase order (a stable insertion sort; exits are nearly
     * sorted already). */
    for (int i = 0; i < r->n_batches; i++) {
        int k = i;
        while (k > 0 && e->pl.b[r->sale_order[k - 1]].exit > e->pl.b[i].exit) {
            r->sale_order[k] = r->sale_order[k - 1];
            k--;
        }
        r->sale_order[k] = i;
    }
}

/* No numbers for a refused scenario: a caller that ignores the error sees NaN. */
static void refuse(const gp_scenario *s, gp_result *out) {
    out->self.total = out->self.npv = NAN;
    out->self.n_batches = 0;
    for (int i = 0; i < s->n_options; i++)
        out->options[i].total = out->options[i].npv = NAN;
    out->cheapest = -1;
}

/* The demand by month into the result; returns the work over the horizon (sum of W_j). */
static double fill_demand(const gp_scenario *s, const demand *dm, gp_result *out) {
    double work = 0.0;
    out->work_mode = s->work_mode;
    for (int j = 1; j <= dm->m; j++) {
        out->demand_gpus[j - 1] = (int)dm->n[j];
        out->demand_utilization[j - 1] = dm->u[j];
        out->demand_work_month[j - 1] = dm->w[j];
        work += dm->w[j];
    }
    out->demand_work = work;
    out->demand_gpu_hours = s->work_mode ? 0.0 : work;
    return work;
}

/* The discount factor of months 0..m at the scenario's yearly discount rate. */
static void discounts(const gp_scenario *s, int m, double *disc) {
    if (s->discount_rate == 0.0) {
        for (int i = 0; i <= m; i++)
            disc[i] = 1.0;
    } else {
        powers(1.0 / (1.0 + s->discount_rate), 1.0 / 12.0, m + 1, disc);
    }
}

/* Self-hosted's total, NPV and unit costs over `work`; returns the total. */
static double self_result(const gp_scenario *s, const engine *e, const double *disc, double work,
                          gp_result *out) {
    gp_self_result *sr = &out->self;
    int m = e->dm.m;
    double total = 0.0;
    for (int i = 0; i <= m; i++)
        total += sr->monthly[i];
    sr->total = total;
    sr->npv = npv_of(sr->monthly, disc, m);
    double q_self = s->work_mode ? work / s->work_per_gpu_hour : work;
    sr->has_cost_per_gpu_hour = !s->work_mode && q_self > 0.0;
    sr->cost_per_gpu_hour = sr->has_cost_per_gpu_hour ? total / q_self : 0.0;
    sr->has_cost_per_work_unit = s->work_mode && work > 0.0;
    sr->cost_per_work_unit = sr->has_cost_per_work_unit ? total / work : 0.0;
    return total;
}

/* Option i's flows, totals, unit costs over `work`, break-even months against self-hosted's
 * (fill_self's result) and break-even hourly price; returns its total. */
static double option_result(const gp_scenario *s, const engine *e, int i, const double *disc,
                            double work, double bridge_slope, gp_result *out) {
    const gp_option *o = &s->options[i];
    const gp_self_result *sr = &out->self;
    gp_option_result *r = &out->options[i];
    int m = e->dm.m;
    option_flows of;
    memset(r->burst_hours, 0, sizeof(double) * (size_t)m);
    option_eval(s, &e->dm, o, r->monthly, r->burst_hours, &of, NULL);
    r->total = of.total;
    r->npv = npv_of(r->monthly, disc, m);
    r->burst = of.burst;
    r->instances = of.instances;
    r->instance_hours_per_month = of.first_month_instance_hours;
    r->has_cost_per_gpu_hour = !s->work_mode && work > 0.0;
    r->cost_per_gpu_hour = r->has_cost_per_gpu_hour ? of.total / work : 0.0;
    r->has_cost_per_work_unit = s->work_mode && work > 0.0;
    r->cost_per_work_unit = r->has_cost_per_work_unit ? of.total / work : 0.0;
    compare(sr->monthly, 0.0, r->monthly, m, &r->has_break_even_month, &r->break_even_month,
            &r->has_payback_month, &r->payback_month);
    compare(sr->monthly, sr->exit_value, r->monthly, m, &r->has_break_even_month_without_exit,
            &r->break_even_month_without_exit, &r->has_payback_month_without_exit,
            &r->payback_month_without_exit);
    break_even_hourly(s, i, sr, bridge_slope, &of, r);
    r->has_break_even_utilization = false;
    return of.total;
}

static void evaluate(const gp_scenario *s, gp_result *out, double *self_total,
                     double *option_totals) {
    engine e;
    gp_err_clear(&out->error);
    out->horizon_months = s->horizon_months;
    out->n_options = s->n_options;
    eng_fill_order(s, e.order);
    if (engine_plan(&e, s, out->self.batches, &out->error) || check_bursts(s, &e.dm, &out->error)) {
        refuse(s, out);
        return;
    }
    double work = fill_demand(s, &e.dm, out);
    double disc[GP_MAX_MONTHS + 1];
    discounts(s, e.dm.m, disc);
    double bridge_slope;
    fill_self(&e, out, &bridge_slope);
    double total = self_result(s, &e, disc, work, out);
    if (self_total)
        *self_total = total;
    for (int i = 0; i < s->n_options; i++) {
        double t = option_result(s, &e, i, disc, work, bridge_slope, out);
        if (option_totals)
            option_totals[i] = t;
    }
    if (!s->work_mode)
        break_even_utilization(&e, out);
    cheapest_of(out);
    check_finite(s, out);
}

/* ---- totals alone (sweeps) ------------------------------------------------------------ */

/* What an option's flows read of it besides the demand (eng_pay_per_use_slope, eng_extras,
 * spot_factor, rho_of; a committed term's fees): kept flows stay valid while these are the
 * same (a committed base with a burst is always redone). */
#define PAY_KEYS 16
static void pay_keys(const gp_scenario *s, const gp_option *o, double *v) {
    double k[PAY_KEYS] = {(double)o->pricing,
                          (double)o->gpus_per_instance,
                          o->hourly,
                          o->idle_overhead,
                          o->interruptions_per_hour,
                          o->checkpoint_interval_h,
                          o->restart_h,
                          o->storage_gb,
                          o->storage_per_gb_month,
                          o->egress_gb_per_month,
                          o->egress_per_gb,
                          o->support_pct,
                          o->price_trend_per_year,
                          rho_of(s, o),
                          o->upfront,
                          (double)o->term_months};
    memcpy(v, k, sizeof k);
}

/* What price_batches and self_fixed_flows read of a batch, besides the scenario's prices. */
typedef struct batch_shape {
    int servers, index, exit, network_index, passed_on, replaces;
    int refresh; /* not bool: no padding for memcmp to read */
} batch_shape;

/* Whether the plan's batches have the shapes kept in *n and shapes; if not, keep theirs. */
static bool same_shapes(const plan *pl, int *n, batch_shape *shapes) {
    bool same = *n == pl->n_batches;
    for (int i = 0; i < pl->n_batches; i++) {
        const gp_batch *b = &pl->b[i];
        batch_shape x = {b->servers,   b->index,    b->exit,   b->network_index,
                         b->passed_on, b->replaces, b->refresh};
        if (same && memcmp(&x, &shapes[i], sizeof x) != 0)
            same = false;
        shapes[i] = x;
    }
    *n = pl->n_batches;
    return same;
}

struct engine_keep {
    engine e;
    double loan_grow[GP_MAX_MONTHS + 1]; /* (1 + apr/12)^t for t = 0..loan_m */
    int loan_m;
    double loan_r;
    double running[GP_MAX_MONTHS + 1]; /* power + colo + charge + bridge, month j */
    /* Each month's running costs apart from the energy trend (self_month's parts). */
    double power_untrended[GP_MAX_MONTHS + 1], colo[GP_MAX_MONTHS + 1];
    double k_draw[GP_MAX_MONTHS + 1], bridge[GP_MAX_MONTHS + 1], bridge_hours[GP_MAX_MONTHS + 1];
    bool has_plan;
    double need[GP_MAX_MONTHS + 1]; /* N^S_j the plan was built for: it follows them alone */
    /* The batches' shape the fixed flows were computed for: they follow it alone. */
    int n_shapes;
    batch_shape shapes[GP_MAX_BATCHES];
    bool shares_ok; /* batch_shares of those shapes */
    double shares[3 * GP_MAX_BATCHES];
    bool has_demand;
    double work;     /* sum of W_j */
    double peak_gpu; /* max of N_j (GPU mode) or W_j / (730 u_j) (work mode): GPUs at rho 1 */
    int max_want;
    demand next; /* the demand just built, compared with e.dm */
    /* Month by month, for a demand that moved in a few months (a sweep along growth): the
     * servers each month wants (the plan follows them alone), whether running[] and each
     * option's flows are those of the demand held except in the months marked dirty, and
     * what each option's kept flows were computed with. */
    int want[GP_MAX_MONTHS + 1];
    bool running_ok;
    double rho_running; /* self-hosted's throughput running[] was computed at */
    bool growth_only;   /* e.dm was built by demand_growth_fast, for gpus growth_n and growth_u */
    double growth_u;
    int growth_n;
    bool dirty_self[GP_MAX_MONTHS + 1];
    int n_dirty_self;
    uint64_t dirty_opt[GP_MAX_MONTHS + 1]; /* bit i: option i's flow in month j is stale */
    uint64_t opt_mask;                     /* a bit for each of the scenario's options */
    int dirty[GP_MAX_MONTHS];              /* the months marked, each once */
    int n_dirty;
    double growth_lo[GP_MAX_MONTHS + 1], growth_hi[GP_MAX_MONTHS + 1]; /* growth_bounds */
    uint64_t flows_ok; /* bit i: flows[i] holds option i's flows */
    double flow_keys[GP_MAX_OPTIONS][PAY_KEYS];
    double flows[GP_MAX_OPTIONS][GP_MAX_MONTHS + 1];
    double flow_total[GP_MAX_OPTIONS];
    double insts[GP_MAX_OPTIONS][GP_MAX_MONTHS]; /* committed: R of each term */
    /* Each option's price trend by month (trend_table, index j) for trend_rate and trend_m. */
    double trends[GP_MAX_OPTIONS][GP_MAX_MONTHS + 1];
    double trend_rate[GP_MAX_OPTIONS];
    int trend_m[GP_MAX_OPTIONS];
};

engine_keep *engine_keep_new(void) {
    return gp_xcalloc(1, sizeof(engine_keep));
}

void engine_keep_free(engine_keep *k) {
    free(k);
}

/* A total the full evaluation reports as is: finite, and far from overflowing anything
 * derived from it (per GPU-hour or work unit, NPV, break-even prices). */
static bool plain_total(double total, double work) {
    if (!(fabs(total) < 1e200))
        return false;
    return !(work > 0.0) || isfinite(total / work);
}

static void mark_month(engine_keep *k, int j) {
    if (!k->dirty_self[j] && !k->dirty_opt[j])
        k->dirty[k->n_dirty++] = j;
    if (!k->dirty_self[j]) {
        k->dirty_self[j] = true;
        k->n_dirty_self++;
    }
    k->dirty_opt[j] = k->opt_mask;
}

static void clear_marks(engine_keep *k) {
    for (int i = 0; i < k->n_dirty; i++) {
        k->dirty_self[k->dirty[i]] = false;
        k->dirty_opt[k->dirty[i]] = 0;
    }
    k->n_dirty = 0;
    k->n_dirty_self = 0;
}

/* Drop the months no longer marked for anyone from the list. */
static void compact_marks(engine_keep *k) {
    int n = 0;
    for (int i = 0; i < k->n_dirty; i++) {
        int j = k->dirty[i];
        if (k->dirty_self[j] || k->dirty_opt[j])
            k->dirty[n++] = j;
    }
    k->n_dirty = n;
}

void engine_keep_forget(engine_keep *k) {
    clear_marks(k);
    k->shares_ok = false;
    k->loan_m = -1;
    k->has_demand = false;
    k->growth_only = false;
    k->has_plan = false;
    k->running_ok = false;
    k->flows_ok = 0;
}

/* Mark the months in which next differs, in any bit, from the demand held (all of them when
 * there is none or its shape changed); false when none does. */
static bool mark_dirty(engine_keep *k) {
    const demand *a = &k->next, *b = &k->e.dm;
    if (!k->has_demand || a->m != b->m || a->work != b->work) {
        k->running_ok = false;
        k->flows_ok = 0;
        clear_marks(k);
        return true;
    }
    bool any = false;
    for (int j = 1; j <= a->m; j++) {
        if (memcmp(&a->n[j], &b->n[j], sizeof a->n[j]) != 0 ||
            memcmp(&a->u[j], &b->u[j], sizeof a->u[j]) != 0 ||
            memcmp(&a->w[j], &b->w[j], sizeof a->w[j]) != 0) {
            any = true;
            mark_month(k, j);
        }
    }
    return any;
}

bool engine_demand(const gp_scenario *s, engine_keep *k) {
    demand *d = &k->e.dm;
    k->opt_mask = s->n_options >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << s->n_options) - 1;
    int m = s->horizon_months;
    bool growth = growth_only(s);
    if (growth && k->has_demand && k->growth_only && d->m == m && s->gpus == k->growth_n &&
        memcmp(&s->utilization, &k->growth_u, sizeof k->growth_u) == 0) {
        /* Along growth: N_j moves in a few months at a time, in place. */
        int moved[GP_MAX_MONTHS];
        int n = demand_growth_fast(s, d, true, k->growth_lo, k->growth_hi, moved);
        if (n == 0)
            return false;
        for (int i = 0; i < n; i++)
            mark_month(k, moved[i]);
    } else {
        if (growth)
            demand_growth_fast(s, &k->next, false, k->growth_lo, k->growth_hi, NULL);
        else
            demand_build(s, &k->next);
        if (!mark_dirty(k))
            return false;
        m = k->next.m;
        size_t bytes = sizeof(double) * (size_t)(m + 1); /* months 1..M of next */
        d->m = m;
        d->work = k->next.work;
        memcpy(d->n, k->next.n, bytes);
        memcpy(d->u, k->next.u, bytes);
        memcpy(d->w, k->next.w, bytes);
        k->growth_only = growth;
        k->growth_u = s->utilization;
        k->growth_n = s->gpus;
    }
    double work = 0.0;
    for (int j = 1; j <= m; j++)
        work += k->e.dm.w[j];
    k->work = work;
    double peak = 0.0;
    for (int j = 1; j <= m; j++) {
        double v = d->work ? (d->w[j] == 0.0 ? 0.0 : d->w[j] / (HOURS * d->u[j])) : d->n[j];
        peak = v > peak || isnan(v) ? v : peak;
    }
    k->peak_gpu = peak;
    k->has_demand = true;
    return true;
}

/* Keep month j's running costs (self_month's parts). */
static bool keep_month(const gp_scenario *s, engine_keep *k, int j) {
    running mr;
    self_month(s, k->e.order, &k->e.dm, &k->e.pl, j, &mr);
    if (mr.bridge_hours > 0.0 && s->bridge < 0)
        return false; /* check_bridge's refusal */
    k->running[j] = mr.p.power + mr.p.colo + mr.p.charge + mr.bridge_cost;
    k->power_untrended[j] = mr.p.power_untrended;
    k->colo[j] = mr.p.colo;
    k->k_draw[j] = mr.p.k_draw;
    k->bridge[j] = mr.bridge_cost;
    k->bridge_hours[j] = mr.bridge_hours;
    return true;
}

/* Self-hosted's running costs when only the demand moved, redone in the months it moved in,
 * as plan_build and self_month would give them: 1 when done, 0 when such a month wants other
 * servers (the plan must be rebuilt), -1 when the full evaluation might refuse the point. */
static int self_months(const gp_scenario *s, engine_keep *k) {
    engine *e = &k->e;
    int m = s->horizon_months, g = s->gpus_per_server;
    double rho = rho_of_self(s), need[GP_MAX_MONTHS + 1];
    (void)m;
    for (int i = 0; i < k->n_dirty; i++) {
        int j = k->dirty[i];
        if (!k->dirty_self[j])
            continue;
        need[j] = side_n(&e->dm, j, rho);
        if (need[j] > MAX_GPUS)
            return -1;
        if (eng_servers_wanted(s, need[j]) != k->want[j])
            return 0;
    }
    for (int i = 0; i < k->n_dirty; i++) {
        int j = k->dirty[i];
        if (!k->dirty_self[j])
            continue;
        k->need[j] = need[j];
        double owned = (double)e->pl.in_service[j] * g;
        e->pl.at_work[j] = need[j] < owned ? need[j] : owned;
        if (!keep_month(s, k, j))
            return -1;
        k->dirty_self[j] = false;
    }
    k->n_dirty_self = 0;
    return 1;
}

/* Option i's price trend by month j (index j), kept. */
static const double *kept_trend(const gp_scenario *s, engine_keep *k, int i) {
    double rate = s->options[i].price_trend_per_year;
    int m = s->horizon_months;
    if (k->trend_m[i] != m || memcmp(&rate, &k->trend_rate[i], sizeof rate) != 0) {
        k->trends[i][0] = 1.0;
        trend_table(rate, m, k->trends[i] + 1);
        k->trend_m[i] = m;
        k->trend_rate[i] = rate;
    }
    return k->trends[i];
}

/* bridge_trend_build from the bridge's kept trend. */
static void kept_bridge_trend(const gp_scenario *s, engine_keep *k) {
    if (s->bridge < 0)
        bridge_trend_build(s, &k->e.pl);
    else
        memcpy(k->e.pl.bridge_trend, kept_trend(s, k, s->bridge),
               sizeof(double) * (size_t)(s->horizon_months + 1));
}

/* Whether option i's kept total holds at the demand held: its keys are those it was computed
 * with, and it is pay-per-use with its flows redone in the months the demand moved in, or
 * committed with the same instances in every term the demand moved in. */
static bool option_kept(const gp_scenario *s, engine_keep *k, int i, const double *keys) {
    const gp_option *o = &s->options[i];
    const demand *dm = &k->e.dm;
    uint64_t bit = (uint64_t)1 << i;
    if (!(k->flows_ok & bit) || o->has_base_gpus ||
        memcmp(keys, k->flow_keys[i], sizeof(double) * PAY_KEYS) != 0)
        return false;
    int m = dm->m;
    double rho = rho_of(s, o), *f = k->flows[i];
    if (o->pricing == GP_COMMITTED) {
        int t = o->term_months;
        bool seen[GP_MAX_MONTHS] = {false}; /* terms checked */
        for (int x = 0; x < k->n_dirty; x++) {
            int j = k->dirty[x];
            if (!(k->dirty_opt[j] & bit) || seen[(j - 1) / t])
                continue;
            seen[(j - 1) / t] = true;
            int start = (j - 1) / t * t;
            double inst = term_instances(dm, o, rho, start);
            if (memcmp(&inst, &k->insts[i][start / t], sizeof inst) != 0)
                return false;
        }
        for (int x = 0; x < k->n_dirty; x++)
            k->dirty_opt[k->dirty[x]] &= ~bit;
        return true; /* the same instances: the same flows */
    }
    double t = 0.0;
    const double *tr = kept_trend(s, k, i);
    bool moved = false;
    for (int x = 0; x < k->n_dirty; x++) {
        int j = k->dirty[x];
        if (k->dirty_opt[j] & bit) {
            f[j] = eng_pay_per_use_cost(o, eng_pay_per_use_slope(o, side_q(dm, j, rho), tr[j]));
            k->dirty_opt[j] &= ~bit;
            moved = true;
        }
    }
    if (moved) {
        for (int j = 0; j <= m; j++) /* option_eval's sum, in its order */
            t += f[j];
        k->flow_total[i] = t;
    }
    return true;
}

/* Option i's total: kept (option_kept) or from option_eval, then kept; false where the full
 * evaluation might refuse the point. */
static bool option_total(const gp_scenario *s, engine_keep *k, int i, double *total) {
    const gp_option *o = &s->options[i];
    const demand *dm = &k->e.dm;
    double keys[PAY_KEYS];
    pay_keys(s, o, keys);
    if (!option_kept(s, k, i, keys)) {
        option_flows of;
        uint64_t bit = (uint64_t)1 << i;
        option_eval(s, dm, o, k->flows[i], NULL, &of,
                    o->pricing == GP_COMMITTED ? NULL : kept_trend(s, k, i));
        if (o->has_base_gpus && o->burst < 0 && of.needs_burst)
            return false;
        memcpy(k->flow_keys[i], keys, sizeof keys);
        k->flow_total[i] = of.total;
        k->flows_ok |= bit;
        for (int x = 0; x < k->n_dirty; x++)
            k->dirty_opt[k->dirty[x]] &= ~bit;
        if (o->pricing == GP_COMMITTED && !o->has_base_gpus)
            for (int start = 0; start < dm->m; start += o->term_months)
                k->insts[i][start / o->term_months] = term_instances(dm, o, rho_of(s, o), start);
    }
    *total = k->flow_total[i];
    return true;
}

/* The GPUs self-hosted needs each month (N^S_j) into k->need, for a redo of the demand or the
 * plan: false at first_month_too_many's refusal; *same_need when they are those the plan held
 * was built for (then only the running costs follow the hours). */
static bool need_by_month(const gp_scenario *s, engine_keep *k, double rho, unsigned redo,
                          bool *same_need) {
    engine *e = &k->e;
    int m = s->horizon_months;
    double need[GP_MAX_MONTHS + 1];
    for (int j = 1; j <= m; j++) {
        need[j] = side_n(&e->dm, j, rho);
        if (need[j] > MAX_GPUS) /* first_month_too_many's refusal */
            return false;
    }
    size_t bytes = sizeof(double) * (size_t)m;
    *same_need = !(redo & ENGINE_REDO_PLAN) && k->has_plan && e->pl.m == m &&
                 memcmp(need + 1, k->need + 1, bytes) == 0;
    if (!*same_need)
        memcpy(k->need + 1, need + 1, bytes);
    return true;
}

/* Rebuild the plan for k->need, with the servers each month wants and the loan's powers for
 * its rate; old_in_service and old_at_work (NULL: not wanted) receive the plan it replaces.
 * Returns the further parts to redo: the fixed flows unless the batches kept their shape. */
static unsigned replan(const gp_scenario *s, gp_result *scratch, engine_keep *k,
                       int *old_in_service, double *old_at_work) {
    engine *e = &k->e;
    int m = s->horizon_months;
    unsigned redo = ENGINE_REDO_RUNNING;
    bool had_plan = k->has_plan && e->pl.m == m;
    if (old_in_service) {
        memcpy(old_in_service, e->pl.in_service, sizeof(int) * (size_t)(m + 1));
        memcpy(old_at_work, e->pl.at_work, sizeof(double) * (size_t)(m + 1));
    }
    plan_build(s, &e->dm, scratch->self.batches, &e->pl);
    k->has_plan = true;
    /* The same batches (GPUs at work may differ): the same fixed flows. */
    if (!same_shapes(&e->pl, &k->n_shapes, k->shapes) || !had_plan) {
        redo |= ENGINE_REDO_FIXED;
        k->shares_ok = false;
    }
    int most = 0;
    for (int j = 1; j <= m; j++) {
        int sj = (int)ceil_pos(k->need[j] / s->gpus_per_server);
        most = sj > most ? sj : most;
        k->want[j] = eng_servers_wanted(s, k->need[j]);
    }
    k->max_want = most;
    double r = s->loan_apr / 12.0;
    if (s->financing == GP_LOAN && r != 0.0 &&
        (k->loan_m != m || memcmp(&r, &k->loan_r, sizeof r) != 0)) {
        powers(1.0 + r, 1.0, m + 1, k->loan_grow);
        k->loan_m = m;
        k->loan_r = r;
    }
    return redo;
}

/* The batches' prices and the fixed flows (capex, loans, sales, maintenance, staff). */
static void refix(const gp_scenario *s, engine_keep *k) {
    engine *e = &k->e;
    if (!k->shares_ok)
        batch_shares(s, &e->pl, k->shares);
    k->shares_ok = true;
    price_batches(s, &e->pl, k->shares);
    self_fixed_flows(s, &e->pl, e->fixed, NULL, NULL, k->loan_grow);
}

/* Running costs redone in the months marked or whose servers in service or GPUs at work the
 * new plan changed; false at check_bridge's refusal. */
static bool rerun_changed_months(const gp_scenario *s, engine_keep *k, const int *old_in_service,
                                 const double *old_at_work) {
    const plan *pl = &k->e.pl;
    for (int j = 1; j <= s->horizon_months; j++) {
        if (!k->dirty_self[j] && pl->in_service[j] == old_in_service[j] &&
            memcmp(&pl->at_work[j], &old_at_work[j], sizeof(double)) == 0)
            continue;
        if (!keep_month(s, k, j)) {
            k->running_ok = false;
            return false;
        }
    }
    for (int x = 0; x < k->n_dirty; x++)
        k->dirty_self[k->dirty[x]] = false;
    k->n_dirty_self = 0;
    return true;
}

/* Running costs redone in every month at self-hosted's throughput rho; false at
 * check_bridge's refusal (a month with bridge hours and no bridge). */
static bool rerun_all_months(const gp_scenario *s, engine_keep *k, double rho) {
    eng_fill_order(s, k->e.order);
    kept_bridge_trend(s, k); /* the bridge's prices may have moved */
    k->running_ok = false;
    for (int j = 1; j <= s->horizon_months; j++)
        if (!keep_month(s, k, j))
            return false;
    for (int x = 0; x < k->n_dirty; x++)
        k->dirty_self[k->dirty[x]] = false;
    k->n_dirty_self = 0;
    k->running_ok = true;
    k->rho_running = rho;
    return true;
}

/* self_month's power and charge under the new energy trend, its bridge's cost at the bridge's
 * new prices (ENGINE_REDO_BRIDGE in redo), from the kept parts, in its order. */
static void retrend_months(const gp_scenario *s, engine_keep *k, unsigned redo) {
    const plan *pl = &k->e.pl;
    const gp_option *br = s->bridge >= 0 ? &s->options[s->bridge] : NULL;
    if ((redo & ENGINE_REDO_BRIDGE) && br)
        kept_bridge_trend(s, k);
    for (int j = 1; j <= s->horizon_months; j++) {
        double tr_e = pl->energy_trend[j];
        double power = k->power_untrended[j] * tr_e;
        double charge = eng_demand_charge(s, tr_e, k->k_draw[j]);
        if ((redo & ENGINE_REDO_BRIDGE) && br && k->bridge_hours[j] > 0.0)
            k->bridge[j] = eng_pay_per_use_cost(
                br, eng_pay_per_use_slope(br, k->bridge_hours[j], pl->bridge_trend[j]));
        k->running[j] = power + k->colo[j] + charge + k->bridge[j];
    }
}

/* Self-hosted's total for engine_totals, redoing the parts in redo (and what they enter):
 * false where the full evaluation might refuse the point. */
static bool self_total_kept(const gp_scenario *s, gp_result *scratch, engine_keep *k, unsigned redo,
                            double *self_total, int *max_want) {
    engine *e = &k->e;
    int m = s->horizon_months;
    double rho = rho_of_self(s);
    if (!k->running_ok || k->n_dirty_self > 0)
        redo |= ENGINE_REDO_NEED;
    /* Only the demand moved: redo the months it moved in, and, if the plan changes, those
     * whose servers in service or GPUs at work change. */
    bool by_month = redo == ENGINE_REDO_NEED && k->has_plan && e->pl.m == m &&
                    memcmp(&rho, &k->rho_running, sizeof rho) == 0;
    int old_in_service[GP_MAX_MONTHS + 2];
    double old_at_work[GP_MAX_MONTHS + 1];
    if (by_month) {
        int done = self_months(s, k);
        if (done < 0)
            return false;
        if (done > 0)
            redo = 0; /* the same plan; the months that moved are redone */
    }
    bool same_need = false;
    if (redo & (ENGINE_REDO_NEED | ENGINE_REDO_PLAN)) {
        if (!need_by_month(s, k, rho, redo, &same_need))
            return false;
        /* The same GPUs wanted every month: the same plan, its prices and fixed flows; only
         * the running costs follow the hours. */
        redo |= ENGINE_REDO_RUNNING;
    }
    if ((redo & (ENGINE_REDO_NEED | ENGINE_REDO_PLAN)) && !same_need)
        redo |=
            replan(s, scratch, k, by_month ? old_in_service : NULL, by_month ? old_at_work : NULL);
    else if (redo & ENGINE_REDO_TREND)
        energy_trend_build(s, &e->pl);
    *max_want = k->max_want;
    if (redo & ENGINE_REDO_FIXED)
        refix(s, k);
    if ((redo & ENGINE_REDO_RUNNING) && by_month) {
        if (!rerun_changed_months(s, k, old_in_service, old_at_work))
            return false;
    } else if (redo & ENGINE_REDO_RUNNING) {
        if (!rerun_all_months(s, k, rho))
            return false;
    } else if (redo & (ENGINE_REDO_TREND | ENGINE_REDO_BRIDGE)) {
        retrend_months(s, k, redo);
    }
    /* fill_self's sums, in its order: F[j] = fixed_j + (power + colo + charge + bridge), the
     * total 0.0 + F[0] + ... + F[M]. */
    double total = 0.0;
    total += e->fixed[0];
    for (int j = 1; j <= m; j++)
        total += e->fixed[j] + k->running[j];
    if (!plain_total(total, k->work))
        return false;
    *self_total = total;
    return true;
}

/* The totals of the options in the set `options` (bit i: option i) for engine_totals: false
 * where the full evaluation might refuse the point. */
static bool option_totals_kept(const gp_scenario *s, engine_keep *k, uint64_t options,
                               double *option_totals) {
    for (int i = 0; i < s->n_options; i++) {
        if (!(options >> i & 1u))
            continue;
        const gp_option *o = &s->options[i];
        /* Far below 10,000,000 GPUs at the peak (1% covers the rounding), no month is past
         * it; else first_month_too_many decides. */
        bool low = k->peak_gpu / rho_of(s, o) < 0.99 * MAX_GPUS;
        if (!low && !(s->work_mode && o->work_per_gpu_hour <= 0.0) &&
            first_month_too_many(&k->e.dm, rho_of(s, o)))
            return false;
        double total;
        if (!option_total(s, k, i, &total) || !plain_total(total, k->work))
            return false;
        option_totals[i] = total;
    }
    return true;
}

bool engine_totals(const gp_scenario *s, gp_result *scratch, engine_keep *k, engine_want want,
                   double *self_total, double *option_totals, int *max_want) {
    k->e.s = s;
    if (!isfinite(k->work))
        return false;
    if (want.self && !self_total_kept(s, scratch, k, want.redo, self_total, max_want))
        return false;
    if (!option_totals_kept(s, k, want.options, option_totals))
        return false;
    compact_marks(k);
    return true;
}

void gp_model_evaluate(const gp_scenario *s, gp_result *out) {
    evaluate(s, out, NULL, NULL);
}

void gp_model_totals_v2(const gp_scenario *s, gp_result *scratch, double *self_total,
                        double *option_totals) {
    *self_total = NAN;
    for (int i = 0; i < s->n_options; i++)
        option_totals[i] = NAN;
    evaluate(s, scratch, self_total, option_totals);
}

bool gp_result_cost_per_work_unit(const gp_result *r, int side, double *out) {
    bool has = side < 0 ? r->self.has_cost_per_work_unit : r->options[side].has_cost_per_work_unit;
    *out = !has ? 0 : side < 0 ? r->self.cost_per_work_unit : r->options[side].cost_per_work_unit;
    return has;
}

bool gp_result_cost_per_gpu_hour(const gp_scenario *s, const gp_result *r, int side, double *out) {
    if (side >= 0 && s->options[side].pricing == GP_PER_UNIT)
        return *out = 0, false; /* an API has no GPU-hours */
    if (!r->work_mode) {
        bool has =
            side < 0 ? r->self.has_cost_per_gpu_hour : r->options[side].has_cost_per_gpu_hour;
        *out = !has ? 0 : side < 0 ? r->self.cost_per_gpu_hour : r->options[side].cost_per_gpu_hour;
        return has;
    }
    double per_unit;
    if (!gp_result_cost_per_work_unit(r, side, &per_unit))
        return *out = 0, false;
    *out = per_unit * (side < 0 ? s->work_per_gpu_hour : s->options[side].work_per_gpu_hour);
    return true;
}
