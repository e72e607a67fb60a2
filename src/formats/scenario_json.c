/* Scenario JSON reader and validator. Every rule of docs/model.md's table is checked here, so the
 * model can trust its input. Paths are built as we descend ("$.self_hosted.power.pue"). */
#include "gpuplan/scenario_json.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

typedef struct ctx {
    const char *origin;
    gp_err *err;
    /* Names resolved once every option is read: the bridge and each option's burst. */
    const char *bridge;
    const char *burst[GP_MAX_OPTIONS];
} ctx;

#define PATH_BYTES 200

static gp_status fail(ctx *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static gp_status fail(ctx *c, const char *path, const char *fmt, ...) {
    char where[256];
    snprintf(where, sizeof where, "%s:%s", c->origin, path);
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gp_errorf(c->err, GP_E_INPUT, where, "%s", msg);
}

static void child_path(char *out, const char *parent, const char *key) {
    snprintf(out, PATH_BYTES, "%s.%s", parent, key);
}

static void index_path(char *out, const char *parent, int i) {
    snprintf(out, PATH_BYTES, "%s[%d]", parent, i);
}

bool gp_utf8_valid(const char *s, size_t len, size_t *codepoints) {
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    size_t n = 0;
    while (p < end) {
        unsigned c = *p;
        int extra;
        unsigned min;
        if (c == 0)
            return false;
        if (c < 0x80) {
            p++;
            n++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            extra = 1, min = 0x80, c &= 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            extra = 2, min = 0x800, c &= 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            extra = 3, min = 0x10000, c &= 0x07;
        } else {
            return false;
        }
        if (end - p <= extra)
            return false;
        for (int i = 1; i <= extra; i++) {
            if ((p[i] & 0xC0) != 0x80)
                return false;
            c = (c << 6) | (p[i] & 0x3F);
        }
        if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
            return false;
        p += extra + 1;
        n++;
    }
    if (codepoints)
        *codepoints = n;
    return true;
}

/* Every key of obj must be one of allowed[], each at most once. O(keys * allowed), so a
 * hostile object with a million keys is still linear. */
static gp_status check_keys(ctx *c, const cJSON *obj, const char *path, const char *const *allowed,
                            int n_allowed) {
    unsigned long long seen = 0;
    for (const cJSON *it = obj->child; it; it = it->next) {
        int found = -1;
        for (int i = 0; i < n_allowed; i++) {
            if (it->string && strcmp(it->string, allowed[i]) == 0) {
                found = i;
                break;
            }
        }
        char p[PATH_BYTES];
        child_path(p, path, it->string ? it->string : "?");
        if (found < 0)
            return fail(c, p, "unknown key");
        if (seen & (1ull << found))
            return fail(c, p, "repeated key");
        seen |= 1ull << found;
    }
    return GP_OK;
}

static const cJSON *get(const cJSON *obj, const char *key) {
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static gp_status want_object(ctx *c, const cJSON *v, const char *path) {
    if (!cJSON_IsObject(v))
        return fail(c, path, "must be an object");
    return GP_OK;
}

/* Range flags for num(): bounds are inclusive unless marked open; NO_HI drops the upper one. */
enum { CLOSED = 0, OPEN_LO = 1, OPEN_HI = 2, NO_HI = 4 };

/* A number at obj.key within the range; absent keeps *out (the default) unless required. */
static gp_status num(ctx *c, const cJSON *obj, const char *path, const char *key, double lo,
                     double hi, int range, bool required, double *out) {
    char p[PATH_BYTES];
    child_path(p, path, key);
    const cJSON *v = get(obj, key);
    if (!v)
        return required ? fail(c, p, "required key is missing") : GP_OK;
    if (!cJSON_IsNumber(v))
        return fail(c, p, "must be a number");
    double x = v->valuedouble;
    if (!isfinite(x))
        return fail(c, p, "must be a finite number");
    bool ok_lo = (range & OPEN_LO) ? x > lo : x >= lo;
    bool ok_hi = (range & NO_HI) ? true : (range & OPEN_HI) ? x < hi : x <= hi;
    if (!ok_lo || !ok_hi) {
        if (range & NO_HI)
            return fail(c, p, "must be %s %g (got %g)", (range & OPEN_LO) ? ">" : ">=", lo, x);
        return fail(c, p, "must be in %s%g, %g%s (got %g)", (range & OPEN_LO) ? "(" : "[", lo, hi,
                    (range & OPEN_HI) ? ")" : "]", x);
    }
    *out = x;
    return GP_OK;
}

/* A money field: >= 0 and at most docs/model.md's bound. */
static gp_status money(ctx *c, const cJSON *obj, const char *path, const char *key, bool required,
                       double *out) {
    return num(c, obj, path, key, 0, GP_MONEY_MAX, CLOSED, required, out);
}

static gp_status integer(ctx *c, const cJSON *obj, const char *path, const char *key, int lo,
                         int hi, bool required, int *out) {
    char p[PATH_BYTES];
    child_path(p, path, key);
    const cJSON *v = get(obj, key);
    if (!v)
        return required ? fail(c, p, "required key is missing") : GP_OK;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return fail(c, p, "must be an integer");
    double x = v->valuedouble;
    if (x != floor(x))
        return fail(c, p, "must be an integer (got %g)", x);
    if (x < lo || x > hi)
        return fail(c, p, "must be in [%d, %d] (got %g)", lo, hi, x);
    *out = (int)x;
    return GP_OK;
}

static gp_status string(ctx *c, const cJSON *obj, const char *path, const char *key, bool required,
                        bool is_name, char *out, size_t cap) {
    char p[PATH_BYTES];
    child_path(p, path, key);
    const cJSON *v = get(obj, key);
    if (!v)
        return required ? fail(c, p, "required key is missing") : GP_OK;
    if (!cJSON_IsString(v) || !v->valuestring)
        return fail(c, p, "must be a string");
    size_t len = strlen(v->valuestring), cps = 0;
    if (!gp_utf8_valid(v->valuestring, len, &cps))
        return fail(c, p, "must be valid UTF-8");
    if (is_name && (cps < 1 || cps > 200))
        return fail(c, p, "must be 1 to 200 characters (got %zu)", cps);
    if (out) {
        if (len >= cap)
            return fail(c, p, "is too long (at most %zu bytes)", cap - 1);
        memcpy(out, v->valuestring, len + 1);
    }
    return GP_OK;
}

static gp_status boolean(ctx *c, const cJSON *obj, const char *path, const char *key, bool *out) {
    char p[PATH_BYTES];
    child_path(p, path, key);
    const cJSON *v = get(obj, key);
    if (!v)
        return GP_OK;
    if (!cJSON_IsBool(v))
        return fail(c, p, "must be true or false");
    *out = cJSON_IsTrue(v);
    return GP_OK;
}

/* "YYYY-MM-DD", a day of the Gregorian calendar in years 0001..9999. */
static bool valid_date(const char *d) {
    if (strlen(d) != 10 || d[4] != '-' || d[7] != '-')
        return false;
    for (int i = 0; i < 10; i++) {
        if (i != 4 && i != 7 && (d[i] < '0' || d[i] > '9'))
            return false;
    }
    int y = 0, mo = 0, day = 0;
    if (sscanf(d, "%4d-%2d-%2d", &y, &mo, &day) != 3)
        return false;
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1 || mo < 1 || mo > 12 || day < 1)
        return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return day <= days[mo - 1] + (mo == 2 && leap);
}

/* A list of objects at path, with its size into *n. */
static gp_status list(ctx *c, const cJSON *v, const char *path, const char *what, int *n) {
    if (!cJSON_IsArray(v))
        return fail(c, path, "must be a list of %s", what);
    *n = cJSON_GetArraySize(v);
    return GP_OK;
}

/* ---- demand ----------------------------------------------------------------------------- */

static gp_status parse_steps(ctx *c, const cJSON *arr, const char *path, gp_scenario *s) {
    int n = 0;
    if (list(c, arr, path, "steps", &n))
        return c->err->code;
    if (n > 0 && s->growth_per_month != 0.0)
        return fail(c, path, "steps and a growth_per_month other than 0 exclude each other");
    static const char *const keys[] = {"month", "gpus", "work_per_month", "utilization"};
    int i = 0, prev = 0;
    for (const cJSON *it = arr->child; it; it = it->next, i++) {
        char ip[PATH_BYTES], p[PATH_BYTES];
        index_path(ip, path, i);
        gp_step st = {0};
        if (want_object(c, it, ip) || check_keys(c, it, ip, keys, 4) ||
            integer(c, it, ip, "month", 2, 1000000000, true, &st.month))
            return c->err->code;
        if (st.month <= prev) {
            child_path(p, ip, "month");
            return fail(c, p, "months must increase from step to step (%d after %d)", st.month,
                        prev);
        }
        prev = st.month;
        const char *other = s->work_mode ? "gpus" : "work_per_month";
        if (get(it, other)) {
            child_path(p, ip, other);
            return fail(c, p, "belongs to %s mode; this demand is in %s mode",
                        s->work_mode ? "GPU" : "work", s->work_mode ? "work" : "GPU");
        }
        st.has_gpus = get(it, "gpus") != NULL;
        st.has_work = get(it, "work_per_month") != NULL;
        st.has_utilization = get(it, "utilization") != NULL;
        if (integer(c, it, ip, "gpus", 0, 1000000, false, &st.gpus) ||
            num(c, it, ip, "work_per_month", 0, 0, NO_HI, false, &st.work_per_month) ||
            num(c, it, ip, "utilization", 0, 1, s->work_mode ? OPEN_LO : CLOSED, false,
                &st.utilization))
            return c->err->code;
        if (!st.has_gpus && !st.has_work && !st.has_utilization)
            return fail(c, ip, "a step gives %s, utilization or both",
                        s->work_mode ? "work_per_month" : "gpus");
        if (st.month <= s->horizon_months)
            s->steps[s->n_steps++] = st; /* later steps are validated, then ignored */
    }
    return GP_OK;
}

static gp_status parse_demand(ctx *c, const cJSON *d, const char *path, gp_scenario *s) {
    static const char *const keys[] = {"gpus",        "work_per_month",   "work_unit",
                                       "utilization", "growth_per_month", "steps"};
    if (want_object(c, d, path) || check_keys(c, d, path, keys, 6))
        return c->err->code;
    char p[PATH_BYTES];
    bool gpus = get(d, "gpus") != NULL, work = get(d, "work_per_month") != NULL;
    if (gpus && work) {
        child_path(p, path, "work_per_month");
        return fail(c, p, "give gpus (GPU mode) or work_per_month (work mode), not both");
    }
    if (!gpus && !work) {
        child_path(p, path, "gpus");
        return fail(c, p, "required key is missing (or work_per_month, for work mode)");
    }
    s->work_mode = work;
    if (!work && get(d, "work_unit")) {
        child_path(p, path, "work_unit");
        return fail(c, p, "applies to work mode (work_per_month) only");
    }
    if (integer(c, d, path, "gpus", 1, 1000000, false, &s->gpus) ||
        num(c, d, path, "work_per_month", 0, 0, OPEN_LO | NO_HI, false, &s->work_per_month) ||
        num(c, d, path, "utilization", 0, 1, work ? OPEN_LO : CLOSED, true, &s->utilization) ||
        num(c, d, path, "growth_per_month", -0.5, 1, CLOSED, false, &s->growth_per_month))
        return c->err->code;
    if (get(d, "work_unit")) {
        char unit[GP_UNIT_BYTES];
        if (string(c, d, path, "work_unit", false, false, unit, sizeof unit))
            return c->err->code;
        size_t cps = 0;
        gp_utf8_valid(unit, strlen(unit), &cps);
        if (cps < 1 || cps > 40) {
            child_path(p, path, "work_unit");
            return fail(c, p, "must be 1 to 40 characters (got %zu)", cps);
        }
        memcpy(s->work_unit, unit, sizeof unit);
    }
    const cJSON *steps = get(d, "steps");
    if (steps) {
        child_path(p, path, "steps");
        return parse_steps(c, steps, p, s);
    }
    return GP_OK;
}

/* ---- self_hosted ------------------------------------------------------------------------ */

static gp_status parse_resale(ctx *c, const cJSON *arr, const char *path, gp_scenario *s) {
    int n = 0;
    if (list(c, arr, path, "{\"age_months\", \"pct\"}", &n))
        return c->err->code;
    if (n < 1 || n > GP_MAX_RESALE)
        return fail(c, path, "must hold 1 to %d points (got %d)", GP_MAX_RESALE, n);
    static const char *const keys[] = {"age_months", "pct"};
    int i = 0;
    for (const cJSON *it = arr->child; it; it = it->next, i++) {
        char ip[PATH_BYTES], p[PATH_BYTES];
        index_path(ip, path, i);
        gp_resale_point *pt = &s->resale[i];
        if (want_object(c, it, ip) || check_keys(c, it, ip, keys, 2) ||
            integer(c, it, ip, "age_months", 1, 240, true, &pt->age_months) ||
            num(c, it, ip, "pct", 0, 1, CLOSED, true, &pt->pct))
            return c->err->code;
        if (i > 0 && pt->age_months <= s->resale[i - 1].age_months) {
            child_path(p, ip, "age_months");
            return fail(c, p, "ages must increase from point to point (%d after %d)",
                        pt->age_months, s->resale[i - 1].age_months);
        }
        if (i > 0 && pt->pct > s->resale[i - 1].pct) {
            child_path(p, ip, "pct");
            return fail(c, p, "a value share may not rise with age (%g after %g)", pt->pct,
                        s->resale[i - 1].pct);
        }
    }
    s->n_resale = n;
    return GP_OK;
}

static gp_status parse_power(ctx *c, const cJSON *o, const char *path, gp_scenario *s) {
    static const char *const keys[] = {"server_base_w", "gpu_idle_w", "gpu_tdp_w", "gpu_avg_w",
                                       "pue"};
    if (want_object(c, o, path) || check_keys(c, o, path, keys, 5) ||
        num(c, o, path, "server_base_w", 0, 0, NO_HI, false, &s->server_base_w) ||
        num(c, o, path, "gpu_idle_w", 0, 0, NO_HI, false, &s->gpu_idle_w) ||
        num(c, o, path, "gpu_tdp_w", 0, 0, NO_HI, false, &s->gpu_tdp_w) ||
        num(c, o, path, "pue", 1, 5, CLOSED, false, &s->pue))
        return c->err->code;
    const cJSON *avg = get(o, "gpu_avg_w");
    if (avg && !cJSON_IsNull(avg)) {
        if (num(c, o, path, "gpu_avg_w", 0, 0, NO_HI, false, &s->gpu_avg_w))
            return c->err->code;
        s->has_gpu_avg_w = true;
    }
    if (s->gpu_tdp_w < s->gpu_idle_w) {
        char p[PATH_BYTES];
        child_path(p, path, "gpu_tdp_w");
        return fail(c, p, "must be >= gpu_idle_w (%g < %g)", s->gpu_tdp_w, s->gpu_idle_w);
    }
    return GP_OK;
}

static gp_status parse_tariff(ctx *c, const cJSON *o, const char *path, gp_scenario *s) {
    static const char *const keys[] = {"periods", "shift_to_cheapest", "demand_charge_per_kw_month",
                                       "price_trend_per_year"};
    if (want_object(c, o, path) || check_keys(c, o, path, keys, 4) ||
        boolean(c, o, path, "shift_to_cheapest", &s->shift_to_cheapest) ||
        money(c, o, path, "demand_charge_per_kw_month", false, &s->demand_charge_per_kw_month) ||
        num(c, o, path, "price_trend_per_year", -0.9, 1, CLOSED, false,
            &s->energy_price_trend_per_year))
        return c->err->code;
    const cJSON *periods = get(o, "periods");
    if (!periods)
        return GP_OK; /* the default flat tariff stays */
    char pp[PATH_BYTES];
    child_path(pp, path, "periods");
    if (!cJSON_IsArray(periods))
        return fail(c, pp, "must be a list of periods");
    int n = cJSON_GetArraySize(periods);
    if (n < 1 || n > GP_MAX_PERIODS)
        return fail(c, pp, "must hold 1 to %d periods (got %d)", GP_MAX_PERIODS, n);
    static const char *const pkeys[] = {"name", "hours_per_day", "price_per_kwh"};
    double hours = 0.0;
    int i = 0;
    for (const cJSON *it = periods->child; it; it = it->next, i++) {
        char ip[PATH_BYTES];
        index_path(ip, pp, i);
        gp_period *per = &s->periods[i];
        memset(per, 0, sizeof *per);
        if (want_object(c, it, ip) || check_keys(c, it, ip, pkeys, 3) ||
            string(c, it, ip, "name", true, true, per->name, sizeof per->name) ||
            num(c, it, ip, "hours_per_day", 0, 24, OPEN_LO, true, &per->hours_per_day) ||
            money(c, it, ip, "price_per_kwh", true, &per->price_per_kwh))
            return c->err->code;
        hours += per->hours_per_day;
    }
    s->n_periods = n;
    if (fabs(hours - 24.0) > 1e-9)
        return fail(c, pp, "hours_per_day must sum to 24 (got %.10g)", hours);
    return GP_OK;
}

static gp_status parse_financing(ctx *c, const cJSON *o, const char *path, gp_scenario *s) {
    if (want_object(c, o, path))
        return c->err->code;
    char kind[16] = "";
    char kp[PATH_BYTES];
    child_path(kp, path, "kind");
    const cJSON *k = get(o, "kind");
    if (!k)
        return fail(c, kp, "required key is missing");
    if (!cJSON_IsString(k) || !k->valuestring)
        return fail(c, kp, "must be \"cash\" or \"loan\"");
    snprintf(kind, sizeof kind, "%s", k->valuestring);
    if (strcmp(k->valuestring, "cash") == 0) {
        static const char *const keys[] = {"kind"};
        s->financing = GP_CASH;
        return check_keys(c, o, path, keys, 1);
    }
    if (strcmp(k->valuestring, "loan") != 0)
        return fail(c, kp, "must be \"cash\" or \"loan\"");
    static const char *const keys[] = {"kind", "apr", "term_months", "fraction"};
    s->financing = GP_LOAN;
    if (check_keys(c, o, path, keys, 4) ||
        num(c, o, path, "apr", 0, 1, CLOSED, true, &s->loan_apr) ||
        integer(c, o, path, "term_months", 1, 360, true, &s->loan_term_months) ||
        num(c, o, path, "fraction", 0, 1, CLOSED, false, &s->loan_fraction))
        return c->err->code;
    return GP_OK;
}

static gp_status parse_tiers(ctx *c, const cJSON *arr, const char *path, gp_scenario *s) {
    if (!cJSON_IsArray(arr))
        return fail(c, path, "must be a list of {\"min_servers\", \"pct\"}");
    int n = cJSON_GetArraySize(arr);
    if (n > GP_MAX_TIERS)
        return fail(c, path, "at most %d tiers (got %d)", GP_MAX_TIERS, n);
    static const char *const keys[] = {"min_servers", "pct"};
    int i = 0;
    for (const cJSON *it = arr->child; it; it = it->next, i++) {
        char ip[PATH_BYTES];
        index_path(ip, path, i);
        gp_bulk_tier *t = &s->tiers[i];
        if (want_object(c, it, ip) || check_keys(c, it, ip, keys, 2) ||
            integer(c, it, ip, "min_servers", 1, 1000000, true, &t->min_servers) ||
            num(c, it, ip, "pct", 0, 1, OPEN_HI, true, &t->pct))
            return c->err->code;
        for (int j = 0; j < i; j++) {
            if (s->tiers[j].min_servers == t->min_servers) {
                char p[PATH_BYTES];
                child_path(p, ip, "min_servers");
                return fail(c, p, "repeats min_servers %d of tier %d", t->min_servers, j);
            }
        }
    }
    s->n_tiers = n;
    return GP_OK;
}

/* self_hosted's checks across keys, and "buy". */
static gp_status self_hosted_checks(ctx *c, const cJSON *o, const char *path, gp_scenario *s) {
    char p[PATH_BYTES];
    const cJSON *v;
    s->has_max_servers = get(o, "max_servers") != NULL;
    if (s->lead_time_months >= s->horizon_months) {
        child_path(p, path, "lead_time_months");
        return fail(c, p, "must be below horizon_months (%d >= %d)", s->lead_time_months,
                    s->horizon_months);
    }
    if (s->refresh_months > 0 && s->refresh_months < 12) {
        child_path(p, path, "refresh_months");
        return fail(c, p, "must be 0 (never) or 12..240 (got %d)", s->refresh_months);
    }
    if (!s->work_mode && get(o, "work_per_gpu_hour")) {
        child_path(p, path, "work_per_gpu_hour");
        return fail(c, p, "applies to work mode (demand.work_per_month) only");
    }
    if ((v = get(o, "buy"))) {
        child_path(p, path, "buy");
        if (!cJSON_IsString(v) || !v->valuestring)
            return fail(c, p, "must be \"all_at_once\" or \"as_needed\"");
        if (strcmp(v->valuestring, "all_at_once") == 0)
            s->buy = GP_BUY_ALL_AT_ONCE;
        else if (strcmp(v->valuestring, "as_needed") == 0)
            s->buy = GP_BUY_AS_NEEDED;
        else
            return fail(c, p, "must be \"all_at_once\" or \"as_needed\" (got \"%s\")",
                        v->valuestring);
    }
    return GP_OK;
}

/* self_hosted's nested sections: the bridge's name, resale points, bulk tiers, power, tariff
 * and financing. */
static gp_status self_hosted_sections(ctx *c, const cJSON *o, const char *path, gp_scenario *s) {
    char p[PATH_BYTES];
    const cJSON *v;
    if ((v = get(o, "bridge"))) {
        if (string(c, o, path, "bridge", false, true, NULL, 0))
            return c->err->code;
        c->bridge = v->valuestring;
    }
    if ((v = get(o, "resale"))) {
        child_path(p, path, "resale");
        if (get(o, "residual_pct"))
            return fail(c, p, "give resale or residual_pct, not both");
        if (parse_resale(c, v, p, s))
            return c->err->code;
    }
    if ((v = get(o, "bulk_discounts"))) {
        child_path(p, path, "bulk_discounts");
        if (parse_tiers(c, v, p, s))
            return c->err->code;
    }
    if ((v = get(o, "power"))) {
        child_path(p, path, "power");
        if (parse_power(c, v, p, s))
            return c->err->code;
    }
    if ((v = get(o, "tariff"))) {
        child_path(p, path, "tariff");
        if (parse_tariff(c, v, p, s))
            return c->err->code;
    }
    if ((v = get(o, "financing"))) {
        child_path(p, path, "financing");
        if (parse_financing(c, v, p, s))
            return c->err->code;
    }
    return GP_OK;
}

static gp_status parse_self_hosted(ctx *c, const cJSON *o, const char *path, gp_scenario *s) {
    static const char *const keys[] = {"gpus_per_server",
                                       "server_price",
                                       "price_factor",
                                       "bulk_discounts",
                                       "network_per_server",
                                       "fixed_capex",
                                       "residual_pct",
                                       "warranty_months",
                                       "maintenance_pct_per_year",
                                       "staff_per_month",
                                       "other_per_month",
                                       "colo_per_kw_month",
                                       "depreciation_years",
                                       "grid_kg_co2_per_kwh",
                                       "power",
                                       "tariff",
                                       "financing",
                                       "server_price_trend_per_year",
                                       "buy",
                                       "lead_time_months",
                                       "order_every_months",
                                       "max_servers",
                                       "bridge",
                                       "refresh_months",
                                       "resale",
                                       "work_per_gpu_hour"};
    if (want_object(c, o, path) || check_keys(c, o, path, keys, 26) ||
        integer(c, o, path, "gpus_per_server", 1, 576, false, &s->gpus_per_server) ||
        money(c, o, path, "server_price", true, &s->server_price) ||
        num(c, o, path, "price_factor", 0, 0, OPEN_LO | NO_HI, false, &s->price_factor) ||
        money(c, o, path, "network_per_server", false, &s->network_per_server) ||
        money(c, o, path, "fixed_capex", false, &s->fixed_capex) ||
        num(c, o, path, "residual_pct", 0, 1, CLOSED, false, &s->residual_pct) ||
        integer(c, o, path, "warranty_months", 0, 240, false, &s->warranty_months) ||
        num(c, o, path, "maintenance_pct_per_year", 0, 1, CLOSED, false,
            &s->maintenance_pct_per_year) ||
        money(c, o, path, "staff_per_month", false, &s->staff_per_month) ||
        money(c, o, path, "other_per_month", false, &s->other_per_month) ||
        money(c, o, path, "colo_per_kw_month", false, &s->colo_per_kw_month) ||
        num(c, o, path, "depreciation_years", 1, 50, CLOSED, false, &s->depreciation_years) ||
        num(c, o, path, "grid_kg_co2_per_kwh", 0, 0, NO_HI, false, &s->grid_kg_co2_per_kwh) ||
        num(c, o, path, "server_price_trend_per_year", -0.9, 1, CLOSED, false,
            &s->server_price_trend_per_year) ||
        integer(c, o, path, "lead_time_months", 0, 24, false, &s->lead_time_months) ||
        integer(c, o, path, "order_every_months", 1, s->horizon_months, false,
                &s->order_every_months) ||
        integer(c, o, path, "max_servers", 1, 1000000, false, &s->max_servers) ||
        integer(c, o, path, "refresh_months", 0, 240, false, &s->refresh_months) ||
        num(c, o, path, "work_per_gpu_hour", 0, 0, OPEN_LO | NO_HI, s->work_mode,
            &s->work_per_gpu_hour))
        return c->err->code;
    if (self_hosted_checks(c, o, path, s) || self_hosted_sections(c, o, path, s))
        return c->err->code;
    return GP_OK;
}

/* ---- cloud options ---------------------------------------------------------------------- */

static gp_status only_for(ctx *c, const cJSON *o, const char *path, const char *key, bool allowed,
                          const char *who) {
    if (get(o, key) && !allowed) {
        char p[PATH_BYTES];
        child_path(p, path, key);
        return fail(c, p, "applies to %s options only", who);
    }
    return GP_OK;
}

static gp_status check_catalog_ref(ctx *c, const char *path, const char *ref) {
    const char *a = strchr(ref, '/');
    const char *b = a ? strchr(a + 1, '/') : NULL;
    if (!a || !b || a == ref || b == a + 1 || b[1] == '\0' || strchr(b + 1, '/'))
        return fail(c, path, "must be \"provider/instance/region\" (got \"%s\")", ref);
    return GP_OK;
}

/* An option's "pricing": on_demand, spot, committed or per_unit. */
static gp_status option_pricing(ctx *c, const cJSON *o, const char *path, gp_option *opt) {
    char p[PATH_BYTES];
    child_path(p, path, "pricing");
    const cJSON *pr = get(o, "pricing");
    if (!pr)
        return fail(c, p, "required key is missing");
    if (!cJSON_IsString(pr) || !pr->valuestring)
        return fail(c, p, "must be \"on_demand\", \"spot\", \"committed\" or \"per_unit\"");
    if (strcmp(pr->valuestring, "on_demand") == 0)
        opt->pricing = GP_ON_DEMAND;
    else if (strcmp(pr->valuestring, "spot") == 0)
        opt->pricing = GP_SPOT;
    else if (strcmp(pr->valuestring, "committed") == 0)
        opt->pricing = GP_COMMITTED;
    else if (strcmp(pr->valuestring, "per_unit") == 0)
        opt->pricing = GP_PER_UNIT;
    else
        return fail(c, p,
                    "must be \"on_demand\", \"spot\", \"committed\" or \"per_unit\" (got "
                    "\"%s\")",
                    pr->valuestring);
    return GP_OK;
}

/* Which keys an option of its pricing may have: one clear error for a key that does not
 * apply, and the catalog reference when given. */
static gp_status option_keys_apply(ctx *c, const cJSON *o, const char *path, const gp_scenario *s,
                                   gp_option *opt) {
    char p[PATH_BYTES];
    child_path(p, path, "pricing");
    bool committed = opt->pricing == GP_COMMITTED, spot = opt->pricing == GP_SPOT;
    bool per_unit = opt->pricing == GP_PER_UNIT;
    /* An API bills the work itself: no GPUs, no instances, no catalog entry (revision 2.1). */
    if (per_unit && !s->work_mode)
        return fail(c, p,
                    "per_unit needs demand in work (demand.work_per_month): it prices units of "
                    "work, not GPU-hours");
    if (only_for(c, o, path, "catalog", !per_unit, "on_demand, spot and committed") ||
        only_for(c, o, path, "gpus_per_instance", !per_unit, "on_demand, spot and committed") ||
        only_for(c, o, path, "hourly", !per_unit, "on_demand, spot and committed") ||
        only_for(c, o, path, "price_per_unit", per_unit, "per_unit") ||
        only_for(c, o, path, "price_per_input_unit", per_unit, "per_unit") ||
        only_for(c, o, path, "input_units_per_unit", per_unit, "per_unit"))
        return c->err->code;
    if (per_unit && get(o, "work_per_gpu_hour")) {
        child_path(p, path, "work_per_gpu_hour");
        return fail(c, p, "a per_unit option's unit is the demand's unit of work; remove it");
    }
    const cJSON *cat = get(o, "catalog");
    if (cat) {
        child_path(p, path, "catalog");
        if (string(c, o, path, "catalog", true, false, opt->catalog, sizeof opt->catalog) ||
            check_catalog_ref(c, p, opt->catalog))
            return c->err->code;
        opt->has_catalog = true;
        static const char *const priced[] = {"hourly", "upfront", "gpus_per_instance"};
        for (int i = 0; i < 3; i++) {
            if (get(o, priced[i])) {
                child_path(p, path, priced[i]);
                return fail(c, p, "comes from the catalog entry; remove it or the catalog key");
            }
        }
    }
    if (only_for(c, o, path, "upfront", committed, "committed") ||
        only_for(c, o, path, "term_months", committed, "committed") ||
        only_for(c, o, path, "purchase", committed && cat, "committed catalog") ||
        only_for(c, o, path, "idle_overhead", !committed && !per_unit, "on_demand and spot") ||
        only_for(c, o, path, "interruptions_per_hour", spot, "spot") ||
        only_for(c, o, path, "checkpoint_interval_h", spot, "spot") ||
        only_for(c, o, path, "restart_h", spot, "spot") ||
        only_for(c, o, path, "base_gpus", committed, "committed") ||
        only_for(c, o, path, "burst", committed && get(o, "base_gpus"),
                 "committed options with base_gpus") ||
        only_for(c, o, path, "work_per_gpu_hour", s->work_mode,
                 "work-mode (demand.work_per_month)"))
        return c->err->code;
    return GP_OK;
}

/* The option's numbers and its burst's name, each checked against its range. */
static gp_status option_numbers(ctx *c, const cJSON *o, const char *path, const gp_scenario *s,
                                gp_option *opt) {
    bool per_unit = opt->pricing == GP_PER_UNIT;
    const cJSON *cat = get(o, "catalog");
    if (integer(c, o, path, "gpus_per_instance", 1, 576, !cat && !per_unit,
                &opt->gpus_per_instance) ||
        money(c, o, path, "hourly", !cat && !per_unit, &opt->hourly) ||
        money(c, o, path, "price_per_unit", per_unit, &opt->price_per_unit) ||
        money(c, o, path, "price_per_input_unit", false, &opt->price_per_input_unit) ||
        num(c, o, path, "input_units_per_unit", 0, 1000000, CLOSED, false,
            &opt->input_units_per_unit) ||
        money(c, o, path, "upfront", false, &opt->upfront) ||
        integer(c, o, path, "term_months", 1, 120, false, &opt->term_months) ||
        num(c, o, path, "idle_overhead", 0, 10, CLOSED, false, &opt->idle_overhead) ||
        num(c, o, path, "interruptions_per_hour", 0, 10, CLOSED, false,
            &opt->interruptions_per_hour) ||
        num(c, o, path, "checkpoint_interval_h", 0, 1000, OPEN_LO, false,
            &opt->checkpoint_interval_h) ||
        num(c, o, path, "restart_h", 0, 1000, CLOSED, false, &opt->restart_h) ||
        num(c, o, path, "storage_gb", 0, 0, NO_HI, false, &opt->storage_gb) ||
        money(c, o, path, "storage_per_gb_month", false, &opt->storage_per_gb_month) ||
        num(c, o, path, "egress_gb_per_month", 0, 0, NO_HI, false, &opt->egress_gb_per_month) ||
        money(c, o, path, "egress_per_gb", false, &opt->egress_per_gb) ||
        num(c, o, path, "support_pct", 0, 1, CLOSED, false, &opt->support_pct) ||
        num(c, o, path, "price_trend_per_year", -0.9, 1, CLOSED, false,
            &opt->price_trend_per_year) ||
        num(c, o, path, "work_per_gpu_hour", 0, 0, OPEN_LO | NO_HI, s->work_mode && !per_unit,
            &opt->work_per_gpu_hour) ||
        integer(c, o, path, "base_gpus", 1, 1000000, false, &opt->base_gpus) ||
        string(c, o, path, "burst", false, true, NULL, 0))
        return c->err->code;
    return GP_OK;
}

/* A catalog commitment's term and purchase option. */
static gp_status option_commitment(ctx *c, const cJSON *o, const char *path, gp_option *opt) {
    char p[PATH_BYTES];
    const cJSON *cat = get(o, "catalog");
    bool committed = opt->pricing == GP_COMMITTED;
    if (cat && committed && opt->term_months != 12 && opt->term_months != 36) {
        child_path(p, path, "term_months");
        return fail(c, p, "a catalog commitment is 12 or 36 months (got %d)", opt->term_months);
    }
    const cJSON *pu = get(o, "purchase");
    if (pu) {
        child_path(p, path, "purchase");
        if (!cJSON_IsString(pu) || !pu->valuestring)
            return fail(c, p, "must be \"no_upfront\", \"partial_upfront\" or \"all_upfront\"");
        if (strcmp(pu->valuestring, "no_upfront") == 0)
            opt->purchase = GP_NO_UPFRONT;
        else if (strcmp(pu->valuestring, "partial_upfront") == 0)
            opt->purchase = GP_PARTIAL_UPFRONT;
        else if (strcmp(pu->valuestring, "all_upfront") == 0)
            opt->purchase = GP_ALL_UPFRONT;
        else
            return fail(c, p, "must be \"no_upfront\", \"partial_upfront\" or \"all_upfront\"");
    }
    return GP_OK;
}

static gp_status parse_option(ctx *c, const cJSON *o, const char *path, const gp_scenario *s,
                              int index, gp_option *opt) {
    static const char *const keys[] = {"name",
                                       "provider",
                                       "instance",
                                       "region",
                                       "pricing",
                                       "gpus_per_instance",
                                       "hourly",
                                       "upfront",
                                       "term_months",
                                       "purchase",
                                       "idle_overhead",
                                       "interruptions_per_hour",
                                       "checkpoint_interval_h",
                                       "restart_h",
                                       "storage_gb",
                                       "storage_per_gb_month",
                                       "egress_gb_per_month",
                                       "egress_per_gb",
                                       "support_pct",
                                       "catalog",
                                       "price_trend_per_year",
                                       "work_per_gpu_hour",
                                       "base_gpus",
                                       "burst",
                                       "price_per_unit",
                                       "price_per_input_unit",
                                       "input_units_per_unit"};
    gp_option_defaults(opt);
    if (want_object(c, o, path) || check_keys(c, o, path, keys, 27) ||
        string(c, o, path, "name", true, true, opt->name, sizeof opt->name) ||
        string(c, o, path, "provider", false, false, NULL, 0) ||
        string(c, o, path, "instance", false, false, NULL, 0) ||
        string(c, o, path, "region", false, false, NULL, 0))
        return c->err->code;
    char p[PATH_BYTES];
    child_path(p, path, "name");
    if (strcmp(opt->name, "self_hosted") == 0)
        return fail(c, p, "\"self_hosted\" is reserved for the owned fleet");
    if (option_pricing(c, o, path, opt) || option_keys_apply(c, o, path, s, opt) ||
        option_numbers(c, o, path, s, opt))
        return c->err->code;
    gp_option_per_unit_sync(opt);
    opt->has_base_gpus = get(o, "base_gpus") != NULL;
    opt->has_interruptions_per_hour = get(o, "interruptions_per_hour") != NULL;
    const cJSON *burst = get(o, "burst");
    c->burst[index] = burst ? burst->valuestring : NULL;
    return option_commitment(c, o, path, opt);
}

static gp_status parse_options(ctx *c, const cJSON *arr, const char *path, gp_scenario *s) {
    if (!cJSON_IsArray(arr))
        return fail(c, path, "must be a list of options");
    int n = cJSON_GetArraySize(arr);
    if (n > GP_MAX_OPTIONS)
        return fail(c, path, "at most %d options (got %d)", GP_MAX_OPTIONS, n);
    int i = 0;
    for (const cJSON *it = arr->child; it; it = it->next, i++) {
        char ip[PATH_BYTES];
        index_path(ip, path, i);
        if (parse_option(c, it, ip, s, i, &s->options[i]))
            return c->err->code;
        for (int j = 0; j < i; j++) {
            if (strcmp(s->options[j].name, s->options[i].name) == 0) {
                char p[PATH_BYTES];
                child_path(p, ip, "name");
                return fail(c, p, "repeats the name of option %d", j);
            }
        }
    }
    s->n_options = n;
    return GP_OK;
}

/* ---- the document ----------------------------------------------------------------------- */

/* The option named name that can rent by the hour (on_demand or spot), else -1 with err. */
static int rented_option(ctx *c, const gp_scenario *s, const char *path, const char *name) {
    for (int i = 0; i < s->n_options; i++) {
        if (strcmp(s->options[i].name, name) != 0)
            continue;
        if (s->options[i].pricing == GP_COMMITTED) {
            fail(c, path,
                 "names \"%s\", a committed option; it must be on_demand, spot or per_unit", name);
            return -1;
        }
        return i;
    }
    fail(c, path, "names no option (\"%s\")", name);
    return -1;
}

static gp_status resolve_names(ctx *c, gp_scenario *s) {
    if (c->bridge && (s->bridge = rented_option(c, s, "$.self_hosted.bridge", c->bridge)) < 0)
        return c->err->code;
    for (int i = 0; i < s->n_options; i++) {
        if (!c->burst[i])
            continue;
        char p[PATH_BYTES];
        snprintf(p, sizeof p, "$.cloud_options[%d].burst", i);
        if ((s->options[i].burst = rented_option(c, s, p, c->burst[i])) < 0)
            return c->err->code;
    }
    return GP_OK;
}

static gp_status parse_doc(ctx *c, const cJSON *doc, gp_scenario *s) {
    static const char *const keys[] = {
        "name",     "currency", "horizon_months", "discount_rate", "notes",
        "measured", "demand",   "self_hosted",    "cloud_options", "start_date"};
    const char *path = "$";
    if (want_object(c, doc, path) || check_keys(c, doc, path, keys, 10) ||
        string(c, doc, path, "name", true, true, s->name, sizeof s->name) ||
        string(c, doc, path, "currency", false, false, s->currency, sizeof s->currency) ||
        integer(c, doc, path, "horizon_months", 1, GP_MAX_MONTHS, true, &s->horizon_months) ||
        num(c, doc, path, "discount_rate", 0, 1, CLOSED, false, &s->discount_rate) ||
        string(c, doc, path, "notes", false, false, NULL, 0) ||
        string(c, doc, path, "start_date", false, false, s->start_date, sizeof s->start_date))
        return c->err->code;
    if (get(doc, "start_date")) {
        if (!valid_date(s->start_date))
            return fail(c, "$.start_date",
                        "must be a date \"YYYY-MM-DD\" of the calendar, years 0001..9999");
        s->has_start_date = true;
    }
    const cJSON *cur = get(doc, "currency");
    if (cur) {
        bool ok = strlen(s->currency) == 3;
        for (int i = 0; ok && i < 3; i++)
            ok = s->currency[i] >= 'A' && s->currency[i] <= 'Z';
        if (!ok)
            return fail(c, "$.currency", "must be 3 upper-case letters (ISO 4217)");
    }
    const cJSON *m = get(doc, "measured");
    if (m && want_object(c, m, "$.measured"))
        return c->err->code;

    const cJSON *d = get(doc, "demand");
    if (!d)
        return fail(c, "$.demand", "required key is missing");
    if (parse_demand(c, d, "$.demand", s))
        return c->err->code;

    const cJSON *sh = get(doc, "self_hosted");
    if (!sh)
        return fail(c, "$.self_hosted", "required key is missing");
    if (parse_self_hosted(c, sh, "$.self_hosted", s))
        return c->err->code;

    const cJSON *opts = get(doc, "cloud_options");
    if (opts && parse_options(c, opts, "$.cloud_options", s))
        return c->err->code;
    return resolve_names(c, s);
}

gp_status gp_scenario_from_cjson(const cJSON *doc, const char *origin, gp_scenario *s,
                                 gp_err *err) {
    gp_err local;
    ctx c = {origin ? origin : "<scenario>", err ? err : &local, NULL, {NULL}};
    c.err->code = GP_OK;
    gp_scenario_defaults(s);
    if (parse_doc(&c, doc, s)) {
        memset(s, 0, sizeof *s);
        return c.err->code;
    }
    return GP_OK;
}

static void line_col(const char *buf, size_t off, int *line, int *col) {
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* cJSON turns "\u0000" into a NUL that silently truncates the string: refuse it up front. */
static const char *find_escaped_nul(const char *buf, size_t len) {
    for (size_t i = 0; i + 6 <= len; i++) {
        if (buf[i] != '\\')
            continue;
        if (buf[i + 1] == 'u' && buf[i + 2] == '0' && buf[i + 3] == '0' && buf[i + 4] == '0' &&
            buf[i + 5] == '0')
            return buf + i;
        i++; /* skip the escaped character, so "\\u0000" is not taken for an escape */
    }
    return NULL;
}

gp_status gp_scenario_parse(const char *buf, size_t len, const char *origin, gp_scenario *s,
                            cJSON **tree, gp_err *err) {
    origin = origin ? origin : "<scenario>";
    if (tree)
        *tree = NULL;
    memset(s, 0, sizeof *s);
    if (len > GP_SCENARIO_MAX_BYTES)
        return gp_errorf(err, GP_E_LIMIT, origin, "scenario is larger than %u bytes",
                         GP_SCENARIO_MAX_BYTES);
    char where[256];
    int line, col;
    const char *nul = memchr(buf, '\0', len);
    if (!nul)
        nul = find_escaped_nul(buf, len);
    if (nul) {
        line_col(buf, (size_t)(nul - buf), &line, &col);
        snprintf(where, sizeof where, "%s:%d:%d", origin, line, col);
        return gp_errorf(err, GP_E_INPUT, where, "NUL characters are not allowed");
    }
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
    if (doc && end) {
        /* cJSON's own trailing check wants a NUL inside len; do it here instead. */
        while (end < buf + len && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n'))
            end++;
        if (end < buf + len) {
            cJSON_Delete(doc);
            line_col(buf, (size_t)(end - buf), &line, &col);
            snprintf(where, sizeof where, "%s:%d:%d", origin, line, col);
            return gp_errorf(err, GP_E_INPUT, where, "unexpected text after the JSON document");
        }
    }
    if (!doc) {
        size_t off = end && end >= buf && end <= buf + len ? (size_t)(end - buf) : 0;
        line_col(buf, off, &line, &col);
        snprintf(where, sizeof where, "%s:%d:%d", origin, line, col);
        return gp_errorf(err, GP_E_INPUT, where, "malformed JSON");
    }
    gp_status st = gp_scenario_from_cjson(doc, origin, s, err);
    if (st != GP_OK || !tree)
        cJSON_Delete(doc);
    else
        *tree = doc;
    return st;
}
