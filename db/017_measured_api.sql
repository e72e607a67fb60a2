-- docs/compare.md "Measured from the serving engine": every `throughput import --prometheus`
-- run, kept as history. The figure in force is the throughput table's measured row (the
-- latest run replaces it); these rows say where each figure came from: the server and
-- selector, the engine, the window, the tokens and GPU-hours counted, and how busy those GPUs
-- were (the share of their 5-minute buckets at >= 5 % utilization, and their mean).
CREATE TABLE IF NOT EXISTS throughput_measurement ( -- IF NOT EXISTS: a database rolled back by hand keeps it
    id          INTEGER PRIMARY KEY,
    gpu         TEXT NOT NULL,
    profile     TEXT NOT NULL,
    value       REAL NOT NULL CHECK (value > 0),  -- work units per GPU-hour held
    unit        TEXT NOT NULL,
    source      TEXT NOT NULL,  -- the server (no credentials) and the selector
    engine      TEXT NOT NULL,  -- vllm, sglang, tgi (comma-separated when several)
    counted     TEXT NOT NULL CHECK (counted IN ('output', 'input', 'total')),
    window_from TEXT NOT NULL,  -- YYYY-MM-DDTHH:MM:SSZ
    window_to   TEXT NOT NULL,
    tokens      REAL NOT NULL,  -- the tokens counted (increase() over the window)
    gpu_hours   REAL NOT NULL CHECK (gpu_hours > 0),
    busy_share  REAL NOT NULL,  -- 0..1
    mean_util   REAL NOT NULL,  -- %
    pods        INTEGER NOT NULL,
    measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE INDEX IF NOT EXISTS throughput_measurement_key
    ON throughput_measurement(gpu, profile, window_to);

-- docs/catalog.md "API prices": hosted-model prices per million input and output tokens, by
-- provider and model, dated and sourced, kept with history like fx_rate: a row holds from
-- effective_from until the same (provider, model)'s next row; an import adds rows and never
-- overwrites one (a second row for the same day is ignored).
CREATE TABLE IF NOT EXISTS api_price (
    provider       TEXT NOT NULL,
    model          TEXT NOT NULL,  -- the open model, e.g. llama-3-70b-instruct
    effective_from TEXT NOT NULL,  -- YYYY-MM-DD
    input_per_m    REAL NOT NULL CHECK (input_per_m >= 0),
    output_per_m   REAL NOT NULL CHECK (output_per_m >= 0),
    currency       TEXT NOT NULL CHECK (length(currency) = 3),
    source         TEXT NOT NULL,  -- the page's URL and the date it was read
    PRIMARY KEY (provider, model, effective_from)
) WITHOUT ROWID;
