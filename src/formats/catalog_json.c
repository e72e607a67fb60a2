/* JSON catalogs: the project's own, ec2instances.info, the AWS Price List offer file and the
 * GCP Cloud Billing SKU list, a detector and a parser each for catalog.c's importer table.
 * Parsed whole with cJSON (inputs are capped by the caller); uses catalog_util.c, never
 * catalog.c. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_int.h"
#include "catalog_util.h"

static const char *str(const cJSON *obj, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : NULL;
}

/* A number given as a JSON number or as a string of one ("21.957642"). */
static bool num_of(const cJSON *v, double *out) {
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble)) {
        *out = v->valuedouble;
        return true;
    }
    if (cJSON_IsString(v) && v->valuestring)
        return gp_parse_number(v->valuestring, strlen(v->valuestring), out);
    return false;
}

static bool valid_currency(const char *c) {
    return c && strlen(c) == 3 && isupper((unsigned char)c[0]) && isupper((unsigned char)c[1]) &&
           isupper((unsigned char)c[2]);
}

static bool is_date(const char *s) {
    if (!s || strlen(s) < 10)
        return false;
    for (int i = 0; i < 10; i++)
        if (i == 4 || i == 7 ? s[i] != '-' : !isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* A detector's first look: the input opens a JSON object or array. */
static bool json_start(const gp_catalog_head *h) {
    return h->p < h->end && (*h->p == '{' || *h->p == '[');
}

/* ---- gpuplan's own catalog --------------------------------------------------------------- */

bool gp_detect_gpuplan_catalog(const gp_catalog_head *h) {
    return json_start(h) && strstr(h->first, "\"gpuplan-catalog\"");
}

/* Price p of an offer into x (the offer's record, copied): its kind and the kind's fields;
 * false when it is skipped (said in out). */
static bool gpuplan_price(const cJSON *p, const char *where, gp_catalog_batch *out,
                          gp_price_rec *x) {
    const char *kind = str(p, "pricing"), *purchase = str(p, "purchase");
    if (!num_of(cJSON_GetObjectItemCaseSensitive(p, "hourly"), &x->hourly) || x->hourly < 0) {
        gp_catalog_skip(out, where, "a price that is not a number >= 0");
        return false;
    }
    if (kind && strcmp(kind, "on_demand") == 0) {
        x->pricing = GP_ON_DEMAND;
    } else if (kind && strcmp(kind, "spot") == 0) {
        x->pricing = GP_SPOT;
        x->has_range = num_of(cJSON_GetObjectItemCaseSensitive(p, "low"), &x->low) &&
                       num_of(cJSON_GetObjectItemCaseSensitive(p, "high"), &x->high);
        const char *band = str(p, "interruption_band");
        double per_hour;
        if (band && !gp_spot_band_interruptions(band, &per_hour)) {
            gp_catalog_skip(out, where, "an unknown interruption band");
            return false;
        }
        snprintf(x->interruption_band, sizeof x->interruption_band, "%s", band ? band : "");
    } else if (kind && strcmp(kind, "committed") == 0) {
        double t = 0;
        x->pricing = GP_COMMITTED;
        if (!num_of(cJSON_GetObjectItemCaseSensitive(p, "term_months"), &t) ||
            (t != 12 && t != 36)) {
            gp_catalog_skip(out, where, "a commitment that is not 12 or 36 months");
            return false;
        }
        x->term_months = (int)t;
        if (!purchase || strcmp(purchase, "no_upfront") == 0)
            x->purchase = GP_NO_UPFRONT;
        else if (strcmp(purchase, "partial_upfront") == 0)
            x->purchase = GP_PARTIAL_UPFRONT;
        else if (strcmp(purchase, "all_upfront") == 0)
            x->purchase = GP_ALL_UPFRONT;
        else {
            gp_catalog_skip(out, where, "an unknown purchase option");
            return false;
        }
    } else {
        gp_catalog_skip(out, where, "an unknown pricing kind");
        return false;
    }
    return true;
}

gp_status gp_parse_gpuplan_catalog(const char *buf, size_t len, const char *origin,
                                   const char *provider, gp_catalog_batch *out, gp_err *err) {
    (void)provider; /* each offer names its own */
    cJSON *doc;
    if (gp_catalog_json(buf, len, origin, &doc, err))
        return err->code;
    gp_status st = GP_OK;
    const char *fmt = str(doc, "format");
    const cJSON *offers = cJSON_GetObjectItemCaseSensitive(doc, "offers");
    if (!cJSON_IsObject(doc) || !fmt || strcmp(fmt, "gpuplan-catalog") != 0 ||
        !cJSON_IsArray(offers)) {
        st = gp_errorf(err, GP_E_INPUT, origin,
                       "not a gpuplan catalog (needs \"format\": \"gpuplan-catalog\" and "
                       "\"offers\": [...])");
        goto done;
    }
    const char *eff = str(doc, "effective_from");
    if (eff && is_date(eff))
        snprintf(out->effective_from, sizeof out->effective_from, "%.10s", eff);
    int i = 0;
    for (const cJSON *o = offers->child; o && st == GP_OK; o = o->next, i++) {
        char where[48];
        snprintf(where, sizeof where, "offers[%d]", i);
        gp_price_rec r = {0};
        r.where = i;
        const char *prov = str(o, "provider"), *inst = str(o, "instance"),
                   *region = str(o, "region"), *gpu = str(o, "gpu"), *cur = str(o, "currency");
        const cJSON *prices = cJSON_GetObjectItemCaseSensitive(o, "prices");
        if (!prov || !inst || !region || !gpu || !cJSON_IsArray(prices) ||
            !num_of(cJSON_GetObjectItemCaseSensitive(o, "gpu_count"), &r.gpu_count) ||
            r.gpu_count <= 0) {
            gp_catalog_skip(out, where,
                            "an offer without provider, instance, region, gpu, "
                            "gpu_count > 0 or prices");
            continue;
        }
        if (cur && !valid_currency(cur)) {
            gp_catalog_skip(out, where, "an unknown currency");
            continue;
        }
        if (!gp_catalog_copy(r.provider, sizeof r.provider, prov, strlen(prov)) ||
            !gp_catalog_copy(r.instance, sizeof r.instance, inst, strlen(inst)) ||
            !gp_catalog_copy(r.region, sizeof r.region, region, strlen(region)) || !*prov ||
            !*inst || !*region) {
            gp_catalog_skip(out, where, "a provider, instance or region empty or too long");
            continue;
        }
        gp_gpu_normalize(gpu, 0, r.gpu, sizeof r.gpu);
        num_of(cJSON_GetObjectItemCaseSensitive(o, "vcpus"), &r.vcpus);
        num_of(cJSON_GetObjectItemCaseSensitive(o, "memory_gib"), &r.memory_gib);
        snprintf(r.currency, sizeof r.currency, "%s", cur ? cur : "USD");
        for (const cJSON *p = prices->child; p && st == GP_OK; p = p->next) {
            gp_price_rec x = r;
            if (gpuplan_price(p, where, out, &x))
                st = gp_catalog_batch_add(out, &x, err);
        }
        if (st == GP_OK && cJSON_GetArraySize(prices) == 0) {
            /* "prices": [] is a shape without a price yet: the offer is known, unpriced. */
            r.shape_only = true;
            st = gp_catalog_batch_add(out, &r, err);
        }
    }
done:
    cJSON_Delete(doc);
    return st;
}

/* ---- ec2instances.info ------------------------------------------------------------------- */

static gp_status ec2_price(gp_catalog_batch *out, gp_price_rec *r, const cJSON *v,
                           const char *where, gp_err *err) {
    if (!v || (cJSON_IsString(v) && (!*v->valuestring || !strcmp(v->valuestring, "N/A"))))
        return GP_OK; /* no price for this kind here */
    if (!num_of(v, &r->hourly) || r->hourly < 0) {
        gp_catalog_skip(out, where, "a price that is not a number >= 0");
        return GP_OK;
    }
    if (r->hourly == 0)
        return GP_OK; /* 0 is "no price", never "free" */
    return gp_catalog_batch_add(out, r, err);
}

bool gp_detect_ec2instances(const gp_catalog_head *h) {
    return json_start(h) && *h->p == '[' && strstr(h->first, "\"instance_type\"");
}

/* One region's Linux prices of record r: on demand, spot (the average, with min and max kept
 * beside it) and the standard reservations. */
static gp_status ec2_region(gp_catalog_batch *out, const gp_price_rec *r, const cJSON *linux,
                            const char *where, gp_err *err) {
    gp_status st;
    gp_price_rec x = *r;
    x.pricing = GP_ON_DEMAND;
    st = ec2_price(out, &x, cJSON_GetObjectItemCaseSensitive(linux, "ondemand"), where, err);
    x = *r;
    x.pricing = GP_SPOT;
    x.has_range = num_of(cJSON_GetObjectItemCaseSensitive(linux, "spot_min"), &x.low) &&
                  num_of(cJSON_GetObjectItemCaseSensitive(linux, "spot_max"), &x.high);
    if (st == GP_OK)
        st = ec2_price(out, &x, cJSON_GetObjectItemCaseSensitive(linux, "spot_avg"), where, err);
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(linux, "reserved");
    static const struct {
        const char *key;
        int term;
        gp_purchase purchase;
    } terms[] = {{"yrTerm1Standard.noUpfront", 12, GP_NO_UPFRONT},
                 {"yrTerm1Standard.partialUpfront", 12, GP_PARTIAL_UPFRONT},
                 {"yrTerm1Standard.allUpfront", 12, GP_ALL_UPFRONT},
                 {"yrTerm3Standard.noUpfront", 36, GP_NO_UPFRONT},
                 {"yrTerm3Standard.partialUpfront", 36, GP_PARTIAL_UPFRONT},
                 {"yrTerm3Standard.allUpfront", 36, GP_ALL_UPFRONT}};
    for (size_t t = 0; cJSON_IsObject(res) && st == GP_OK && t < 6; t++) {
        x = *r;
        x.pricing = GP_COMMITTED;
        x.term_months = terms[t].term;
        x.purchase = terms[t].purchase;
        st = ec2_price(out, &x, cJSON_GetObjectItemCaseSensitive(res, terms[t].key), where, err);
    }
    return st;
}

gp_status gp_parse_ec2instances(const char *buf, size_t len, const char *origin,
                                const char *provider, gp_catalog_batch *out, gp_err *err) {
    (void)provider; /* always aws */
    cJSON *doc;
    if (gp_catalog_json(buf, len, origin, &doc, err))
        return err->code;
    gp_status st = GP_OK;
    if (!cJSON_IsArray(doc)) {
        st = gp_errorf(err, GP_E_INPUT, origin,
                       "not an ec2instances.info instances.json (expected a list of instances)");
        goto done;
    }
    snprintf(out->provider, sizeof out->provider, "aws");
    int i = 0;
    for (const cJSON *inst = doc->child; inst && st == GP_OK; inst = inst->next, i++) {
        char where[48];
        snprintf(where, sizeof where, "instance %d", i);
        const char *type = str(inst, "instance_type");
        double gpus = 0, gpu_mem = 0, vcpus = 0, mem = 0;
        if (!cJSON_IsObject(inst) || !type) {
            gp_catalog_skip(out, where, "an instance without instance_type");
            continue;
        }
        num_of(cJSON_GetObjectItemCaseSensitive(inst, "GPU"), &gpus);
        if (!(gpus > 0)) {
            out->ignored++; /* Inferentia, Trainium, FPGA: no GPU */
            continue;
        }
        num_of(cJSON_GetObjectItemCaseSensitive(inst, "GPU_memory"), &gpu_mem);
        num_of(cJSON_GetObjectItemCaseSensitive(inst, "vCPU"), &vcpus);
        num_of(cJSON_GetObjectItemCaseSensitive(inst, "memory"), &mem);
        const char *model = str(inst, "GPU_model");
        if (model && (strstr(model, "Inferentia") || strstr(model, "Trainium") ||
                      strstr(model, "Qualcomm") || strstr(model, "Gaudi"))) {
            out->ignored++; /* AI accelerators that are no GPU */
            continue;
        }
        gp_price_rec r = {0};
        snprintf(r.provider, sizeof r.provider, "aws");
        if (!gp_catalog_copy(r.instance, sizeof r.instance, type, strlen(type))) {
            gp_catalog_skip(out, where, "an instance type too long");
            continue;
        }
        gp_gpu_normalize(model ? model : "unknown", gpu_mem / gpus, r.gpu, sizeof r.gpu);
        r.gpu_count = gpus;
        r.vcpus = vcpus;
        r.memory_gib = mem;
        memcpy(r.currency, "USD", 4);
        r.where = i;
        const cJSON *pricing = cJSON_GetObjectItemCaseSensitive(inst, "pricing");
        if (!cJSON_IsObject(pricing))
            continue;
        for (const cJSON *reg = pricing->child; reg && st == GP_OK; reg = reg->next) {
            const cJSON *linux = cJSON_GetObjectItemCaseSensitive(reg, "linux");
            if (!cJSON_IsObject(linux) ||
                !gp_catalog_copy(r.region, sizeof r.region, reg->string, strlen(reg->string)))
                continue;
            st = ec2_region(out, &r, linux, where, err);
        }
    }
done:
    cJSON_Delete(doc);
    return st;
}

/* ---- AWS Price List offer file ------------------------------------------------------------ */

/* The hourly rate and the upfront fee of one term, in its currency. */
static bool term_rates(const cJSON *term, double *hourly, double *upfront, char *currency) {
    const cJSON *dims = cJSON_GetObjectItemCaseSensitive(term, "priceDimensions");
    *hourly = *upfront = 0;
    currency[0] = '\0';
    bool any = false;
    for (const cJSON *d = dims ? dims->child : NULL; d; d = d->next) {
        const cJSON *ppu = cJSON_GetObjectItemCaseSensitive(d, "pricePerUnit");
        const char *unit = str(d, "unit");
        if (!cJSON_IsObject(ppu) || !ppu->child || !unit)
            return false;
        double v;
        if (!num_of(ppu->child, &v) || v < 0)
            return false;
        snprintf(currency, 4, "%s", ppu->child->string);
        if (strcmp(unit, "Hrs") == 0)
            *hourly += v;
        else if (strcmp(unit, "Quantity") == 0)
            *upfront += v;
        else
            return false;
        any = true;
    }
    return any;
}

bool gp_detect_aws_offer(const gp_catalog_head *h) {
    return json_start(h) &&
           (strstr(h->first, "\"offerCode\"") || strstr(h->first, "\"formatVersion\""));
}

/* Product p of an AWS offer as a price record without its price (r); false when it is not a
 * GPU instance plan compares against (counted as ignored or skipped). */
static bool aws_product(const cJSON *p, int i, const char *where, gp_catalog_batch *out,
                        gp_price_rec *r) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(p, "attributes");
    const char *type = str(a, "instanceType"), *os = str(a, "operatingSystem"),
               *tenancy = str(a, "tenancy"), *sw = str(a, "preInstalledSw"),
               *cap = str(a, "capacitystatus"), *region = str(a, "regionCode"),
               *gpu = str(a, "gpu");
    double gpus = 0;
    /* Linux, shared tenancy, no pre-installed software, ordinary capacity: the price a
     * plan compares against. Everything else is another product. */
    if (!type || !os || strcmp(os, "Linux") || (tenancy && strcmp(tenancy, "Shared")) ||
        (sw && strcmp(sw, "NA")) || (cap && strcmp(cap, "Used")) || !gpu ||
        !gp_parse_number(gpu, strlen(gpu), &gpus) || gpus <= 0) {
        out->ignored++;
        return false;
    }
    memset(r, 0, sizeof *r);
    snprintf(r->provider, sizeof r->provider, "aws");
    if (!region || !gp_catalog_copy(r->region, sizeof r->region, region, strlen(region)) ||
        !gp_catalog_copy(r->instance, sizeof r->instance, type, strlen(type))) {
        gp_catalog_skip(out, where, "a product without a region code");
        return false;
    }
    /* The offer file names no GPU model: keep the instance family's, if known. */
    static const struct {
        const char *prefix, *gpu;
    } fam[] = {{"p5e", "H200"},  {"p5en", "H200"}, {"p5.", "H100"},    {"p4de", "A100-80GB"},
               {"p4d", "A100"},  {"p3", "V100"},   {"p2", "K80"},      {"g6e", "L40S"},
               {"g6", "L4"},     {"g5g", "T4G"},   {"g5", "A10G"},     {"g4dn", "T4"},
               {"g4ad", "V520"}, {"g3", "M60"},    {"p6-b200", "B200"}};
    snprintf(r->gpu, sizeof r->gpu, "UNKNOWN");
    for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++)
        if (strncmp(type, fam[f].prefix, strlen(fam[f].prefix)) == 0) {
            snprintf(r->gpu, sizeof r->gpu, "%s", fam[f].gpu);
            break;
        }
    r->gpu_count = gpus;
    const char *vcpu = str(a, "vcpu"), *mem = str(a, "memory");
    if (vcpu)
        gp_parse_number(vcpu, strlen(vcpu), &r->vcpus);
    if (mem)
        r->memory_gib = strtod(mem, NULL);
    r->where = i;
    return true;
}

/* Product p's terms, each a record from r: on demand, or a standard reservation of 1 or 3
 * years. Terms are classified by their attributes, not by the section they sit in: a term with
 * a lease length is a reservation even when filed under OnDemand. */
static gp_status aws_terms(const cJSON *terms, const cJSON *p, const gp_price_rec *r,
                           const char *where, gp_catalog_batch *out, gp_err *err) {
    gp_status st = GP_OK;
    static const char *const sections[] = {"OnDemand", "Reserved"};
    for (int s = 0; s < 2 && st == GP_OK; s++) {
        const cJSON *sec = cJSON_GetObjectItemCaseSensitive(terms, sections[s]);
        const cJSON *by_sku = sec ? cJSON_GetObjectItemCaseSensitive(sec, p->string) : NULL;
        for (const cJSON *t = by_sku ? by_sku->child : NULL; t && st == GP_OK; t = t->next) {
            gp_price_rec x = *r;
            double hourly, upfront;
            if (!term_rates(t, &hourly, &upfront, x.currency)) {
                gp_catalog_skip(out, where, "a term with unreadable prices");
                continue;
            }
            if (!valid_currency(x.currency)) {
                gp_catalog_skip(out, where, "an unknown currency");
                continue;
            }
            const cJSON *ta = cJSON_GetObjectItemCaseSensitive(t, "termAttributes");
            const char *lease = str(ta, "LeaseContractLength"), *cls = str(ta, "OfferingClass"),
                       *opt = str(ta, "PurchaseOption");
            if (!lease) {
                if (hourly <= 0) {
                    gp_catalog_skip(out, where, "an on-demand price of 0 (no price)");
                    continue;
                }
                x.pricing = GP_ON_DEMAND;
                x.hourly = hourly;
            } else {
                if (!cls || strcmp(cls, "standard") != 0)
                    continue; /* convertible reservations are not compared */
                x.pricing = GP_COMMITTED;
                x.term_months = !strcmp(lease, "1yr") ? 12 : !strcmp(lease, "3yr") ? 36 : 0;
                if (!x.term_months || !opt) {
                    gp_catalog_skip(out, where, "a reservation of unknown length");
                    continue;
                }
                x.purchase = !strcmp(opt, "All Upfront")       ? GP_ALL_UPFRONT
                             : !strcmp(opt, "Partial Upfront") ? GP_PARTIAL_UPFRONT
                                                               : GP_NO_UPFRONT;
                /* The effective hourly rate: the upfront spread over the term's hours;
                 * the fee and the rate are kept apart as well. */
                x.hourly = hourly + upfront / (x.term_months * GP_MONTH_HOURS);
                x.has_split = true;
                x.upfront = upfront;
                x.recurring = hourly;
            }
            st = gp_catalog_batch_add(out, &x, err);
        }
    }
    return st;
}

gp_status gp_parse_aws_offer(const char *buf, size_t len, const char *origin, const char *provider,
                             gp_catalog_batch *out, gp_err *err) {
    (void)provider; /* always aws */
    cJSON *doc;
    if (gp_catalog_json(buf, len, origin, &doc, err))
        return err->code;
    gp_status st = GP_OK;
    const cJSON *products = cJSON_GetObjectItemCaseSensitive(doc, "products");
    const cJSON *terms = cJSON_GetObjectItemCaseSensitive(doc, "terms");
    if (!cJSON_IsObject(products) || !cJSON_IsObject(terms)) {
        st = gp_errorf(err, GP_E_INPUT, origin,
                       "not an AWS Price List offer file (needs \"products\" and \"terms\")");
        goto done;
    }
    snprintf(out->provider, sizeof out->provider, "aws");
    const char *pub = str(doc, "publicationDate");
    if (is_date(pub))
        snprintf(out->effective_from, sizeof out->effective_from, "%.10s", pub);
    int i = 0;
    for (const cJSON *p = products->child; p && st == GP_OK; p = p->next, i++) {
        char where[64];
        snprintf(where, sizeof where, "product %.40s", p->string);
        gp_price_rec r;
        if (!aws_product(p, i, where, out, &r))
            continue;
        st = aws_terms(terms, p, &r, where, out, err);
    }
done:
    cJSON_Delete(doc);
    return st;
}

/* ---- GCP Cloud Billing SKUs -------------------------------------------------------------- */

bool gp_detect_gcp_skus(const gp_catalog_head *h) {
    return json_start(h) && (strstr(h->first, "\"skus\"") || strstr(h->first, "\"skuId\""));
}

/* A GPU SKU's hourly price and currency into r (and the offer's effective date into out);
 * false when the SKU is skipped (said in out) or priced 0. */
static bool gcp_sku_price(const cJSON *sku, const char *where, gp_catalog_batch *out,
                          gp_price_rec *r) {
    const cJSON *pi = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(sku, "pricingInfo"), 0);
    const cJSON *expr = cJSON_GetObjectItemCaseSensitive(pi, "pricingExpression");
    const char *unit = str(expr, "usageUnit");
    const cJSON *rates = cJSON_GetObjectItemCaseSensitive(expr, "tieredRates");
    const cJSON *rate = cJSON_GetArrayItem(rates, cJSON_GetArraySize(rates) - 1);
    const cJSON *up = cJSON_GetObjectItemCaseSensitive(rate, "unitPrice");
    const char *cur = str(up, "currencyCode");
    double units = 0, nanos = 0;
    if (!unit || strcmp(unit, "h") != 0 || !up ||
        !num_of(cJSON_GetObjectItemCaseSensitive(up, "units"), &units) ||
        !num_of(cJSON_GetObjectItemCaseSensitive(up, "nanos"), &nanos) || units < 0 || nanos < 0) {
        gp_catalog_skip(out, where, "a price that is not an hourly amount >= 0");
        return false;
    }
    if (!valid_currency(cur)) {
        gp_catalog_skip(out, where, "an unknown currency");
        return false;
    }
    snprintf(r->currency, sizeof r->currency, "%s", cur);
    r->hourly = units + nanos * 1e-9;
    if (r->hourly == 0)
        return false;
    const char *eff = str(pi, "effectiveTime");
    if (!eff)
        eff = str(pi, "EffectiveTime");
    if (is_date(eff) && strncmp(eff, out->effective_from, 10) > 0)
        snprintf(out->effective_from, sizeof out->effective_from, "%.10s", eff);
    return true;
}

gp_status gp_parse_gcp_skus(const char *buf, size_t len, const char *origin, const char *provider,
                            gp_catalog_batch *out, gp_err *err) {
    (void)provider; /* always gcp */
    cJSON *doc;
    if (gp_catalog_json(buf, len, origin, &doc, err))
        return err->code;
    gp_status st = GP_OK;
    const cJSON *skus = cJSON_GetObjectItemCaseSensitive(doc, "skus");
    if (!cJSON_IsArray(skus)) {
        st = gp_errorf(err, GP_E_INPUT, origin, "not a Cloud Billing SKU list (needs \"skus\")");
        goto done;
    }
    snprintf(out->provider, sizeof out->provider, "gcp");
    int i = 0;
    for (const cJSON *sku = skus->child; sku && st == GP_OK; sku = sku->next, i++) {
        char where[48];
        snprintf(where, sizeof where, "skus[%d]", i);
        const cJSON *cat = cJSON_GetObjectItemCaseSensitive(sku, "category");
        const char *group = str(cat, "resourceGroup"), *usage = str(cat, "usageType"),
                   *desc = str(sku, "description");
        if (!group || strcmp(group, "GPU") != 0 || !desc) {
            out->ignored++; /* cores, memory, disks: not GPU prices */
            continue;
        }
        gp_price_rec r = {0};
        snprintf(r.provider, sizeof r.provider, "gcp");
        if (!usage || !strcmp(usage, "OnDemand")) {
            r.pricing = GP_ON_DEMAND;
        } else if (!strcmp(usage, "Preemptible")) {
            r.pricing = GP_SPOT;
        } else if (!strcmp(usage, "Commit1Yr") || !strcmp(usage, "Commit3Yr")) {
            r.pricing = GP_COMMITTED;
            r.term_months = usage[6] == '1' ? 12 : 36;
            r.purchase = GP_NO_UPFRONT;
        } else {
            gp_catalog_skip(out, where, "an unknown usage type");
            continue;
        }
        /* "Nvidia Tesla A100 GPU running in Americas": the GPU is before " GPU running". */
        char model[96];
        const char *cut = strstr(desc, " GPU");
        snprintf(model, sizeof model, "%.*s", cut ? (int)(cut - desc) : (int)strlen(desc), desc);
        gp_gpu_normalize(model, strstr(desc, "80GB") ? 80 : 0, r.gpu, sizeof r.gpu);
        snprintf(r.instance, sizeof r.instance, "gpu-%s", r.gpu);
        r.gpu_count = 1;
        r.where = i;
        if (!gcp_sku_price(sku, where, out, &r))
            continue;
        const cJSON *regions = cJSON_GetObjectItemCaseSensitive(sku, "serviceRegions");
        for (const cJSON *reg = regions ? regions->child : NULL; reg && st == GP_OK;
             reg = reg->next) {
            if (!cJSON_IsString(reg) ||
                !gp_catalog_copy(r.region, sizeof r.region, reg->valuestring,
                                 strlen(reg->valuestring)))
                continue;
            st = gp_catalog_batch_add(out, &r, err);
        }
    }
done:
    cJSON_Delete(doc);
    return st;
}
