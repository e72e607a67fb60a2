-- Telemetry: nodes and their sources, GPUs, series of samples, rollups, collection cycles.
-- Raw samples are kept for a window; 5-minute and 1-hour rollups (count, sum, min, max) are
-- written with them and kept for a year, so the file grows with the fleet, not with time.
CREATE TABLE node (
    id              INTEGER PRIMARY KEY,
    name            TEXT NOT NULL UNIQUE,
    created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    last_success_ms INTEGER,
    last_error      TEXT,
    last_error_ms   INTEGER,
    gpu_count       INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE node_source (
    id         INTEGER PRIMARY KEY,
    node_id    INTEGER NOT NULL REFERENCES node(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('dcgm', 'prometheus', 'nvsmi', 'redfish')),
    url        TEXT NOT NULL DEFAULT '',
    match      TEXT NOT NULL DEFAULT '',
    insecure   INTEGER NOT NULL DEFAULT 0,
    cacert     TEXT NOT NULL DEFAULT '',
    token_file TEXT NOT NULL DEFAULT '',  -- a path; the token itself is never stored
    UNIQUE (node_id, kind, url)
);

CREATE TABLE gpu (
    id            INTEGER PRIMARY KEY,
    node_id       INTEGER NOT NULL REFERENCES node(id) ON DELETE CASCADE,
    uuid          TEXT NOT NULL,
    idx           INTEGER NOT NULL,
    mig           TEXT NOT NULL DEFAULT '',
    host          TEXT NOT NULL DEFAULT '',
    model         TEXT NOT NULL DEFAULT '',
    raw_model     TEXT NOT NULL DEFAULT '',
    first_seen_ms INTEGER NOT NULL,
    last_seen_ms  INTEGER NOT NULL,
    UNIQUE (node_id, uuid, idx, mig, host)
);

CREATE TABLE label_set (
    id   INTEGER PRIMARY KEY,
    json TEXT NOT NULL UNIQUE
);

-- gpu_id 0: a node-level metric; labels_id 0: no workload labels.
CREATE TABLE series (
    id        INTEGER PRIMARY KEY,
    node_id   INTEGER NOT NULL REFERENCES node(id) ON DELETE CASCADE,
    gpu_id    INTEGER NOT NULL,
    metric    INTEGER NOT NULL,
    labels_id INTEGER NOT NULL,
    UNIQUE (node_id, gpu_id, metric, labels_id)
);

CREATE TABLE sample (
    series_id INTEGER NOT NULL,
    ts_ms     INTEGER NOT NULL,
    value     REAL NOT NULL,
    PRIMARY KEY (series_id, ts_ms)
) WITHOUT ROWID;
-- No index on ts_ms alone: retention walks the primary key series by series, and a second
-- B-tree would double the cost of every sample written.

CREATE TABLE rollup_5m (
    series_id INTEGER NOT NULL,
    bucket_ms INTEGER NOT NULL,
    n         INTEGER NOT NULL,
    sum       REAL NOT NULL,
    min       REAL NOT NULL,
    max       REAL NOT NULL,
    PRIMARY KEY (series_id, bucket_ms)
) WITHOUT ROWID;
CREATE INDEX rollup_5m_time ON rollup_5m(bucket_ms);

CREATE TABLE rollup_1h (
    series_id INTEGER NOT NULL,
    bucket_ms INTEGER NOT NULL,
    n         INTEGER NOT NULL,
    sum       REAL NOT NULL,
    min       REAL NOT NULL,
    max       REAL NOT NULL,
    PRIMARY KEY (series_id, bucket_ms)
) WITHOUT ROWID;
CREATE INDEX rollup_1h_time ON rollup_1h(bucket_ms);

CREATE TABLE collect_cycle (
    id           INTEGER PRIMARY KEY,
    started_ms   INTEGER NOT NULL,
    finished_ms  INTEGER NOT NULL,
    nodes_ok     INTEGER NOT NULL,
    nodes_failed INTEGER NOT NULL,
    samples      INTEGER NOT NULL
);
