-- Switchboard embedded schema (SQLite): the same twelve tables, facts and constraints as the
-- PostgreSQL migrations 0001_initial.sql + 0004_request_runner.sql.
--
-- Frozen once merged: never edit this file; add 0002_*.sql in this directory instead.
-- Dialect encodings (decision 0181):
--   * ids are INTEGER PRIMARY KEY AUTOINCREMENT (never reused, like PostgreSQL identities);
--   * timestamps are INTEGER unix microseconds (exact and ordered; PostgreSQL keeps microseconds);
--   * booleans are INTEGER 0/1; JSON documents are TEXT checked with json_valid/json_type;
--   * client_api_keys.allowed_models is a JSON array of strings (PostgreSQL: TEXT[]);
--   * UUIDs are 16-byte BLOBs; byte strings are BLOBs;
--   * PostgreSQL regular expressions are written with GLOB (no extension needed).
-- The database is opened with foreign_keys = ON (the adapter sets it on every connection).

-- ---------------------------------------------------------------------------------------------
CREATE TABLE admin_users (
    id                      INTEGER PRIMARY KEY AUTOINCREMENT,
    username                TEXT    NOT NULL CHECK (length(trim(username)) BETWEEN 1 AND 100),
    password_hash           TEXT    NULL CHECK (password_hash LIKE '$argon2id$%'),
    enabled                 INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    totp_secret_ciphertext  BLOB    NULL,
    totp_key_id             TEXT    NULL,
    totp_enabled_at         INTEGER NULL,
    api_key_hash            BLOB    NULL CHECK (length(api_key_hash) = 32),
    api_key_prefix          TEXT    NULL CHECK (length(api_key_prefix) BETWEEN 4 AND 32),
    api_key_created_at      INTEGER NULL,
    last_login_at           INTEGER NULL,
    created_at              INTEGER NOT NULL,
    updated_at              INTEGER NOT NULL,
    CONSTRAINT admin_users_totp_sealed CHECK ((totp_secret_ciphertext IS NULL) = (totp_key_id IS NULL)),
    CONSTRAINT admin_users_totp_enabled CHECK (totp_enabled_at IS NULL OR totp_secret_ciphertext IS NOT NULL),
    CONSTRAINT admin_users_api_key_whole CHECK (
        (api_key_hash IS NULL) = (api_key_prefix IS NULL) AND (api_key_hash IS NULL) = (api_key_created_at IS NULL)
    )
);
CREATE UNIQUE INDEX admin_users_username_key ON admin_users (lower(username));
CREATE UNIQUE INDEX admin_users_api_key_hash_key ON admin_users (api_key_hash) WHERE api_key_hash IS NOT NULL;

-- ---------------------------------------------------------------------------------------------
CREATE TABLE runtime_settings (
    id                          INTEGER PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    config_revision             INTEGER NOT NULL DEFAULT 1 CHECK (config_revision >= 1),
    model_aliases               TEXT    NOT NULL DEFAULT '{}'
        CHECK (json_valid(model_aliases) AND json_type(model_aliases) = 'object'),
    rotation_strategy           TEXT    NOT NULL DEFAULT 'smart'
        CHECK (rotation_strategy IN ('smart', 'quota_reset_priority', 'round_robin', 'sticky')),
    default_account_concurrency INTEGER NOT NULL DEFAULT 4 CHECK (default_account_concurrency BETWEEN 1 AND 10000),
    request_interval_ms         INTEGER NOT NULL DEFAULT 0 CHECK (request_interval_ms BETWEEN 0 AND 3600000),
    refresh_margin_seconds      INTEGER NOT NULL DEFAULT 300 CHECK (refresh_margin_seconds BETWEEN 0 AND 86400),
    refresh_concurrency         INTEGER NOT NULL DEFAULT 4 CHECK (refresh_concurrency BETWEEN 1 AND 256),
    request_retention_days      INTEGER NOT NULL DEFAULT 30 CHECK (request_retention_days BETWEEN 1 AND 3650),
    ops_event_retention_days    INTEGER NOT NULL DEFAULT 14 CHECK (ops_event_retention_days BETWEEN 1 AND 3650),
    updated_at                  INTEGER NOT NULL
);
INSERT INTO runtime_settings (id, updated_at) VALUES (1, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));

-- ---------------------------------------------------------------------------------------------
CREATE TABLE admin_audit_events (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    occurred_at      INTEGER NOT NULL,
    actor_user_id    INTEGER NULL REFERENCES admin_users (id) ON DELETE SET NULL,
    actor_name       TEXT    NOT NULL CHECK (length(actor_name) BETWEEN 1 AND 100),
    action           TEXT    NOT NULL CONSTRAINT admin_audit_events_action_check CHECK (
        action GLOB '[a-z]*' AND action NOT GLOB '*[^a-z0-9_.]*' AND action NOT GLOB '*.[^a-z]*'
        AND action NOT GLOB '*.'
    ),
    target_kind      TEXT    NOT NULL CONSTRAINT admin_audit_events_target_kind_check CHECK (
        target_kind GLOB '[a-z]*' AND target_kind NOT GLOB '*[^a-z0-9_]*'
    ),
    target_id        TEXT    NULL,
    details          TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(details) AND json_type(details) = 'object'),
    config_revision  INTEGER NOT NULL CHECK (config_revision >= 1),
    prev_hash        BLOB    NULL CHECK (length(prev_hash) = 32),
    row_hash         BLOB    NOT NULL CHECK (length(row_hash) = 32)
);
-- PostgreSQL: UNIQUE (prev_hash) NULLS NOT DISTINCT — one genesis row, a linear chain.
CREATE UNIQUE INDEX admin_audit_events_prev_hash_key ON admin_audit_events (coalesce(prev_hash, x''));
CREATE INDEX admin_audit_events_occurred_at_idx ON admin_audit_events (occurred_at DESC, id DESC);
CREATE INDEX admin_audit_events_actor_user_id_idx ON admin_audit_events (actor_user_id);
CREATE INDEX admin_audit_events_target_idx ON admin_audit_events (target_kind, target_id);

-- ---------------------------------------------------------------------------------------------
CREATE TABLE provider_accounts (
    id                       INTEGER PRIMARY KEY AUTOINCREMENT,
    provider                 TEXT    NOT NULL CHECK (provider IN ('openai', 'xai')),
    external_account_id      TEXT    NOT NULL CHECK (length(external_account_id) BETWEEN 1 AND 256),
    email                    TEXT    NULL CHECK (length(email) <= 320),
    plan_type                TEXT    NULL CHECK (length(plan_type) <= 64),
    enabled                  INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    concurrency_cap          INTEGER NULL CHECK (concurrency_cap BETWEEN 1 AND 10000),
    weight                   INTEGER NOT NULL DEFAULT 1 CHECK (weight BETWEEN 1 AND 100),
    credential_ciphertext    BLOB    NOT NULL CHECK (length(credential_ciphertext) > 28),
    credential_key_id        TEXT    NOT NULL CHECK (length(credential_key_id) BETWEEN 1 AND 64),
    credential_revision      INTEGER NOT NULL DEFAULT 1 CHECK (credential_revision >= 1),
    credential_state         TEXT    NOT NULL
        CHECK (credential_state IN ('active', 'unverified', 'invalid', 'expired', 'banned')),
    credential_reason        TEXT    NULL CONSTRAINT provider_accounts_credential_reason_check CHECK (
        credential_reason GLOB '[a-z]*' AND credential_reason NOT GLOB '*[^a-z0-9_]*'
    ),
    access_token_expires_at  INTEGER NULL,
    next_refresh_at          INTEGER NULL,
    refresh_failure_count    INTEGER NOT NULL DEFAULT 0 CHECK (refresh_failure_count >= 0),
    quota_state              TEXT    NOT NULL DEFAULT 'unknown' CHECK (quota_state IN ('allowed', 'exhausted', 'unknown')),
    quota_windows            TEXT    NOT NULL DEFAULT '[]'
        CHECK (json_valid(quota_windows) AND json_type(quota_windows) = 'array'),
    quota_observed_at        INTEGER NULL,
    quota_revision           INTEGER NOT NULL DEFAULT 0 CHECK (quota_revision >= 0),
    provider_data            TEXT    NOT NULL DEFAULT '{}'
        CHECK (json_valid(provider_data) AND json_type(provider_data) = 'object'),
    provider_data_version    INTEGER NOT NULL DEFAULT 1 CHECK (provider_data_version >= 1),
    created_at               INTEGER NOT NULL,
    updated_at               INTEGER NOT NULL,
    CONSTRAINT provider_accounts_external_key UNIQUE (provider, external_account_id),
    CONSTRAINT provider_accounts_reason_matches_state
        CHECK ((credential_state = 'active') = (credential_reason IS NULL))
);
CREATE INDEX provider_accounts_next_refresh_at_idx ON provider_accounts (next_refresh_at)
    WHERE next_refresh_at IS NOT NULL;
CREATE INDEX provider_accounts_credential_key_id_idx ON provider_accounts (credential_key_id);

-- ---------------------------------------------------------------------------------------------
CREATE TABLE account_groups (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT    NOT NULL CHECK (length(trim(name)) BETWEEN 1 AND 100),
    description TEXT    NOT NULL DEFAULT '' CHECK (length(description) <= 1000),
    enabled     INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE UNIQUE INDEX account_groups_name_key ON account_groups (lower(name));

CREATE TABLE account_group_accounts (
    group_id   INTEGER NOT NULL REFERENCES account_groups (id) ON DELETE CASCADE,
    account_id INTEGER NOT NULL REFERENCES provider_accounts (id) ON DELETE CASCADE,
    PRIMARY KEY (group_id, account_id)
);
CREATE INDEX account_group_accounts_account_id_idx ON account_group_accounts (account_id);

-- ---------------------------------------------------------------------------------------------
CREATE TABLE client_api_keys (
    id                            INTEGER PRIMARY KEY AUTOINCREMENT,
    name                          TEXT    NOT NULL CHECK (length(trim(name)) BETWEEN 1 AND 100),
    key_hash                      BLOB    NOT NULL CHECK (length(key_hash) = 32),
    key_prefix                    TEXT    NOT NULL CHECK (length(key_prefix) BETWEEN 4 AND 32),
    enabled                       INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    expires_at                    INTEGER NULL,
    max_concurrency               INTEGER NULL CHECK (max_concurrency >= 1),
    requests_per_minute           INTEGER NULL CHECK (requests_per_minute >= 1),
    daily_token_budget            INTEGER NULL CHECK (daily_token_budget >= 1),
    monthly_token_budget          INTEGER NULL CHECK (monthly_token_budget >= 1),
    daily_cost_budget_nano_usd    INTEGER NULL CHECK (daily_cost_budget_nano_usd >= 1),
    monthly_cost_budget_nano_usd  INTEGER NULL CHECK (monthly_cost_budget_nano_usd >= 1),
    allowed_models                TEXT    NULL CONSTRAINT client_api_keys_allowed_models_check CHECK (
        allowed_models IS NULL
        OR (json_valid(allowed_models) AND json_type(allowed_models) = 'array' AND json_array_length(allowed_models) >= 1)
    ),
    created_at                    INTEGER NOT NULL,
    updated_at                    INTEGER NOT NULL,
    CONSTRAINT client_api_keys_key_hash_key UNIQUE (key_hash)
);

CREATE TABLE client_api_key_groups (
    client_key_id INTEGER NOT NULL REFERENCES client_api_keys (id) ON DELETE CASCADE,
    group_id      INTEGER NOT NULL REFERENCES account_groups (id) ON DELETE RESTRICT,
    PRIMARY KEY (client_key_id, group_id)
);
CREATE INDEX client_api_key_groups_group_id_idx ON client_api_key_groups (group_id);

-- ---------------------------------------------------------------------------------------------
CREATE TABLE model_requests (
    id                      BLOB    PRIMARY KEY CHECK (length(id) = 16),
    client_key_id           INTEGER NULL REFERENCES client_api_keys (id) ON DELETE SET NULL,
    provider                TEXT    NULL CHECK (provider IN ('openai', 'xai')),
    account_id              INTEGER NULL REFERENCES provider_accounts (id) ON DELETE SET NULL,
    requested_model         TEXT    NOT NULL CHECK (length(requested_model) <= 256),
    upstream_model          TEXT    NULL CHECK (length(upstream_model) <= 256),
    operation               TEXT    NOT NULL CONSTRAINT model_requests_operation_check CHECK (
        operation GLOB '[a-z]*' AND operation NOT GLOB '*[^a-z0-9_.]*'
    ),
    transport               TEXT    NOT NULL CHECK (transport IN ('http', 'websocket')),
    stream                  INTEGER NOT NULL CHECK (stream IN (0, 1)),
    status                  TEXT    NOT NULL DEFAULT 'running'
        CHECK (status IN ('running', 'completed', 'failed', 'incomplete', 'cancelled')),
    send_state              TEXT    NOT NULL DEFAULT 'not_sent' CHECK (send_state IN ('not_sent', 'ambiguous', 'sent')),
    http_status             INTEGER NULL CHECK (http_status BETWEEN 100 AND 599),
    error_code              TEXT    NULL CHECK (length(error_code) <= 128),
    attempts                TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(attempts) AND json_type(attempts) = 'array'),
    input_tokens            INTEGER NULL CHECK (input_tokens >= 0),
    cached_input_tokens     INTEGER NULL CHECK (cached_input_tokens >= 0),
    output_tokens           INTEGER NULL CHECK (output_tokens >= 0),
    reasoning_tokens        INTEGER NULL CHECK (reasoning_tokens >= 0),
    total_tokens            INTEGER NULL CHECK (total_tokens >= 0),
    cost_nano_usd           INTEGER NULL CHECK (cost_nano_usd >= 0),
    service_tier            TEXT    NULL CHECK (length(service_tier) <= 64),
    client_response_id      BLOB    NULL,
    upstream_response_id    BLOB    NULL,
    routing_scope           TEXT    NOT NULL CHECK (routing_scope IN ('all', 'groups')),
    routing_groups          TEXT    NOT NULL DEFAULT '[]'
        CHECK (json_valid(routing_groups) AND json_type(routing_groups) = 'array'),
    started_at              INTEGER NOT NULL,
    deadline_at             INTEGER NOT NULL,
    downstream_committed_at INTEGER NULL,
    finished_at             INTEGER NULL,
    connect_ms              INTEGER NULL CHECK (connect_ms >= 0),
    headers_ms              INTEGER NULL CHECK (headers_ms >= 0),
    first_event_ms          INTEGER NULL CHECK (first_event_ms >= 0),
    first_token_ms          INTEGER NULL CHECK (first_token_ms >= 0),
    total_ms                INTEGER NULL CHECK (total_ms >= 0),
    replica_name            TEXT    NULL CHECK (length(replica_name) BETWEEN 1 AND 200),
    boot_id                 BLOB    NULL CHECK (length(boot_id) = 16),
    CONSTRAINT model_requests_deadline_after_start CHECK (deadline_at >= started_at),
    CONSTRAINT model_requests_finished_when_terminal CHECK ((status = 'running') = (finished_at IS NULL)),
    CONSTRAINT model_requests_groups_match_scope
        CHECK (routing_scope = 'groups' OR json_array_length(routing_groups) = 0),
    CONSTRAINT model_requests_runner_whole CHECK ((replica_name IS NULL) = (boot_id IS NULL))
);
CREATE INDEX model_requests_started_at_idx ON model_requests (started_at DESC, id DESC);
CREATE INDEX model_requests_client_key_idx ON model_requests (client_key_id, started_at DESC);
CREATE INDEX model_requests_account_idx ON model_requests (account_id, started_at DESC);
CREATE INDEX model_requests_model_idx ON model_requests (requested_model, started_at DESC);
CREATE INDEX model_requests_status_idx ON model_requests (status, started_at DESC);
CREATE INDEX model_requests_running_deadline_idx ON model_requests (deadline_at) WHERE status = 'running';
CREATE INDEX model_requests_running_boot_idx ON model_requests (boot_id) WHERE status = 'running';

-- The two monotone facts for every writer. SQLite triggers cannot rewrite NEW: a falling
-- watermark is put back right after the update, and a terminal row set back to `running` is
-- refused by model_requests_finished_when_terminal (running rows have no finished_at) or here.
CREATE TRIGGER model_requests_keep_watermark AFTER UPDATE OF send_state ON model_requests
    FOR EACH ROW
    WHEN (CASE NEW.send_state WHEN 'not_sent' THEN 0 WHEN 'ambiguous' THEN 1 ELSE 2 END)
       < (CASE OLD.send_state WHEN 'not_sent' THEN 0 WHEN 'ambiguous' THEN 1 ELSE 2 END)
BEGIN
    UPDATE model_requests SET send_state = OLD.send_state WHERE id = NEW.id;
END;
CREATE TRIGGER model_requests_keep_terminal BEFORE UPDATE OF status ON model_requests
    FOR EACH ROW
    WHEN OLD.status <> 'running' AND NEW.status = 'running'
BEGIN
    SELECT RAISE(ABORT, 'model_requests_keep_monotone: a terminal request cannot run again');
END;

-- ---------------------------------------------------------------------------------------------
CREATE TABLE ops_events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    occurred_at INTEGER NOT NULL,
    level       TEXT    NOT NULL CHECK (level IN ('debug', 'info', 'warn', 'error')),
    kind        TEXT    NOT NULL CONSTRAINT ops_events_kind_check CHECK (
        kind GLOB '[a-z]*' AND kind NOT GLOB '*[^a-z0-9_.]*' AND kind NOT GLOB '*.[^a-z]*' AND kind NOT GLOB '*.'
    ),
    provider    TEXT    NULL CHECK (provider IN ('openai', 'xai')),
    account_id  INTEGER NULL REFERENCES provider_accounts (id) ON DELETE SET NULL,
    request_id  BLOB    NULL REFERENCES model_requests (id) ON DELETE SET NULL,
    message     TEXT    NOT NULL CHECK (length(message) <= 2000),
    details     TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(details) AND json_type(details) = 'object')
);
CREATE INDEX ops_events_occurred_at_idx ON ops_events (occurred_at DESC, id DESC);
CREATE INDEX ops_events_account_id_idx ON ops_events (account_id, occurred_at DESC);
CREATE INDEX ops_events_request_id_idx ON ops_events (request_id);

-- ---------------------------------------------------------------------------------------------
CREATE TABLE backup_settings (
    id                      INTEGER PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    enabled                 INTEGER NOT NULL DEFAULT 0 CHECK (enabled IN (0, 1)),
    endpoint                TEXT    NOT NULL DEFAULT '' CHECK (length(endpoint) <= 2048),
    region                  TEXT    NOT NULL DEFAULT '' CHECK (length(region) <= 64),
    bucket                  TEXT    NOT NULL DEFAULT '' CHECK (length(bucket) <= 255),
    path_style              INTEGER NOT NULL DEFAULT 0 CHECK (path_style IN (0, 1)),
    prefix                  TEXT    NOT NULL DEFAULT '' CHECK (length(prefix) <= 1024),
    credentials_ciphertext  BLOB    NULL,
    credentials_key_id      TEXT    NULL,
    schedule_cron           TEXT    NULL CHECK (length(schedule_cron) BETWEEN 1 AND 128),
    retention_count         INTEGER NULL CHECK (retention_count >= 1),
    retention_days          INTEGER NULL CHECK (retention_days >= 1),
    schedule_cursor_at      INTEGER NULL,
    updated_at              INTEGER NOT NULL,
    CONSTRAINT backup_settings_credentials_sealed CHECK ((credentials_ciphertext IS NULL) = (credentials_key_id IS NULL))
);
INSERT INTO backup_settings (id, updated_at) VALUES (1, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER));

CREATE TABLE backup_records (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    "trigger"     TEXT    NOT NULL CHECK ("trigger" IN ('manual', 'scheduled')),
    state         TEXT    NOT NULL DEFAULT 'queued'
        CHECK (state IN ('queued', 'dumping', 'uploading', 'completed', 'failed', 'deleting')),
    object_key    TEXT    NULL CHECK (length(object_key) <= 2048),
    size_bytes    INTEGER NULL CHECK (size_bytes >= 0),
    sha256        BLOB    NULL CHECK (length(sha256) = 32),
    error_code    TEXT    NULL CHECK (length(error_code) <= 128),
    error_message TEXT    NULL CHECK (length(error_message) <= 2000),
    expires_at    INTEGER NULL,
    created_at    INTEGER NOT NULL,
    started_at    INTEGER NULL,
    finished_at   INTEGER NULL,
    updated_at    INTEGER NOT NULL,
    CONSTRAINT backup_records_completed_has_object
        CHECK (state <> 'completed' OR (object_key IS NOT NULL AND size_bytes IS NOT NULL AND finished_at IS NOT NULL)),
    CONSTRAINT backup_records_failed_has_error CHECK (state <> 'failed' OR error_code IS NOT NULL)
);
-- At most one active job (queued, dumping or uploading): under the WHERE the indexed expression is
-- always 1, so a second active row collides.
CREATE UNIQUE INDEX backup_records_one_active_key ON backup_records ((state IN ('queued', 'dumping', 'uploading')))
    WHERE state IN ('queued', 'dumping', 'uploading');
CREATE INDEX backup_records_created_at_idx ON backup_records (created_at DESC, id DESC);
CREATE INDEX backup_records_expires_at_idx ON backup_records (expires_at) WHERE expires_at IS NOT NULL;
