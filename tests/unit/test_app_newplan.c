/* The new-plan service (app_newplan.h) on the bundled catalog, called as the TUI calls it. */
#define _GNU_SOURCE /* nftw (session_fixture.h) */
#include <stdlib.h>
#include <string.h>

#include "gpuplan/app_newplan.h"
#include "gpuplan/app_scenario.h"
#include "gpuplan/parse.h"
#include "testutil.h"

#include "session_fixture.h"

typedef struct seen {
    int n;
    bool h100;
    gp_newplan_cloud cloud[64];
    gp_hw_price hw[64];
    char source[256];
    bool tariff, state;
    char tariff_name[96];
} seen;

static int take_gpu(const gp_newplan_gpu *g, void *arg) {
    seen *s = arg;
    s->n++;
    assert_true(g->tdp_w > 0);
    assert_true(g->offers > 0);
    assert_true(g->cheapest_per_gpu_hour > 0);
    s->h100 = s->h100 || !strcmp(g->gpu, "H100");
    return 0;
}

static int take_cloud(const gp_newplan_cloud *c, void *arg) {
    seen *s = arg;
    /* One pick per provider and kind (and term). */
    for (int i = 0; i < s->n; i++)
        assert_false(!strcmp(s->cloud[i].provider, c->provider) &&
                     s->cloud[i].pricing == c->pricing &&
                     s->cloud[i].term_months == c->term_months);
    if (s->n < 64)
        s->cloud[s->n++] = *c;
    return 0;
}

static int take_hw(const gp_hw_price *h, const char *source, void *arg) {
    seen *s = arg;
    assert_string_equal(h->gpu, "H100");
    assert_true(h->gpus >= 1);
    if (s->n < 64) {
        s->hw[s->n++] = *h;
        snprintf(s->source, sizeof s->source, "%s", source);
    }
    return 0;
}

static int take_power(const gp_newplan_power *p, void *arg) {
    seen *s = arg;
    assert_true(p->price_per_kwh > 0);
    if (p->tariff && !s->tariff)
        snprintf(s->tariff_name, sizeof s->tariff_name, "%s", p->name);
    assert_false(p->tariff && s->state); /* presets first */
    s->tariff = s->tariff || p->tariff;
    s->state = s->state || !p->tariff;
    return 0;
}

static void test_choices_and_build(void **state) {
    fixture *f = *state;
    gp_session *ses = &f->ses;
    gp_err err;
    char today[11];
    gp_today(today);

    seen g = {0};
    assert_int_equal(gp_newplan_gpus(ses, today, take_gpu, &g, &err), GP_OK);
    assert_true(g.n > 3);
    assert_true(g.h100);

    seen c = {0}, h = {0}, p = {0};
    assert_int_equal(gp_newplan_cloud_choices(ses, "H100", today, take_cloud, &c, &err), GP_OK);
    assert_true(c.n >= 2);
    assert_int_equal(gp_newplan_hardware(ses, "H100", take_hw, &h, &err), GP_OK);
    assert_true(h.n >= 1);
    assert_int_equal(gp_newplan_power_choices(ses, take_power, &p, &err), GP_OK);
    assert_true(p.tariff && p.state);

    /* The oldest purchase price and the last two offers, with a tariff preset. */
    gp_newplan_request rq = {0};
    gp_draft_defaults(&rq.draft, today);
    rq.draft.gpu = "H100";
    rq.draft.gpus = 16;
    rq.draft.tariff = p.tariff_name;
    rq.draft.name = "sixteen";
    rq.hardware = &h.hw[0];
    rq.hardware_source = h.source;
    rq.cloud = &c.cloud[c.n - 2];
    rq.n_cloud = 2;
    cJSON *doc = NULL;
    assert_int_equal(gp_newplan_build(ses, &rq, &doc, &err), GP_OK);
    cJSON *sh = cJSON_GetObjectItemCaseSensitive(doc, "self_hosted");
    assert_close(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(sh, "server_price")),
                 round(h.hw[0].price_usd / h.hw[0].gpus * 8 * 100) / 100, REL);
    const char *notes = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "notes"));
    assert_non_null(strstr(notes, h.hw[0].item));
    assert_non_null(strstr(notes, h.hw[0].date));
    cJSON *opts = cJSON_GetObjectItemCaseSensitive(doc, "cloud_options");
    assert_int_equal(cJSON_GetArraySize(opts), 2);
    assert_string_equal(
        cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(opts, 1), "name")),
        c.cloud[c.n - 1].label);
    /* It loads and evaluates like any stored scenario. */
    gp_loaded sc;
    assert_int_equal(gp_load_scenario_doc(ses, doc, "t", today, &sc, &err), GP_OK);
    assert_int_equal(sc.s->gpus, 16);
    assert_int_equal(sc.s->n_options, 2);
    gp_loaded_done(&sc);
    cJSON_Delete(doc);

    /* One source of truth: the offers checked to begin with are those `scenario draft` picks
     * (marked drafted by the same rule), and a plan of them says the draft's rule. */
    gp_newplan_cloud *list = malloc(sizeof *list * (size_t)c.n);
    memcpy(list, c.cloud, sizeof *list * (size_t)c.n);
    int n = c.n;
    assert_int_equal(gp_newplan_mark_drafted(ses, &rq.draft, &list, &n, &err), GP_OK);
    gp_draft_offer picks[3];
    int np;
    assert_int_equal(gp_draft_picks(ses, &rq.draft, picks, &np, &err), GP_OK);
    assert_true(np >= 1);
    gp_newplan_cloud chosen[64], odd[64];
    int nc = 0, no = 0;
    for (int i = 0; i < n; i++) {
        if (list[i].drafted)
            chosen[nc++] = list[i];
        else if (list[i].gpus < 8 || !strcmp(list[i].provider, "vast"))
            odd[no++] = list[i];
    }
    assert_int_equal(nc, np);
    for (int k = 0; k < np; k++) {
        bool found = false;
        for (int i = 0; i < nc; i++)
            found = found || !strcmp(chosen[i].catalog, picks[k].catalog);
        assert_true(found);
    }
    rq.hardware = NULL;
    rq.cloud = chosen;
    rq.n_cloud = nc;
    assert_int_equal(gp_newplan_build(ses, &rq, &doc, &err), GP_OK);
    notes = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "notes"));
    assert_non_null(strstr(notes, "with at least 8 GPUs an instance"));
    assert_non_null(strstr(notes, "marketplaces left out"));
    cJSON_Delete(doc);
    /* Chosen by hand beside them: a 1-GPU instance or a marketplace offer. The notes then say
     * so, offer by offer, and never claim the draft's rule. */
    assert_true(no >= 1);
    chosen[nc++] = odd[0];
    rq.n_cloud = nc;
    assert_int_equal(gp_newplan_build(ses, &rq, &doc, &err), GP_OK);
    notes = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "notes"));
    assert_null(strstr(notes, "with at least 8 GPUs an instance"));
    assert_null(strstr(notes, "marketplaces left out"));
    assert_non_null(strstr(notes, "Cloud offers: chosen by hand"));
    char want[400];
    snprintf(want, sizeof want, "\"%s\" (%g GPU%s an instance, %s", odd[0].label, odd[0].gpus,
             odd[0].gpus == 1 ? "" : "s",
             odd[0].gpus < 8 ? "fewer GPUs an instance than 8" : "a marketplace host's box");
    assert_non_null(strstr(notes, want));
    cJSON_Delete(doc);
    free(list);

    /* No GPU the catalog lacks. */
    rq.draft.gpu = "NOSUCHGPU";
    rq.hardware = NULL, rq.n_cloud = 0;
    assert_int_equal(gp_newplan_build(ses, &rq, &doc, &err), GP_E_INPUT);
    assert_null(doc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_choices_and_build, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
