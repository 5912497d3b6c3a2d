-- Switchboard initial schema: the twelve business tables of SPEC §8.
--
-- Frozen once merged: never edit this file; add 0002_*.sql instead (see migrations/README.md).
-- Conventions:
--   * database-assigned ids are BIGINT identities; model_requests.id is a UUIDv7 made in process;
--   * every closed set is a CHECK constraint; every relation is a real FOREIGN KEY with an index;
--   * account state (normal / quota_exhausted / rate_limited / disabled / error) is derived by the
--     core resolver from the credential facts and quota facts below: there is no status column;
--   * secrets are AES-256-GCM ciphertexts (BYTEA) next to the id of the key that sealed them;
--   * money is integer nano-USD (1 USD = 1,000,000,000).

-- ---------------------------------------------------------------------------------------------
-- Administrators. A row with a NULL password_hash cannot log in with a password: it exists for
-- automation through its admin API key (one key per admin user; create one user per automation).
CREATE TABLE admin_users (
    id                      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    username                TEXT        NOT NULL CHECK (length(btrim(username)) BETWEEN 1 AND 100),
    password_hash           TEXT        NULL CHECK (password_hash LIKE '$argon2id$%'),
    enabled                 BOOLEAN     NOT NULL DEFAULT TRUE,
    totp_secret_ciphertext  BYTEA       NULL,
    totp_key_id             TEXT        NULL,
    totp_enabled_at         TIMESTAMPTZ NULL,
    api_key_hash            BYTEA       NULL CHECK (octet_length(api_key_hash) = 32),
    api_key_prefix          TEXT        NULL CHECK (length(api_key_prefix) BETWEEN 4 AND 32),
    api_key_created_at      TIMESTAMPTZ NULL,
    last_login_at           TIMESTAMPTZ NULL,
    created_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT admin_users_totp_sealed CHECK ((totp_secret_ciphertext IS NULL) = (totp_key_id IS NULL)),
    CONSTRAINT admin_users_totp_enabled CHECK (totp_enabled_at IS NULL OR totp_secret_ciphertext IS NOT NULL),
    CONSTRAINT admin_users_api_key_whole CHECK (
        (api_key_hash IS NULL) = (api_key_prefix IS NULL) AND (api_key_hash IS NULL) = (api_key_created_at IS NULL)
    )
);
CREATE UNIQUE INDEX admin_users_username_key ON admin_users (lower(username));
CREATE UNIQUE INDEX admin_users_api_key_hash_key ON admin_users (api_key_hash) WHERE api_key_hash IS NOT NULL;

-- ---------------------------------------------------------------------------------------------
-- Global runtime settings: exactly one row. config_revision is bumped by every admin unit of
-- work that changes the routing snapshot or security configuration (SPEC §7).
CREATE TABLE runtime_settings (
    id                          SMALLINT    PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    config_revision             BIGINT      NOT NULL DEFAULT 1 CHECK (config_revision >= 1),
    model_aliases               JSONB       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(model_aliases) = 'object'),
    rotation_strategy           TEXT        NOT NULL DEFAULT 'smart'
        CHECK (rotation_strategy IN ('smart', 'quota_reset_priority', 'round_robin', 'sticky')),
    default_account_concurrency INTEGER     NOT NULL DEFAULT 4 CHECK (default_account_concurrency BETWEEN 1 AND 10000),
    request_interval_ms         INTEGER     NOT NULL DEFAULT 0 CHECK (request_interval_ms BETWEEN 0 AND 3600000),
    refresh_margin_seconds      INTEGER     NOT NULL DEFAULT 300 CHECK (refresh_margin_seconds BETWEEN 0 AND 86400),
    refresh_concurrency         INTEGER     NOT NULL DEFAULT 4 CHECK (refresh_concurrency BETWEEN 1 AND 256),
    request_retention_days      INTEGER     NOT NULL DEFAULT 30 CHECK (request_retention_days BETWEEN 1 AND 3650),
    ops_event_retention_days    INTEGER     NOT NULL DEFAULT 14 CHECK (ops_event_retention_days BETWEEN 1 AND 3650),
    updated_at                  TIMESTAMPTZ NOT NULL DEFAULT now()
);
INSERT INTO runtime_settings (id) VALUES (1);

-- ---------------------------------------------------------------------------------------------
-- Audit of admin mutations, written by the same transaction as the mutation. details is
-- redacted by the use case. row_hash = SHA-256 over prev_hash and the row's facts (the exact
-- encoding is gateway_admin::audit::AuditChain); the unique prev_hash keeps the chain linear.
CREATE TABLE admin_audit_events (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    occurred_at      TIMESTAMPTZ NOT NULL,
    actor_user_id    BIGINT      NULL REFERENCES admin_users (id) ON DELETE SET NULL,
    actor_name       TEXT        NOT NULL CHECK (length(actor_name) BETWEEN 1 AND 100),
    action           TEXT        NOT NULL CHECK (action ~ '^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$'),
    target_kind      TEXT        NOT NULL CHECK (target_kind ~ '^[a-z][a-z0-9_]*$'),
    target_id        TEXT        NULL,
    details          JSONB       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object'),
    config_revision  BIGINT      NOT NULL CHECK (config_revision >= 1),
    prev_hash        BYTEA       NULL CHECK (octet_length(prev_hash) = 32),
    row_hash         BYTEA       NOT NULL CHECK (octet_length(row_hash) = 32)
);
CREATE UNIQUE INDEX admin_audit_events_prev_hash_key ON admin_audit_events (prev_hash) NULLS NOT DISTINCT;
CREATE INDEX admin_audit_events_occurred_at_idx ON admin_audit_events (occurred_at DESC, id DESC);
CREATE INDEX admin_audit_events_actor_user_id_idx ON admin_audit_events (actor_user_id);
CREATE INDEX admin_audit_events_target_idx ON admin_audit_events (target_kind, target_id);

-- ---------------------------------------------------------------------------------------------
-- Upstream accounts. Scheduling facts (enabled, concurrency_cap, weight, group membership) are
-- written only by admin edits; import, re-authorisation and refresh write only credential,
-- profile and quota facts.
CREATE TABLE provider_accounts (
    id                       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    provider                 TEXT        NOT NULL CHECK (provider IN ('openai', 'xai')),
    external_account_id      TEXT        NOT NULL CHECK (length(external_account_id) BETWEEN 1 AND 256),
    email                    TEXT        NULL CHECK (length(email) <= 320),
    plan_type                TEXT        NULL CHECK (length(plan_type) <= 64),
    -- scheduling facts
    enabled                  BOOLEAN     NOT NULL DEFAULT TRUE,
    concurrency_cap          INTEGER     NULL CHECK (concurrency_cap BETWEEN 1 AND 10000),
    weight                   SMALLINT    NOT NULL DEFAULT 1 CHECK (weight BETWEEN 1 AND 100),
    -- the provider's credential document, sealed
    credential_ciphertext    BYTEA       NOT NULL CHECK (octet_length(credential_ciphertext) > 28),
    credential_key_id        TEXT        NOT NULL CHECK (length(credential_key_id) BETWEEN 1 AND 64),
    credential_revision      BIGINT      NOT NULL DEFAULT 1 CHECK (credential_revision >= 1),
    -- credential facts
    credential_state         TEXT        NOT NULL
        CHECK (credential_state IN ('active', 'unverified', 'invalid', 'expired', 'banned')),
    credential_reason        TEXT        NULL CHECK (credential_reason ~ '^[a-z][a-z0-9_]*$'),
    access_token_expires_at  TIMESTAMPTZ NULL,
    next_refresh_at          TIMESTAMPTZ NULL,
    refresh_failure_count    INTEGER     NOT NULL DEFAULT 0 CHECK (refresh_failure_count >= 0),
    -- quota facts (429 cooldowns live in Redis only)
    quota_state              TEXT        NOT NULL DEFAULT 'unknown' CHECK (quota_state IN ('allowed', 'exhausted', 'unknown')),
    quota_windows            JSONB       NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(quota_windows) = 'array'),
    quota_observed_at        TIMESTAMPTZ NULL,
    quota_revision           BIGINT      NOT NULL DEFAULT 0 CHECK (quota_revision >= 0),
    -- provider-private facts, schema-versioned by the provider
    provider_data            JSONB       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(provider_data) = 'object'),
    provider_data_version    INTEGER     NOT NULL DEFAULT 1 CHECK (provider_data_version >= 1),
    created_at               TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at               TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT provider_accounts_external_key UNIQUE (provider, external_account_id),
    CONSTRAINT provider_accounts_reason_matches_state
        CHECK ((credential_state = 'active') = (credential_reason IS NULL))
);
CREATE INDEX provider_accounts_next_refresh_at_idx ON provider_accounts (next_refresh_at)
    WHERE next_refresh_at IS NOT NULL;
CREATE INDEX provider_accounts_credential_key_id_idx ON provider_accounts (credential_key_id);

-- ---------------------------------------------------------------------------------------------
-- Provider-neutral account groups and their membership.
CREATE TABLE account_groups (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        TEXT        NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 100),
    description TEXT        NOT NULL DEFAULT '' CHECK (length(description) <= 1000),
    enabled     BOOLEAN     NOT NULL DEFAULT TRUE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX account_groups_name_key ON account_groups (lower(name));

CREATE TABLE account_group_accounts (
    group_id   BIGINT NOT NULL REFERENCES account_groups (id) ON DELETE CASCADE,
    account_id BIGINT NOT NULL REFERENCES provider_accounts (id) ON DELETE CASCADE,
    PRIMARY KEY (group_id, account_id)
);
CREATE INDEX account_group_accounts_account_id_idx ON account_group_accounts (account_id);

-- ---------------------------------------------------------------------------------------------
-- Client API keys: only the SHA-256 of the key and a display prefix are stored.
-- Money budgets are nano-USD. allowed_models NULL = every model.
CREATE TABLE client_api_keys (
    id                            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name                          TEXT        NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 100),
    key_hash                      BYTEA       NOT NULL CHECK (octet_length(key_hash) = 32),
    key_prefix                    TEXT        NOT NULL CHECK (length(key_prefix) BETWEEN 4 AND 32),
    enabled                       BOOLEAN     NOT NULL DEFAULT TRUE,
    expires_at                    TIMESTAMPTZ NULL,
    max_concurrency               INTEGER     NULL CHECK (max_concurrency >= 1),
    requests_per_minute           INTEGER     NULL CHECK (requests_per_minute >= 1),
    daily_token_budget            BIGINT      NULL CHECK (daily_token_budget >= 1),
    monthly_token_budget          BIGINT      NULL CHECK (monthly_token_budget >= 1),
    daily_cost_budget_nano_usd    BIGINT      NULL CHECK (daily_cost_budget_nano_usd >= 1),
    monthly_cost_budget_nano_usd  BIGINT      NULL CHECK (monthly_cost_budget_nano_usd >= 1),
    allowed_models                TEXT[]      NULL CHECK (cardinality(allowed_models) >= 1),
    created_at                    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at                    TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT client_api_keys_key_hash_key UNIQUE (key_hash)
);

-- Zero rows for a key = the key may use every account. A group bound to a key cannot be deleted
-- (RESTRICT): silently widening the key's scope to all accounts is never an accident.
CREATE TABLE client_api_key_groups (
    client_key_id BIGINT NOT NULL REFERENCES client_api_keys (id) ON DELETE CASCADE,
    group_id      BIGINT NOT NULL REFERENCES account_groups (id) ON DELETE RESTRICT,
    PRIMARY KEY (client_key_id, group_id)
);
CREATE INDEX client_api_key_groups_group_id_idx ON client_api_key_groups (group_id);

-- ---------------------------------------------------------------------------------------------
-- One row per client request (invariant 1): attempts live in the attempts JSONB array.
CREATE TABLE model_requests (
    id                      UUID        PRIMARY KEY,
    client_key_id           BIGINT      NULL REFERENCES client_api_keys (id) ON DELETE SET NULL,
    provider                TEXT        NULL CHECK (provider IN ('openai', 'xai')),
    account_id              BIGINT      NULL REFERENCES provider_accounts (id) ON DELETE SET NULL,
    requested_model         TEXT        NOT NULL CHECK (length(requested_model) <= 256),
    upstream_model          TEXT        NULL CHECK (length(upstream_model) <= 256),
    operation               TEXT        NOT NULL CHECK (operation ~ '^[a-z][a-z0-9_.]*$'),
    transport               TEXT        NOT NULL CHECK (transport IN ('http', 'websocket')),
    stream                  BOOLEAN     NOT NULL,
    status                  TEXT        NOT NULL DEFAULT 'running'
        CHECK (status IN ('running', 'completed', 'failed', 'incomplete', 'cancelled')),
    send_state              TEXT        NOT NULL DEFAULT 'not_sent' CHECK (send_state IN ('not_sent', 'ambiguous', 'sent')),
    http_status             SMALLINT    NULL CHECK (http_status BETWEEN 100 AND 599),
    error_code              TEXT        NULL CHECK (length(error_code) <= 128),
    attempts                JSONB       NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(attempts) = 'array'),
    input_tokens            BIGINT      NULL CHECK (input_tokens >= 0),
    cached_input_tokens     BIGINT      NULL CHECK (cached_input_tokens >= 0),
    output_tokens           BIGINT      NULL CHECK (output_tokens >= 0),
    reasoning_tokens        BIGINT      NULL CHECK (reasoning_tokens >= 0),
    total_tokens            BIGINT      NULL CHECK (total_tokens >= 0),
    cost_nano_usd           BIGINT      NULL CHECK (cost_nano_usd >= 0),
    service_tier            TEXT        NULL CHECK (length(service_tier) <= 64),
    client_response_id      BYTEA       NULL,
    upstream_response_id    BYTEA       NULL,
    routing_scope           TEXT        NOT NULL CHECK (routing_scope IN ('all', 'groups')),
    routing_groups          JSONB       NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(routing_groups) = 'array'),
    started_at              TIMESTAMPTZ NOT NULL,
    deadline_at             TIMESTAMPTZ NOT NULL,
    downstream_committed_at TIMESTAMPTZ NULL,
    finished_at             TIMESTAMPTZ NULL,
    connect_ms              INTEGER     NULL CHECK (connect_ms >= 0),
    headers_ms              INTEGER     NULL CHECK (headers_ms >= 0),
    first_event_ms          INTEGER     NULL CHECK (first_event_ms >= 0),
    first_token_ms          INTEGER     NULL CHECK (first_token_ms >= 0),
    total_ms                INTEGER     NULL CHECK (total_ms >= 0),
    CONSTRAINT model_requests_deadline_after_start CHECK (deadline_at >= started_at),
    CONSTRAINT model_requests_finished_when_terminal CHECK ((status = 'running') = (finished_at IS NULL)),
    CONSTRAINT model_requests_groups_match_scope CHECK (routing_scope = 'groups' OR routing_groups = '[]')
);
CREATE INDEX model_requests_started_at_idx ON model_requests (started_at DESC, id DESC);
CREATE INDEX model_requests_client_key_idx ON model_requests (client_key_id, started_at DESC);
CREATE INDEX model_requests_account_idx ON model_requests (account_id, started_at DESC);
CREATE INDEX model_requests_model_idx ON model_requests (requested_model, started_at DESC);
CREATE INDEX model_requests_status_idx ON model_requests (status, started_at DESC);
CREATE INDEX model_requests_running_deadline_idx ON model_requests (deadline_at) WHERE status = 'running';

-- The two monotone facts of a request, enforced for every writer: the send-state watermark
-- never falls (not_sent < ambiguous < sent) and a terminal row never returns to running.
CREATE FUNCTION model_requests_keep_monotone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF array_position(ARRAY['not_sent', 'ambiguous', 'sent'], NEW.send_state)
       < array_position(ARRAY['not_sent', 'ambiguous', 'sent'], OLD.send_state) THEN
        NEW.send_state := OLD.send_state;
    END IF;
    IF OLD.status <> 'running' AND NEW.status = 'running' THEN
        NEW.status := OLD.status;
        NEW.finished_at := OLD.finished_at;
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER model_requests_keep_monotone BEFORE UPDATE ON model_requests
    FOR EACH ROW EXECUTE FUNCTION model_requests_keep_monotone();

-- ---------------------------------------------------------------------------------------------
-- Redacted runtime events (refresh failures, intermediate attempt failures, recoveries…).
CREATE TABLE ops_events (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    occurred_at TIMESTAMPTZ NOT NULL,
    level       TEXT        NOT NULL CHECK (level IN ('debug', 'info', 'warn', 'error')),
    kind        TEXT        NOT NULL CHECK (kind ~ '^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$'),
    provider    TEXT        NULL CHECK (provider IN ('openai', 'xai')),
    account_id  BIGINT      NULL REFERENCES provider_accounts (id) ON DELETE SET NULL,
    request_id  UUID        NULL REFERENCES model_requests (id) ON DELETE SET NULL,
    message     TEXT        NOT NULL CHECK (length(message) <= 2000),
    details     JSONB       NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(details) = 'object')
);
CREATE INDEX ops_events_occurred_at_idx ON ops_events (occurred_at DESC, id DESC);
CREATE INDEX ops_events_account_id_idx ON ops_events (account_id, occurred_at DESC);
CREATE INDEX ops_events_request_id_idx ON ops_events (request_id);

-- ---------------------------------------------------------------------------------------------
-- Backups: one settings row, and one record per backup job.
CREATE TABLE backup_settings (
    id                      SMALLINT    PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    enabled                 BOOLEAN     NOT NULL DEFAULT FALSE,
    endpoint                TEXT        NOT NULL DEFAULT '' CHECK (length(endpoint) <= 2048),
    region                  TEXT        NOT NULL DEFAULT '' CHECK (length(region) <= 64),
    bucket                  TEXT        NOT NULL DEFAULT '' CHECK (length(bucket) <= 255),
    path_style              BOOLEAN     NOT NULL DEFAULT FALSE,
    prefix                  TEXT        NOT NULL DEFAULT '' CHECK (length(prefix) <= 1024),
    credentials_ciphertext  BYTEA       NULL,
    credentials_key_id      TEXT        NULL,
    schedule_cron           TEXT        NULL CHECK (length(schedule_cron) BETWEEN 1 AND 128),
    retention_count         INTEGER     NULL CHECK (retention_count >= 1),
    retention_days          INTEGER     NULL CHECK (retention_days >= 1),
    schedule_cursor_at      TIMESTAMPTZ NULL,
    updated_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT backup_settings_credentials_sealed CHECK ((credentials_ciphertext IS NULL) = (credentials_key_id IS NULL))
);
INSERT INTO backup_settings (id) VALUES (1);

CREATE TABLE backup_records (
    id            BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    trigger       TEXT        NOT NULL CHECK (trigger IN ('manual', 'scheduled')),
    state         TEXT        NOT NULL DEFAULT 'queued'
        CHECK (state IN ('queued', 'dumping', 'uploading', 'completed', 'failed', 'deleting')),
    object_key    TEXT        NULL CHECK (length(object_key) <= 2048),
    size_bytes    BIGINT      NULL CHECK (size_bytes >= 0),
    sha256        BYTEA       NULL CHECK (octet_length(sha256) = 32),
    error_code    TEXT        NULL CHECK (length(error_code) <= 128),
    error_message TEXT        NULL CHECK (length(error_message) <= 2000),
    expires_at    TIMESTAMPTZ NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    started_at    TIMESTAMPTZ NULL,
    finished_at   TIMESTAMPTZ NULL,
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT backup_records_completed_has_object
        CHECK (state <> 'completed' OR (object_key IS NOT NULL AND size_bytes IS NOT NULL AND finished_at IS NOT NULL)),
    CONSTRAINT backup_records_failed_has_error CHECK (state <> 'failed' OR error_code IS NOT NULL)
);
-- At most one active job (queued, dumping or uploading) at any time.
CREATE UNIQUE INDEX backup_records_one_active_key ON backup_records ((TRUE))
    WHERE state IN ('queued', 'dumping', 'uploading');
CREATE INDEX backup_records_created_at_idx ON backup_records (created_at DESC, id DESC);
CREATE INDEX backup_records_expires_at_idx ON backup_records (expires_at) WHERE expires_at IS NOT NULL;
