-- Cookie jars per account (issue 33): see migrations/0012_account_cookies.sql (the PostgreSQL
-- twin).
CREATE TABLE account_cookies (
    account_id      INTEGER PRIMARY KEY REFERENCES provider_accounts (id) ON DELETE CASCADE,
    egress_path     TEXT    NOT NULL CHECK (length(egress_path) BETWEEN 1 AND 300),
    jar_ciphertext  BLOB    NOT NULL CHECK (length(jar_ciphertext) > 28),
    jar_key_id      TEXT    NOT NULL CHECK (length(jar_key_id) BETWEEN 1 AND 64),
    cookies         TEXT    NOT NULL DEFAULT '[]' CHECK (length(cookies) <= 65536 AND json_valid(cookies)),
    updated_at      INTEGER NOT NULL
);
