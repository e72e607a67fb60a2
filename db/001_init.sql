-- Scenarios: a name, and every saved version of its JSON (never overwritten).
CREATE TABLE scenario (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);

CREATE TABLE scenario_version (
    scenario_id INTEGER NOT NULL REFERENCES scenario(id) ON DELETE CASCADE,
    version     INTEGER NOT NULL CHECK (version >= 1),
    json        TEXT NOT NULL,
    saved_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    PRIMARY KEY (scenario_id, version)
) WITHOUT ROWID;
