-- Indexes for two lookups their tables' keys cannot serve (src/store/store_int.h names the
-- statements): a host's earliest import mark over all its nodes, asked 4 times per host per
-- import (a scan of history_mark each at 20k hosts), and the bases quoted against a currency,
-- which an exchange-rate cross starts from.
CREATE INDEX IF NOT EXISTS history_mark_host ON history_mark(source, metric, host);
CREATE INDEX IF NOT EXISTS fx_rate_quote ON fx_rate(quote, base);
