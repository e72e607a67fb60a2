-- The price catalog. Offers are (provider, instance, region); prices are history: an import
-- adds a row when a price changes and never overwrites one.
CREATE TABLE catalog_import (
    id             INTEGER PRIMARY KEY,
    format         TEXT NOT NULL,
    provider       TEXT NOT NULL,  -- '' when the batch mixes providers
    origin         TEXT NOT NULL,  -- file name or URL as given
    source         TEXT NOT NULL,  -- what a report cites: the publisher and dataset
    effective_from TEXT NOT NULL,  -- YYYY-MM-DD the prices took effect
    imported_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    added          INTEGER NOT NULL DEFAULT 0,
    unchanged      INTEGER NOT NULL DEFAULT 0,
    skipped        INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE offer (
    id         INTEGER PRIMARY KEY,
    provider   TEXT NOT NULL,
    instance   TEXT NOT NULL,
    region     TEXT NOT NULL,
    gpu        TEXT NOT NULL,
    gpu_count  REAL NOT NULL CHECK (gpu_count > 0),
    vcpus      REAL NOT NULL DEFAULT 0,
    memory_gib REAL NOT NULL DEFAULT 0,
    UNIQUE (provider, instance, region)
);
CREATE INDEX offer_gpu ON offer(gpu);

-- One row per price level: (offer, kind, term, purchase) at an effective date.
CREATE TABLE price (
    id             INTEGER PRIMARY KEY,
    offer_id       INTEGER NOT NULL REFERENCES offer(id) ON DELETE CASCADE,
    pricing        TEXT NOT NULL CHECK (pricing IN ('on_demand', 'spot', 'committed')),
    term_months    INTEGER NOT NULL DEFAULT 0,
    purchase       TEXT NOT NULL DEFAULT '',
    hourly         REAL NOT NULL CHECK (hourly >= 0),
    low            REAL,
    high           REAL,
    currency       TEXT NOT NULL,
    effective_from TEXT NOT NULL,
    import_id      INTEGER NOT NULL REFERENCES catalog_import(id)
);
CREATE INDEX price_lookup ON price(offer_id, pricing, term_months, purchase, effective_from);

-- When each price key was first and last listed by an import, and by which feed (the import
-- format): "appeared", and "disappeared" from a feed whose later imports no longer list it.
CREATE TABLE price_seen (
    offer_id    INTEGER NOT NULL REFERENCES offer(id) ON DELETE CASCADE,
    pricing     TEXT NOT NULL,
    term_months INTEGER NOT NULL,
    purchase    TEXT NOT NULL,
    first_seen  TEXT NOT NULL,
    last_seen   TEXT NOT NULL,
    feed        TEXT NOT NULL,
    PRIMARY KEY (offer_id, pricing, term_months, purchase)
) WITHOUT ROWID;

CREATE TABLE gpu_spec (
    name          TEXT PRIMARY KEY,  -- the catalog GPU name
    full_name     TEXT NOT NULL,
    vendor        TEXT NOT NULL DEFAULT '',
    memory_gb     REAL,
    tdp_w         REAL,
    fp32_tflops   REAL,
    fp16_tflops   REAL,
    bf16_tflops   REAL,
    mem_bw_gbs    REAL,
    release_date  TEXT,
    source        TEXT NOT NULL
);

CREATE TABLE hardware_price (
    id         INTEGER PRIMARY KEY,
    item       TEXT NOT NULL,
    gpu        TEXT NOT NULL,
    gpus       INTEGER NOT NULL DEFAULT 1,  -- GPUs the price buys (1: a per-GPU price)
    price      REAL NOT NULL CHECK (price >= 0),
    currency   TEXT NOT NULL DEFAULT 'USD',
    price_date TEXT NOT NULL,
    source     TEXT NOT NULL,
    note       TEXT NOT NULL DEFAULT '',
    UNIQUE (item, price_date, price, source)
);

CREATE TABLE electricity_price (
    region        TEXT NOT NULL,
    sector        TEXT NOT NULL,
    price_per_kwh REAL NOT NULL,
    year          TEXT NOT NULL,
    source        TEXT NOT NULL,
    PRIMARY KEY (region, sector, year)
) WITHOUT ROWID;

CREATE TABLE pue_reference (
    scope  TEXT NOT NULL,
    year   TEXT NOT NULL,
    pue    REAL NOT NULL,
    source TEXT NOT NULL,
    PRIMARY KEY (scope, year, source)
) WITHOUT ROWID;

CREATE TABLE tariff_preset (
    name           TEXT PRIMARY KEY,
    utility        TEXT NOT NULL,
    description    TEXT NOT NULL,
    tariff_json    TEXT NOT NULL,  -- a scenario's self_hosted.tariff object
    effective_from TEXT NOT NULL,
    source         TEXT NOT NULL
);

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
