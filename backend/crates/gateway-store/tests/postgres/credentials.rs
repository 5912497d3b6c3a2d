//! PostgreSQL-only credential checks (the port behaviour is in `storage_contract::credentials`).

use crate::postgres::test_store::TestStore;

#[tokio::test]
async fn the_credentials_column_holds_no_plaintext() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    t.import("acct-1", "plain-token-XYZ").await?;
    let ciphertext: Vec<u8> =
        sqlx::query_scalar("SELECT credential_ciphertext FROM provider_accounts").fetch_one(&t.raw).await?;
    assert!(!ciphertext.windows(15).any(|w| w == b"plain-token-XYZ"));
    let whole_row: String =
        sqlx::query_scalar("SELECT row_to_json(a)::text FROM provider_accounts a").fetch_one(&t.raw).await?;
    assert!(!whole_row.contains("plain-token-XYZ"), "{whole_row}");
    assert!(!whole_row.contains("refresh_token"), "{whole_row}");
    let escaped: String = sqlx::query_scalar("SELECT encode(credential_ciphertext, 'escape') FROM provider_accounts")
        .fetch_one(&t.raw)
        .await?;
    assert!(!escaped.contains("plain-token"));
    t.finish().await
}
