-- service_tier policy per client key (issue 20): see migrations/0008_service_tier_policy.sql
-- (the PostgreSQL twin).
ALTER TABLE client_api_keys ADD COLUMN service_tier_policy TEXT NOT NULL DEFAULT 'allow'
    CHECK (service_tier_policy IN ('allow', 'deny', 'force_priority'));
