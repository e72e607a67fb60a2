-- A node source may be the local BMC read with `ipmitool dcmi power reading` (issue 33): the
-- kind's CHECK gains 'ipmi'. SQLite cannot alter a CHECK, so the table is rebuilt with its
-- rows and ids; nothing references node_source.
CREATE TABLE node_source_new (
    id         INTEGER PRIMARY KEY,
    node_id    INTEGER NOT NULL REFERENCES node(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('dcgm', 'prometheus', 'nvsmi', 'redfish', 'ipmi')),
    url        TEXT NOT NULL DEFAULT '',
    match      TEXT NOT NULL DEFAULT '',
    insecure   INTEGER NOT NULL DEFAULT 0,
    cacert     TEXT NOT NULL DEFAULT '',
    token_file TEXT NOT NULL DEFAULT '',  -- a path; the token itself is never stored
    UNIQUE (node_id, kind, url)
);
INSERT INTO node_source_new SELECT id, node_id, kind, url, match, insecure, cacert, token_file
    FROM node_source;
DROP TABLE node_source;
ALTER TABLE node_source_new RENAME TO node_source;
