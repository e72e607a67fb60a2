/* One catalog name per GPU, whichever source wrote it: telemetry (nvidia-smi, DCGM), specs
 * (Epoch, mlco2) and offers (AWS, SkyPilot, GCP) must meet on the same name. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/catalog.h"

/* Families, longest token first where one holds another (A100 before A10, GH200 before H200). The
 * memory variants: a family listed with split_gib gets "-<mem>GB" above that size. */
static const struct family {
    const char *token; /* as it appears in an upper-cased, de-punctuated name */
    const char *name;  /* catalog name */
    int split_gib;     /* > 0: names above this memory size get a -NNGB suffix */
} families[] = {
    {"GB200", "GB200", 0},
    {"GB300", "GB300", 0},
    {"B200", "B200", 0},
    {"B300", "B300", 0},
    {"B100", "B100", 0},
    {"GH200", "GH200", 0}, /* before H200, which it holds */
    {"H200", "H200", 0},
    {"H100NVL", "H100-NVL", 0},
    {"H100", "H100", 0},
    {"H800", "H800", 0},
    {"A100", "A100", 40},
    {"A800", "A800", 0},
    {"A10G", "A10G", 0},
    {"A40", "A40", 0},
    {"A30", "A30", 0},
    {"A16", "A16", 0},
    {"A10", "A10", 0},
    {"A2", "A2", 0},
    {"L40S", "L40S", 0},
    {"L40", "L40", 0},
    {"L4", "L4", 0},
    {"T4G", "T4G", 0},
    {"T4", "T4", 0},
    {"V100", "V100", 16},
    {"P100", "P100", 0},
    {"P40", "P40", 0},
    {"P4", "P4", 0},
    {"K80", "K80", 0},
    {"K520", "K520", 0},
    {"M60", "M60", 0},
    {"RTXPRO6000", "RTX-PRO-6000", 0},
    {"RTX6000ADA", "RTX-6000-ADA", 0},
    {"A6000", "RTX-A6000", 0},
    {"A5000", "RTX-A5000", 0},
    {"A4000", "RTX-A4000", 0},
    {"RTX6000", "RTX-6000", 0},
    {"RTX5090", "RTX-5090", 0},
    {"RTX4090", "RTX-4090", 0},
    {"RTX3090", "RTX-3090", 0},
    {"MI355X", "MI355X", 0},
    {"MI325X", "MI325X", 0},
    {"MI300X", "MI300X", 0},
    {"MI250X", "MI250X", 0},
    {"MI250", "MI250", 0},
    {"MI210", "MI210", 0},
    {"MI100", "MI100", 0},
    {"MI25", "MI25", 0},
    {"V620", "V620", 0},
    {"V710", "V710", 0},
    {"RADEONPROV520", "V520", 0},
    {"V520", "V520", 0},
    {"GAUDI2", "GAUDI2", 0},
    {"GAUDI", "GAUDI", 0},
};

static const char *const vendor_words[] = {"NVIDIA",     "TESLA", "GEFORCE", "AMD",     "INSTINCT",
                                           "RADEON PRO", "INTEL", "HABANA",  "QUALCOMM"};

/* Upper-case and keep letters and digits; brk[i] says a separator (space, dash...) came
 * before out[i] in the raw name, so "H100 80GB" does not read as "H10080". */
static void squeeze(const char *raw, char *out, bool *brk, size_t cap) {
    size_t n = 0;
    bool sep = false;
    for (const unsigned char *p = (const unsigned char *)raw; *p && n + 1 < cap; p++) {
        if (isalnum(*p)) {
            brk[n] = sep;
            out[n++] = (char)toupper(*p);
            sep = false;
        } else {
            sep = true;
        }
    }
    out[n] = '\0';
    brk[n] = true;
}

/* The memory size written in the name ("80GB", "-80G", "32 GB"), 0 when none. */
static double mem_in_name(const char *raw) {
    for (const char *p = raw; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > raw && isalnum((unsigned char)p[-1])))
            continue;
        char *end;
        long v = strtol(p, &end, 10);
        while (*end == ' ')
            end++;
        if ((end[0] == 'G' || end[0] == 'g') &&
            (end[1] == 'B' || end[1] == 'b' || end[1] == '\0' || !isalnum((unsigned char)end[1])))
            if (v >= 4 && v <= 512)
                return (double)v;
    }
    return 0.0;
}

bool gp_gpu_normalize(const char *raw, double mem_gib, char *out, size_t cap) {
    char sq[128];
    /* Drop vendor words first so "TESLA T4" and "T4" squeeze alike. */
    char upper[128];
    size_t n = 0;
    for (const char *p = raw; *p && n + 1 < sizeof upper; p++)
        upper[n++] = (char)toupper((unsigned char)*p);
    upper[n] = '\0';
    for (size_t i = 0; i < sizeof vendor_words / sizeof vendor_words[0]; i++) {
        char *hit = strstr(upper, vendor_words[i]);
        if (hit)
            memset(hit, ' ', strlen(vendor_words[i]));
    }
    bool brk[sizeof sq + 1];
    squeeze(upper, sq, brk, sizeof sq);
    double mem = mem_in_name(raw);
    if (mem == 0.0)
        mem = mem_gib;
    if (!(mem > 0.0 && mem < 4096.0)) /* also NaN and inf from a hostile source */
        mem = 0.0;
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        const struct family *f = &families[i];
        size_t tl = strlen(f->token);
        const char *hit = strstr(sq, f->token);
        if (!hit)
            continue;
        /* "A10" must not match inside "A100": a digit may not run on from the token. */
        size_t next = (size_t)(hit - sq) + tl;
        if (!brk[next] && isdigit((unsigned char)sq[next]) &&
            isdigit((unsigned char)f->token[tl - 1]))
            continue;
        if (f->split_gib > 0 && mem > f->split_gib + 0.5)
            snprintf(out, cap, "%s-%dGB", f->name, (int)(mem + 0.5) >= 78 ? 80 : (int)(mem + 0.5));
        else
            snprintf(out, cap, "%s", f->name);
        return true;
    }
    snprintf(out, cap, "%s", sq[0] ? sq : "UNKNOWN");
    return false;
}

/* ---- display names ------------------------------------------------------------------------ */

static bool word_is(const char *w, const char *const *set, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(w, set[i]))
            return true;
    return false;
}

/* "80GB", "80G", "80gb": the size in GiB, 0 when w is no memory size. */
static int mem_word(const char *w, const char *next, bool *uses_next) {
    char *end;
    *uses_next = false;
    if (!isdigit((unsigned char)w[0]))
        return 0;
    long v = strtol(w, &end, 10);
    bool unit = !strcasecmp(end, "GB") || !strcasecmp(end, "G");
    if (!*end && next && !strcasecmp(next, "GB")) /* "80 GB" */
        unit = *uses_next = true;
    return unit && v >= 4 && v <= 512 ? (int)v : 0;
}

bool gp_gpu_display_name(const char *raw, char *out, size_t cap) {
    static const char *const drop[] = {"NVIDIA", "TESLA",    "GEFORCE", "AMD", "INSTINCT",  "INTEL",
                                       "HABANA", "QUALCOMM", "RADEON",  "GPU", "GENERATION"};
    static const char *const mem_types[] = {"HBM",   "HBM2",  "HBM2E",  "HBM3", "HBM3E",
                                            "GDDR5", "GDDR6", "GDDR6X", "GDDR7"};
    char buf[128], *words[24];
    size_t nw = 0;
    snprintf(buf, sizeof buf, "%s", raw ? raw : "");
    for (char *p = buf; *p && nw < sizeof words / sizeof words[0];) {
        while (*p && !isalnum((unsigned char)*p))
            *p++ = '\0';
        if (!*p)
            break;
        words[nw++] = p;
        while (isalnum((unsigned char)*p))
            p++;
    }
    const char *form = "";
    bool hbm3 = false;
    int mem = 0;
    size_t n = 0;
    out[0] = '\0';
    for (size_t i = 0; i < nw; i++) {
        char *w = words[i];
        bool uses_next;
        int m = mem_word(w, i + 1 < nw ? words[i + 1] : NULL, &uses_next);
        if (m) {
            mem = m;
            i += uses_next;
            continue;
        }
        if (word_is(w, drop, sizeof drop / sizeof drop[0]))
            continue;
        /* "Radeon Pro V520": PRO is part of the brand there, of the model in "RTX PRO 6000". */
        if (!strcasecmp(w, "PRO") && i > 0 && !strcasecmp(words[i - 1], "RADEON"))
            continue;
        if (word_is(w, mem_types, sizeof mem_types / sizeof mem_types[0])) {
            hbm3 = hbm3 || !strncasecmp(w, "HBM3", 4);
            continue;
        }
        if (!strncasecmp(w, "SXM", 3) && (!w[3] || (isdigit((unsigned char)w[3]) && !w[4]))) {
            form = "SXM";
            continue;
        }
        if (!strcasecmp(w, "PCIE")) {
            form = "PCIe";
            continue;
        }
        bool digit = false;
        for (char *c = w; *c; c++)
            digit = digit || isdigit((unsigned char)*c);
        if (digit) /* model numbers read upper case ("h100" -> "H100"), words as written */
            for (char *c = w; *c; c++)
                *c = (char)toupper((unsigned char)*c);
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", n ? " " : "", w);
    }
    /* The 80GB HBM3 H100 is the SXM board: the PCIe card has HBM2e and says so. */
    if (!form[0] && hbm3 && !strncmp(out, "H100", 4) && (!out[4] || out[4] == ' '))
        form = "SXM";
    if (n && form[0])
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, " %s", form);
    if (n && mem)
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, " %dGB", mem);
    return n > 0;
}
