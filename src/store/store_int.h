/* The store's private parts, shared by the files of src/store only. */
#ifndef GPUPLAN_STORE_INT_H
#define GPUPLAN_STORE_INT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpuplan/chunk.h"
#include "gpuplan/clock.h"
#include "gpuplan/store.h"

/* The store's time and chunk-id constants, once. C code uses the numbers; SQL text splices
 * the SQL_ strings, made from the same digits (STORE_STR), so no constant is typed twice. */
#define STORE_STR_(x) #x
#define STORE_STR(x) STORE_STR_(x)
#define STORE_BUCKET_MS_ 300000 /* a 5-minute bucket */
/* A day chunk's id (rollup_5m_day, rollup_1h_day, util_hour_day): series_id * 2^20 + days
 * since 1970 (db/009_chunks.sql), so one series' days are one range of ids. */
#define STORE_DAY_BITS 20
#define STORE_DAY_ID_SPAN_ 1048576 /* 2^STORE_DAY_BITS: ids of one series */
#define STORE_DAY_ID_MASK_ 1048575 /* the day part of an id */
_Static_assert(STORE_DAY_ID_SPAN_ == 1 << STORE_DAY_BITS, "day id span");
_Static_assert(STORE_DAY_ID_MASK_ == STORE_DAY_ID_SPAN_ - 1, "day id mask");
_Static_assert(GP_DAY_MS_DIGITS == 24 * GP_HOUR_MS_DIGITS &&
                   GP_HOUR_MS_DIGITS == 12 * STORE_BUCKET_MS_,
               "day, hour and bucket");

#define STORE_BUCKET_MS ((int64_t)STORE_BUCKET_MS_)
#define STORE_DAY_ID_SPAN ((int64_t)STORE_DAY_ID_SPAN_)
#define SQL_HOUR_MS STORE_STR(GP_HOUR_MS_DIGITS)
#define SQL_DAY_MS STORE_STR(GP_DAY_MS_DIGITS)
#define SQL_DAY_ID_SPAN STORE_STR(STORE_DAY_ID_SPAN_)
#define SQL_DAY_ID_MASK STORE_STR(STORE_DAY_ID_MASK_)

#define GP_SCHEMA_CHUNKS 9        /* db/009_chunks.sql */
#define GP_SCHEMA_HOUR_CHUNKS 10  /* db/010_hour_chunks.sql */
#define GP_SCHEMA_1H_CHUNKS 11    /* db/011_hour_rollup_chunks.sql */
#define GP_SCHEMA_SERIES_LAST 12  /* db/012_series_last.sql */
#define GP_SCHEMA_FLEET_CHUNKS 13 /* db/013_fleet_chunks.sql */
#define GP_SEAL_PER_CYCLE 4000    /* series sealed by one gp_store_seal_days */

typedef struct store_chunks store_chunks;
typedef struct store_hours store_hours;
typedef struct store_fleet store_fleet;

struct gp_store {
    sqlite3 *db;
    char *path;
    store_chunks *chunks; /* store_chunks.c: rollup_5m_all and the chunk statements */
    store_hours *hours;   /* store_hours.c: the hour chunk statements, made on first use */
    store_fleet *fleet;   /* store_fleet.c: fleet_5m_all and the fleet chunk statements */
    /* The last day whose chunks retention removed, plus one (0: none yet this process): the
     * day chunks past the window change once a day, not once a cycle. */
    int64_t retained_day;
    /* SQLite's primary result code of the last failure store_fail or store_exec reported. */
    int failed_rc;
};

/* Statements whose query plans tests/unit check (an index search, not a scan of the table):
 * a node's import mark (history_mark's key), the earliest mark of a host over all its nodes
 * (db/016's history_mark_host), and the bases quoted against both currencies of a cross
 * (db/016's fx_rate_quote, then fx_rate's key). */
#define STORE_SQL_MARK_NODE                                                                        \
    "SELECT min(done_ms) FROM history_mark WHERE node_id = ?1 AND source = ?2 AND metric = ?3 "    \
    "AND host = ?4"
#define STORE_SQL_MARK_ANY                                                                         \
    "SELECT min(done_ms) FROM history_mark WHERE source = ?2 AND metric = ?3 AND host = ?4"
#define STORE_SQL_FX_CROSS                                                                         \
    "SELECT DISTINCT a.base FROM fx_rate a WHERE a.quote = ?1 AND EXISTS (SELECT 1 FROM "          \
    "fx_rate b WHERE b.base = a.base AND b.quote = ?2) ORDER BY a.base"

/* ---- the base (store_base.c): every file calls these, they call no other file ---- */
/* Fill err with GP_E_DB, the path and SQLite's message; returns GP_E_DB. */
gp_status store_fail(gp_store *st, gp_err *err, const char *what);
/* Prepare exactly one statement; a left-over tail is a programming error reported as such. */
gp_status store_prepare(gp_store *st, const char *sql, sqlite3_stmt **out, gp_err *err);
/* day_ms as a UTC date, "2026-11-20". */
void store_day_text(int64_t day_ms, char out[16]);
/* Where a day chunk lives, for messages: "TABLE, series 12, day 2026-11-20" (UTC). */
void store_chunk_where(char *out, size_t cap, const char *table, long long series, int64_t day_ms);
/* A chunk that did not decode (err as the decoder filled it, naming the chunk) becomes
 * GP_E_DB on st's path: a damaged database, not bad input from the user. Returns GP_E_DB. */
gp_status store_damaged(gp_store *st, gp_err *err);
/* Run SQL without results (several statements allowed). */
gp_status store_exec(gp_store *st, const char *sql, gp_err *err);
/* put(st, row, err) for each of the n rows of size bytes at rows, in order, stopping at the
 * first error (returned). */
gp_status store_each(gp_store *st, const void *rows, size_t n, size_t size,
                     gp_status (*put)(gp_store *st, const void *row, gp_err *err), gp_err *err);
/* store_each in one transaction (gp_store_in_tx): every row written, or none. */
gp_status store_each_in_tx(gp_store *st, const void *rows, size_t n, size_t size,
                           gp_status (*put)(gp_store *st, const void *row, gp_err *err),
                           gp_err *err);

/* UTC midnight at or before ms. */
int64_t store_day_of(int64_t ms);
/* The start of the hour at or before ms. */
int64_t store_hour_of(int64_t ms);
/* The day chunk id of series' UTC day holding ms, days clamped to 0 .. 2^20 - 1 (1970 to
 * 4840): a reader's open bound lands on the first or last day; writers refuse times outside
 * (store_day_check). */
int64_t store_day_id(long long series, int64_t ms);
/* GP_E_INPUT naming st's path for a day_ms a day chunk id cannot hold (before 1970, after
 * 4840); what says which rows ("a rollup bucket", "a capacity hour"). */
gp_status store_day_check(gp_store *st, int64_t day_ms, const char *what, gp_err *err);
/* ---- chunked 5-minute rollups (store_chunks.c) ---- */
/* Register rollup_5m_all and rollup_1h_all on st's connection; store_chunks_done() frees what
 * it keeps and must run before the connection closes. */
gp_status store_chunks_open(gp_store *st, gp_err *err);
void store_chunks_done(gp_store *st);
/* The kinds of rollup chunk: 5-minute (rollup_5m_day, 288 buckets a day) and hourly
 * (rollup_1h_day, 24 buckets a day). */
enum { STORE_5M, STORE_1H, STORE_KINDS };
/* The day chunk of kind of series at day_ms into *c (all empty and *found false when there is
 * none); GP_E_DB for a chunk that does not decode. store_chunk_save writes (replaces) it. */
gp_status store_chunk_load(gp_store *st, int kind, long long series, int64_t day_ms, gp_chunk *c,
                           bool *found, gp_err *err);
/* A 5-minute chunk saved at or after its series' newest day also becomes its series_last row
 * (db/012_series_last.sql). */
gp_status store_chunk_save(gp_store *st, int kind, long long series, int64_t day_ms,
                           const gp_chunk *c, gp_err *err);
/* fn for each 5-minute bucket of series in [lo, hi) that rollup_5m_all yields, in its order:
 * its chunks' buckets with n > 0, then its rows; without SQL per bucket. A non-zero return
 * stops the walk (*stopped true). GP_E_DB for a chunk that does not decode. */
typedef int (*store_bucket_fn)(int64_t bucket_ms, long long n, double sum, void *arg);
gp_status store_5m_each(gp_store *st, long long series, int64_t lo, int64_t hi, store_bucket_fn fn,
                        void *arg, bool *stopped, gp_err *err);
/* fn for each hourly bucket of series in [lo, hi) that rollup_1h_all yields, in its order (its
 * chunks' buckets with n > 0, then its rows), without SQL per bucket. GP_E_DB for a chunk that
 * does not decode. */
typedef void (*store_stat_fn)(int64_t bucket_ms, const gp_chunk_bucket *b, void *arg);
gp_status store_1h_each(gp_store *st, long long series, int64_t lo, int64_t hi, store_stat_fn fn,
                        void *arg, gp_err *err);
/* Migration 012: every series' series_last row from its newest 5-minute chunk. */
gp_status store_last_fill(gp_store *st, gp_err *err);
/* Migration 011: every rollup_1h row before its series' sealed_ms into its day chunk. */
gp_status store_chunks_convert_1h(gp_store *st, gp_err *err);
/* Merge one bucket's statistics into b as rollup_5m's upsert merges a row. */
void store_bucket_add(gp_chunk_bucket *b, long long n, double sum, double min, double max);
/* Where series' rows start: every bucket before it is in chunks (0 for a series never sealed). */
gp_status store_sealed_ms(gp_store *st, long long series, int64_t *sealed_ms, gp_err *err);
/* Move series' 5-minute and hourly rows before before_ms (a UTC midnight) into their day
 * chunks and advance its sealed_ms (store_chunks.c; sealing calls it, store_seal.c). */
gp_status store_chunks_seal(gp_store *st, long long series, int64_t before_ms, gp_err *err);
/* Move series' rows (5-minute, hourly and capacity hours) before the UTC day of before_ms into
 * chunks and advance its sealed_ms (store_seal.c). */
gp_status store_seal_series(gp_store *st, long long series, int64_t before_ms, gp_err *err);
/* The same for up to max_series series not sealed up to that day; *sealed says how many
 * (store_seal.c). */
gp_status store_seal(gp_store *st, int64_t before_ms, size_t max_series, size_t *sealed,
                     gp_err *err);

/* ---- capacity hours per day (store_hours.c) ---- */
/* Free what store_hours.c keeps; runs before the connection closes. */
void store_hours_done(gp_store *st);
/* The hour chunk of series at day_ms into *d (all empty, *found false, when there is none);
 * GP_E_DB for one that does not decode. store_hours_save writes (replaces) it. */
gp_status store_hours_load(gp_store *st, long long series, int64_t day_ms, gp_hours *d, bool *found,
                           gp_err *err);
gp_status store_hours_save(gp_store *st, long long series, int64_t day_ms, const gp_hours *d,
                           gp_err *err);
/* Columns col .. col + 6 of a util_hour row (buckets, util_sum, power_n, power_sum,
 * busy_power_n, busy_power_sum, hist) as an hour; GP_E_DB for a damaged histogram. */
gp_status store_hour_of_row(gp_store *st, sqlite3_stmt *s, int col, gp_hour *h, gp_err *err);
/* Move series' util_hour rows before before_ms (a UTC midnight) into its day chunks. */
gp_status store_hours_seal(gp_store *st, long long series, int64_t before_ms, gp_err *err);
/* Move the util_hour rows in [from_ms, to_ms) of node's series of metric that lie before their
 * series' sealed_ms into their chunks (hours of a sealed day recomputed). */
gp_status store_hours_settle(gp_store *st, long long node_id, int metric, int64_t from_ms,
                             int64_t to_ms, gp_err *err);
/* Migration 010: every util_hour row before its series' sealed_ms into its chunk. */
gp_status store_hours_convert(gp_store *st, gp_err *err);
/* Hourly means of power, appended in hour order (store_hours_add). */
typedef struct store_means {
    double *v;
    size_t n, cap;
} store_means;
/* Add series' hours with data in [from_ms, to_ms) to *t in hour order (its chunks, then its
 * rows), each hour's mean power (power_sum / power_n, where power_n > 0) to *m unless m is
 * NULL. GP_E_DB for a chunk that does not decode; *t then holds part of the series. */
gp_status store_hours_add(gp_store *st, long long series, int64_t from_ms, int64_t to_ms,
                          gp_hours_total *t, store_means *m, gp_err *err);

/* ---- fleet_5m per day (store_fleet.c, db/013_fleet_chunks.sql) ---- */
/* Register fleet_5m_all on st's connection; store_fleet_done() frees what it keeps and must
 * run before the connection closes. */
gp_status store_fleet_open(gp_store *st, gp_err *err);
void store_fleet_done(gp_store *st);
/* Where fleet_5m's rows start: every bucket before it is in fleet_5m_day. */
gp_status store_fleet_sealed(gp_store *st, int64_t *sealed_ms, gp_err *err);
/* Move fleet_5m's rows before the UTC day of before_ms into day chunks and advance the
 * boundary there (a no-op when it is there already). */
gp_status store_fleet_seal(gp_store *st, int64_t before_ms, gp_err *err);
/* Move the fleet_5m rows in [from_ms, to_ms) that lie before the boundary into their chunks,
 * each row replacing its bucket (rows of a sealed day just recomputed). */
gp_status store_fleet_settle(gp_store *st, int64_t from_ms, int64_t to_ms, gp_err *err);
/* Add x into node's bucket of model at bucket_ms, a sealed bucket, as fleet_5m's upsert adds
 * into a row; the day chunks stay in memory until store_fleet_flush writes them. */
gp_status store_fleet_add(gp_store *st, long long node, const char *model, int64_t bucket_ms,
                          const gp_fleet_bucket *x, gp_err *err);
gp_status store_fleet_flush(gp_store *st, gp_err *err);
/* Drop the unwritten chunks of store_fleet_add (the transaction is rolled back). */
void store_fleet_discard(gp_store *st);

/* ---- the readers' virtual tables (store_vtab.c) ---- */
/* One eponymous virtual table over a live table and its day chunks, read together as the
 * live table alone was read before its days were sealed: rollup_5m_all, rollup_1h_all
 * (store_chunks.c) and fleet_5m_all (store_fleet.c) are each a descriptor of this.
 *
 * Its statements bind ?1 and ?2 to the bucket range [lo, hi) and ?3, ?4 to the key columns'
 * values. A chunk statement yields (day_ms, key columns..., the chunk's BLOB) ordered by day,
 * then key; a row statement yields the table's columns in their declared order, in the
 * table's order. Either may name fewer parameters. */
typedef struct store_vtab_desc store_vtab_desc;
struct store_vtab_desc {
    const char *name;    /* as SQL names the table */
    const char *declare; /* "CREATE TABLE x(...)", for sqlite3_declare_vtab */
    const char *types;   /* a letter a column: I INTEGER, R REAL, T TEXT, as declared */
    int range_col;       /* bucket_ms: =, >, >=, <, <= bound the range */
    int n_keys;          /* 1 or 2 key columns, taken by = all together or not at all */
    int key_col[2];
    bool key_text[2]; /* TEXT (else INTEGER) */
    int in_col;       /* a key column whose IN list is taken whole (sqlite3_vtab_in), or -1 */
    /* true: key, then bucket order (each key's chunks, then its rows, keys from keys_sql when
     * none is given; ORDER BY bucket_ms [DESC] is consumed for one key); false: bucket, then
     * key order (every chunk of the range, then every row), ORDER BY a prefix of (bucket,
     * keys) ascending consumed. */
    bool by_key;
    int64_t lo_min; /* the range's lower end when none is given */
    const char *keys_sql;
    const char *chunks, *chunks_key, *chunks_key_desc; /* NULL where not needed */
    const char *rows, *rows_key, *rows_key_desc;
    /* The chunks: slots buckets of bucket_ms from day_ms, decoded into chunk_size bytes. */
    int slots;
    int64_t bucket_ms;
    size_t chunk_size;
    const char *chunk_table; /* for messages */
    /* Decode the current row of a chunk statement into chunk; GP_E_INPUT or GP_E_DB with err
     * naming the chunk. */
    gp_status (*decode)(const store_vtab_desc *d, sqlite3_stmt *row, void *chunk, gp_err *err);
    /* A bucket holds data where its count, a long long at count_at + slot * count_stride in
     * the decoded chunk, is not 0 (read in place: it is asked of every slot of every chunk). */
    size_t count_at, count_stride;
    /* A value column (not a key, not bucket_ms) of a bucket. */
    void (*cell)(const void *chunk, int slot, int col, sqlite3_context *ctx);
    /* The planner's estimates for a plan (flags: STORE_VT_*). */
    void (*cost)(int flags, double *cost, sqlite3_int64 *rows);
};
/* A plan's flags, as cost sees them. */
enum {
    STORE_VT_LO = 1,   /* a lower bound on bucket_ms */
    STORE_VT_HI = 2,   /* an upper bound */
    STORE_VT_EQ = 4,   /* bucket_ms = ?: both */
    STORE_VT_KEY = 8,  /* every key column = ? */
    STORE_VT_IN = 16,  /* in_col IN (...) */
    STORE_VT_DESC = 32 /* ORDER BY bucket_ms DESC, consumed */
};
typedef struct store_vtab store_vtab;
/* Register d (which must outlive the connection) on st's connection; *out keeps the cursors'
 * statements between queries and store_vtab_done frees them before the connection closes. */
gp_status store_vtab_open(gp_store *st, const store_vtab_desc *d, store_vtab **out, gp_err *err);
void store_vtab_done(store_vtab *v);

#endif
