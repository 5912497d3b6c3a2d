-- Egress proxies per account and per group (issue 18, decision 0241). The whole proxy URL is
-- sealed (its user info is a secret); `egress_proxy` keeps the URL without user info
-- (`scheme://host:port`) for views and audit rows. All three columns are set together or not.
ALTER TABLE provider_accounts
    ADD COLUMN egress_proxy            TEXT  NULL CHECK (length(egress_proxy) BETWEEN 1 AND 300),
    ADD COLUMN egress_proxy_ciphertext BYTEA NULL CHECK (octet_length(egress_proxy_ciphertext) > 28),
    ADD COLUMN egress_proxy_key_id     TEXT  NULL CHECK (length(egress_proxy_key_id) BETWEEN 1 AND 64),
    ADD CONSTRAINT provider_accounts_egress_proxy_complete CHECK (
        (egress_proxy IS NULL) = (egress_proxy_ciphertext IS NULL)
        AND (egress_proxy IS NULL) = (egress_proxy_key_id IS NULL)
    );
ALTER TABLE account_groups
    ADD COLUMN egress_proxy            TEXT  NULL CHECK (length(egress_proxy) BETWEEN 1 AND 300),
    ADD COLUMN egress_proxy_ciphertext BYTEA NULL CHECK (octet_length(egress_proxy_ciphertext) > 28),
    ADD COLUMN egress_proxy_key_id     TEXT  NULL CHECK (length(egress_proxy_key_id) BETWEEN 1 AND 64),
    ADD CONSTRAINT account_groups_egress_proxy_complete CHECK (
        (egress_proxy IS NULL) = (egress_proxy_ciphertext IS NULL)
        AND (egress_proxy IS NULL) = (egress_proxy_key_id IS NULL)
    );
