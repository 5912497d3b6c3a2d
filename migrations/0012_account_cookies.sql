-- Cookie jars per account (issue 33, decision 0307): the cookies the upstream set on the
-- account's answers (`__cf_bm`, `cf_clearance`, session cookies), collected on one egress path
-- and sent back on that account's later requests. The jar is a secret, sealed like the
-- credential; `cookies` holds the same cookies without their values (names, domains, paths,
-- expiry) for the admin view. A deleted account takes its jar with it.
CREATE TABLE account_cookies (
    account_id      BIGINT      PRIMARY KEY REFERENCES provider_accounts (id) ON DELETE CASCADE,
    egress_path     TEXT        NOT NULL CHECK (length(egress_path) BETWEEN 1 AND 300),
    jar_ciphertext  BYTEA       NOT NULL CHECK (octet_length(jar_ciphertext) > 28),
    jar_key_id      TEXT        NOT NULL CHECK (length(jar_key_id) BETWEEN 1 AND 64),
    cookies         TEXT        NOT NULL DEFAULT '[]' CHECK (length(cookies) <= 65536),
    updated_at      TIMESTAMPTZ NOT NULL
);
