-- Each series' last chunked 5-minute bucket (issue 17): what `fleet` shows for a series whose
-- newest data is in chunks (imported history, or a collected series after its raw samples and
-- open-day rows are gone), without decoding that chunk for every series on every read.
-- One row per series that has a rollup_5m_day chunk: day_ms is its newest chunk's day; n, sum,
-- min and max are that chunk's newest bucket with n > 0, at bucket_ms (all NULL when the
-- chunk holds none). Written with the chunk (src/store/store_chunks.c, store_chunk_save: a day
-- sealed, a late sample merged into a sealed day, an imported day), only for a day at or after
-- the row's; removed with the series' chunks (node rm, retention). The open day's rows and
-- raw samples are not here: `fleet` reads those as before. Opening a database made before
-- this fills it from each series' newest chunk (src/store/store.c, migrate()).
CREATE TABLE series_last (
    series_id INTEGER PRIMARY KEY,
    day_ms    INTEGER NOT NULL,  -- UTC midnight of the series' newest chunk
    bucket_ms INTEGER,           -- its newest bucket with n > 0
    n         INTEGER,
    sum       REAL,
    min       REAL,
    max       REAL
);
