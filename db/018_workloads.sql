-- A third kind of throughput figure beside 'estimate' and 'measured': 'published', a bundled
-- result (MLPerf and the like) with its date and source, written by gpuplan on refresh
-- (docs/compare.md "Published results"). SQLite cannot alter a CHECK, so the table is rebuilt
-- with its rows.
CREATE TABLE IF NOT EXISTS throughput_018 (
    gpu     TEXT NOT NULL,
    profile TEXT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('estimate', 'measured', 'published')),
    value   REAL NOT NULL CHECK (value > 0),
    unit    TEXT NOT NULL,
    source  TEXT NOT NULL,
    as_of   TEXT NOT NULL,
    PRIMARY KEY (gpu, profile, kind)
) WITHOUT ROWID;
INSERT OR IGNORE INTO throughput_018 SELECT gpu, profile, kind, value, unit, source, as_of
    FROM throughput;
DROP TABLE throughput;
ALTER TABLE throughput_018 RENAME TO throughput;

-- Workload profiles a user added (`throughput profile add FILE`): the file's JSON as given,
-- parsed again on use, and the day it was added.
CREATE TABLE IF NOT EXISTS workload_profile (
    name  TEXT PRIMARY KEY,
    json  TEXT NOT NULL,
    added TEXT NOT NULL
) WITHOUT ROWID;

-- FP32 on the matrix units, apart from gpu_spec.fp32_tflops (the vector rate), where the
-- vendor lists it (AMD Instinct); specs/gpuplan_spec_supplement.csv fills it. A table of its
-- own: migrations must re-run cleanly, and SQLite has no ADD COLUMN IF NOT EXISTS.
CREATE TABLE IF NOT EXISTS gpu_spec_fp32_matrix (
    name               TEXT PRIMARY KEY,  -- gpu_spec.name
    fp32_matrix_tflops REAL NOT NULL
) WITHOUT ROWID;
