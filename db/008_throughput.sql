-- Work per GPU-hour by GPU model and workload profile (docs/compare.md): a spec-derived
-- estimate (kind 'estimate', recomputed from gpu_spec by gpuplan) or a user's measured figure
-- (kind 'measured', from `throughput set` or `throughput import`), which wins over the estimate.
-- source says where the figure comes from (for an estimate: the formula, the factor and the
-- spec row); as_of is the date it was stated.
CREATE TABLE throughput (
    gpu     TEXT NOT NULL,
    profile TEXT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('estimate', 'measured')),
    value   REAL NOT NULL CHECK (value > 0),
    unit    TEXT NOT NULL,
    source  TEXT NOT NULL,
    as_of   TEXT NOT NULL,
    PRIMARY KEY (gpu, profile, kind)
) WITHOUT ROWID;
