-- Egress proxies per account and per group (issue 18): see migrations/0011_egress_proxies.sql
-- (the PostgreSQL twin). SQLite adds one column per statement; the completeness rule is a
-- check on the last column added.
ALTER TABLE provider_accounts ADD COLUMN egress_proxy TEXT NULL
    CHECK (length(egress_proxy) BETWEEN 1 AND 300);
ALTER TABLE provider_accounts ADD COLUMN egress_proxy_ciphertext BLOB NULL
    CHECK (length(egress_proxy_ciphertext) > 28);
ALTER TABLE provider_accounts ADD COLUMN egress_proxy_key_id TEXT NULL
    CHECK (length(egress_proxy_key_id) BETWEEN 1 AND 64
        AND (egress_proxy IS NULL) = (egress_proxy_ciphertext IS NULL)
        AND (egress_proxy IS NULL) = (egress_proxy_key_id IS NULL));
ALTER TABLE account_groups ADD COLUMN egress_proxy TEXT NULL
    CHECK (length(egress_proxy) BETWEEN 1 AND 300);
ALTER TABLE account_groups ADD COLUMN egress_proxy_ciphertext BLOB NULL
    CHECK (length(egress_proxy_ciphertext) > 28);
ALTER TABLE account_groups ADD COLUMN egress_proxy_key_id TEXT NULL
    CHECK (length(egress_proxy_key_id) BETWEEN 1 AND 64
        AND (egress_proxy IS NULL) = (egress_proxy_ciphertext IS NULL)
        AND (egress_proxy IS NULL) = (egress_proxy_key_id IS NULL));
