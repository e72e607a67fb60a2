-- Fleet capacity buckets kept per day (issue 17; the encoding: docs/telemetry.md, "Chunk
-- encoding"). fleet_5m's rows of a UTC day before fleet_sealed.sealed_ms live in fleet_5m_day,
-- one row per node, GPU model and day holding the day's 288 buckets (gpus, util_sum and the 21
-- bin counts) packed into a BLOB; from sealed_ms on they stay fleet_5m rows, which each
-- cycle's capacity refresh writes as before. One boundary for the whole fleet, so a day is
-- either chunks or rows, never both: the node total (node_id 0, model '*') is summed over
-- every node of a bucket. The boundary moves when the 5-minute days are sealed (store_seal,
-- the history import); a bucket recomputed or imported into a sealed day is merged into its
-- chunk. Readers take both through the virtual table fleet_5m_all (src/store/store_fleet.c).
-- Opening a database made before this converts its rows (src/store/store.c, migrate()).
-- A rowid table: a chunk of a few KB stays inside its row, where a WITHOUT ROWID table would
-- spill everything past ~1 KB into an overflow page of its own.
CREATE TABLE fleet_5m_day (
    id      INTEGER PRIMARY KEY,
    day_ms  INTEGER NOT NULL,  -- UTC midnight
    node_id INTEGER NOT NULL,  -- 0: the fleet's total
    model   TEXT NOT NULL,     -- '*' with node_id 0
    buckets BLOB NOT NULL      -- src/formats/chunk.c, gp_fleet_day
);
CREATE UNIQUE INDEX fleet_5m_day_key ON fleet_5m_day(day_ms, node_id, model);

-- fleet_5m rows before sealed_ms (a UTC midnight) are in fleet_5m_day; it only grows.
CREATE TABLE fleet_sealed (sealed_ms INTEGER NOT NULL);
INSERT INTO fleet_sealed(sealed_ms) VALUES (0);
