-- Capacity rollups, derived from the 5-minute rollups so capacity questions over a month of a
-- large fleet need no 5-minute scan. A GPU is busy in a 5-minute bucket when its mean
-- utilization there is at least the busy threshold (docs/model.md, Utilization); the threshold is
-- chosen when asking, so buckets are kept as histograms of their mean utilization in 5 % bins
-- (h00: [0, 5), ..., h19: [95, 100), h20: 100 and above). An hour holds at most 12
-- buckets, so util_hour packs its histogram into 21 characters: one column to read a row.

-- Per utilization series and hour: its 5-minute buckets and the GPU's power in them.
CREATE TABLE util_hour (
    series_id  INTEGER NOT NULL,
    hour_ms    INTEGER NOT NULL,
    buckets    INTEGER NOT NULL,  -- 5-minute buckets with data (at most 12)
    util_sum   REAL NOT NULL,     -- the sum of the buckets' mean utilization, in %
    power_n    INTEGER NOT NULL,  -- buckets with a power reading too
    power_sum  REAL NOT NULL,     -- the sum of those buckets' mean power, W
    busy_power_n INTEGER NOT NULL,  -- the same, split at 5 %: buckets at or above it
    busy_power_sum REAL NOT NULL,
    hist      TEXT NOT NULL,      -- 21 characters, bin k's count as char(48 + count)
    PRIMARY KEY (series_id, hour_ms)
) WITHOUT ROWID;
CREATE INDEX util_hour_time ON util_hour(hour_ms);

-- Per node, GPU model and 5-minute bucket: how many GPUs reported, their utilization summed
-- (busy GPU equivalents x 100), and the GPUs per 5 % bin (busy counts for any threshold).
-- node_id 0 with model '*' holds the whole fleet's total for each bucket.
CREATE TABLE fleet_5m (
    node_id   INTEGER NOT NULL,
    model     TEXT NOT NULL,
    bucket_ms INTEGER NOT NULL,
    gpus      INTEGER NOT NULL,
    util_sum  REAL NOT NULL,
    h00 INTEGER NOT NULL, h01 INTEGER NOT NULL, h02 INTEGER NOT NULL, h03 INTEGER NOT NULL,
    h04 INTEGER NOT NULL, h05 INTEGER NOT NULL, h06 INTEGER NOT NULL, h07 INTEGER NOT NULL,
    h08 INTEGER NOT NULL, h09 INTEGER NOT NULL, h10 INTEGER NOT NULL, h11 INTEGER NOT NULL,
    h12 INTEGER NOT NULL, h13 INTEGER NOT NULL, h14 INTEGER NOT NULL, h15 INTEGER NOT NULL,
    h16 INTEGER NOT NULL, h17 INTEGER NOT NULL, h18 INTEGER NOT NULL, h19 INTEGER NOT NULL,
    h20 INTEGER NOT NULL,
    PRIMARY KEY (bucket_ms, node_id, model)
) WITHOUT ROWID;

CREATE INDEX series_gpu ON series(gpu_id, metric);
