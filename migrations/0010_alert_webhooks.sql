-- Alert webhooks and rules managed in the admin API (issue 23, decision 0284). Webhooks of the
-- configuration file (`alerts.webhooks`) are not stored here; both receive alerts. A webhook's
-- HMAC secret is sealed under the master key like the other secrets (write-only in the API).
CREATE TABLE alert_webhooks (
    id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name              TEXT        NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 100),
    url               TEXT        NOT NULL CHECK (length(url) BETWEEN 1 AND 2048),
    secret_ciphertext BYTEA       NOT NULL,
    secret_key_id     TEXT        NOT NULL,
    -- The alert kinds it receives; empty: every kind.
    kinds             JSONB       NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(kinds) = 'array'),
    enabled           BOOLEAN     NOT NULL DEFAULT TRUE,
    created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX alert_webhooks_name_key ON alert_webhooks (lower(name));

-- One row per alert kind: whether it is raised, and the thresholds of the evaluated rules
-- (`error_rate`: share of failed requests in percent over `window_seconds`, at least
-- `min_requests` requests).
CREATE TABLE alert_rules (
    kind              TEXT        PRIMARY KEY CHECK (kind IN ('account_banned', 'refresh_failing', 'pool_empty',
                                                              'quota_exhausted', 'error_rate', 'backup_failing')),
    enabled           BOOLEAN     NOT NULL DEFAULT TRUE,
    threshold_percent DOUBLE PRECISION NOT NULL DEFAULT 0 CHECK (threshold_percent BETWEEN 0 AND 100),
    window_seconds    INTEGER     NOT NULL DEFAULT 300 CHECK (window_seconds BETWEEN 60 AND 86400),
    min_requests      INTEGER     NOT NULL DEFAULT 1 CHECK (min_requests >= 1),
    updated_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
INSERT INTO alert_rules (kind) VALUES
    ('account_banned'), ('refresh_failing'), ('pool_empty'), ('quota_exhausted'), ('backup_failing');
INSERT INTO alert_rules (kind, threshold_percent, window_seconds, min_requests) VALUES ('error_rate', 25, 300, 20);
