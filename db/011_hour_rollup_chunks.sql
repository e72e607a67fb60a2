-- Chunked hourly rollups (issue 17; the encoding: docs/telemetry.md, "Chunk encoding").
-- As rollup_5m_day for the 5-minute rollups (009_chunks.sql): a series' hourly buckets before
-- series.sealed_ms live in rollup_1h_day, one row per series and UTC day holding the day's 24
-- buckets (count, sum, min, max) packed into a BLOB; from sealed_ms on they stay rows of
-- rollup_1h. Sealed with the 5-minute days; readers take both through the virtual table
-- rollup_1h_all (src/store/store_chunks.c).
-- Opening a database made before this converts its rows (src/store/store.c, migrate()).
-- id = series_id * 2^20 + day_ms / 86400000 (days since 1970); the day is in the id, so the
-- row is the id and the chunk alone.
CREATE TABLE rollup_1h_day (
    id      INTEGER PRIMARY KEY,
    buckets BLOB NOT NULL  -- src/formats/chunk.c, 24 slots
);
