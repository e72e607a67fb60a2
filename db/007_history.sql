-- History imported from a Prometheus-compatible store (gpuplan import --prometheus): how far
-- each source, metric and host has been imported, so a re-run asks only for what is new. The
-- history itself goes straight into rollup_5m, rollup_1h and the capacity rollups of
-- 004_capacity.sql; no raw samples are kept for it.
CREATE TABLE history_mark (
    node_id INTEGER NOT NULL REFERENCES node(id) ON DELETE CASCADE,
    source  TEXT NOT NULL,     -- the server's URL and the selector, "URL {job=\"dcgm\"}"
    metric  INTEGER NOT NULL,  -- gp_metric
    host    TEXT NOT NULL,     -- the Hostname label ('' when the server gives none)
    done_ms INTEGER NOT NULL,  -- every 5-minute bucket before this time is imported
    PRIMARY KEY (node_id, source, metric, host)
) WITHOUT ROWID;
