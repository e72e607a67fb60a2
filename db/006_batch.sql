-- Batch runs (`gpuplan batch`): each run's summary as written to its summary.json, and the
-- catalog prices and measured figures it used, one row each, so "what changed since last
-- time" can be asked of the database as well as of the folders.
CREATE TABLE batch_run (
    id         INTEGER PRIMARY KEY,
    day        TEXT NOT NULL,     -- YYYY-MM-DD, UTC: the name of the run's folder
    started_at TEXT NOT NULL,     -- YYYY-MM-DDTHH:MM:SSZ
    out_dir    TEXT NOT NULL,     -- the folder the run was written to
    scenarios  INTEGER NOT NULL,
    flipped    INTEGER NOT NULL,  -- decisions that flipped against the run compared with
    summary    TEXT NOT NULL      -- summary.json, as written
);
CREATE INDEX batch_run_day ON batch_run(day);

CREATE TABLE batch_price (
    run_id         INTEGER NOT NULL REFERENCES batch_run(id) ON DELETE CASCADE,
    scenario       TEXT NOT NULL,
    option         TEXT NOT NULL,
    catalog        TEXT NOT NULL,
    pricing        TEXT NOT NULL,
    hourly         REAL NOT NULL,
    effective_from TEXT NOT NULL,
    source         TEXT NOT NULL
);
CREATE INDEX batch_price_run ON batch_price(run_id);

CREATE TABLE batch_measure (
    run_id      INTEGER NOT NULL REFERENCES batch_run(id) ON DELETE CASCADE,
    scenario    TEXT NOT NULL,
    measured    INTEGER NOT NULL, -- 1 when the figures came from `scenario measure`
    gpus        REAL NOT NULL,
    utilization REAL NOT NULL,
    gpu_idle_w  REAL NOT NULL,
    gpu_tdp_w   REAL NOT NULL
);
CREATE INDEX batch_measure_run ON batch_measure(run_id);
