-- Capacity hours kept per day (issue 17; the encoding: docs/telemetry.md, "Chunk encoding").
-- A utilization series' util_hour figures before series.sealed_ms live in util_hour_day, one
-- row per series and UTC day holding the day's 24 hours packed into a BLOB; from sealed_ms on
-- they stay util_hour rows, which each cycle's capacity refresh rewrites as before. The day is
-- sealed with the series' 5-minute rollups (src/store/store_chunks.c), so `capacity` over a
-- month reads 30 short rows a GPU instead of 720 (src/store/store_hours.c).
-- Opening a database made before this converts its rows (src/store/store.c, migrate()).
-- id = series_id * 2^20 + day_ms / 86400000 (days since 1970), as rollup_5m_day's.
CREATE TABLE util_hour_day (
    id    INTEGER PRIMARY KEY,
    hours BLOB NOT NULL  -- src/formats/chunk.c, gp_hours
);
