-- Alert webhooks and rules managed in the admin API (issue 23): see
-- migrations/0010_alert_webhooks.sql (the PostgreSQL twin). Times are Unix microseconds.
CREATE TABLE alert_webhooks (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    name              TEXT    NOT NULL CHECK (length(trim(name)) BETWEEN 1 AND 100),
    url               TEXT    NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    secret_ciphertext BLOB    NOT NULL,
    secret_key_id     TEXT    NOT NULL,
    kinds             TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(kinds) AND json_type(kinds) = 'array'),
    enabled           INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
);
CREATE UNIQUE INDEX alert_webhooks_name_key ON alert_webhooks (lower(name));

CREATE TABLE alert_rules (
    kind              TEXT    PRIMARY KEY CHECK (kind IN ('account_banned', 'refresh_failing', 'pool_empty',
                                                          'quota_exhausted', 'error_rate', 'backup_failing')),
    enabled           INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    threshold_percent REAL    NOT NULL DEFAULT 0 CHECK (threshold_percent BETWEEN 0 AND 100),
    window_seconds    INTEGER NOT NULL DEFAULT 300 CHECK (window_seconds BETWEEN 60 AND 86400),
    min_requests      INTEGER NOT NULL DEFAULT 1 CHECK (min_requests >= 1),
    updated_at        INTEGER NOT NULL DEFAULT (CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER))
);
INSERT INTO alert_rules (kind) VALUES
    ('account_banned'), ('refresh_failing'), ('pool_empty'), ('quota_exhausted'), ('backup_failing');
INSERT INTO alert_rules (kind, threshold_percent, window_seconds, min_requests) VALUES ('error_rate', 25, 300, 20);
