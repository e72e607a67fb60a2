-- Chunked 5-minute rollups (issue 17; the encoding: docs/telemetry.md, "Chunk encoding").
-- A series' 5-minute buckets before series.sealed_ms (a UTC midnight) live in rollup_5m_day,
-- one row per series and day holding the day's 288 buckets (count, sum, min, max) packed
-- into a BLOB; from sealed_ms on they stay rows of rollup_5m, which the per-cycle collector
-- upserts as before. A day is sealed once it is over (gp_store_retention, a few series at a
-- time, and the history import for the days it writes), so rollup_5m holds about one day.
-- Readers take both through the virtual table rollup_5m_all (src/store/store_chunks.c).
-- Opening a database made before this converts its rows (src/store/store.c, migrate()).
-- id = series_id * 2^20 + day_ms / 86400000 (days since 1970): one B-tree clustered by series
-- and day, so a series' days are one range of ids, and a chunk (about 1 KB) stays inside its
-- row: a WITHOUT ROWID table would spill every chunk past ~1 KB into an overflow page.
CREATE TABLE rollup_5m_day (
    id        INTEGER PRIMARY KEY,
    series_id INTEGER NOT NULL,
    day_ms    INTEGER NOT NULL,  -- UTC midnight
    buckets   BLOB NOT NULL      -- src/formats/chunk.c
);

ALTER TABLE series ADD COLUMN sealed_ms INTEGER NOT NULL DEFAULT 0;
CREATE INDEX series_sealed ON series(sealed_ms);

-- Every reader walks a series' rows by primary key (series first, CROSS JOIN), and retention
-- too (series_id IN (SELECT id FROM series)): the time indexes only cost space (a fifth of the
-- rows' size) and a second B-tree insert per row.
DROP INDEX rollup_5m_time;
DROP INDEX rollup_1h_time;
DROP INDEX util_hour_time;
