-- service_tier policy per client key (issue 20, decision 0265): what the gateway does with a
-- request's `service_tier` before the upstream call. Existing keys keep passing it through.
ALTER TABLE client_api_keys
    ADD COLUMN service_tier_policy TEXT NOT NULL DEFAULT 'allow'
        CHECK (service_tier_policy IN ('allow', 'deny', 'force_priority'));
