-- docs/catalog.md "Exchange rates": dated exchange rates, kept with history like prices. One
-- row says 1 `base` buys `rate` `quote` from effective_from on, until the pair's next row; an
-- import adds rows and never overwrites one (a second value for the same day is ignored).
CREATE TABLE IF NOT EXISTS fx_rate ( -- IF NOT EXISTS: a database rolled back by hand keeps it
    base           TEXT NOT NULL CHECK (length(base) = 3),
    quote          TEXT NOT NULL CHECK (length(quote) = 3 AND quote <> base),
    effective_from TEXT NOT NULL,  -- YYYY-MM-DD
    rate           REAL NOT NULL CHECK (rate > 0),
    source         TEXT NOT NULL,  -- what a report cites: the publisher and dataset
    PRIMARY KEY (base, quote, effective_from)
) WITHOUT ROWID;
