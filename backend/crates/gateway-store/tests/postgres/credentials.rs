use std::sync::Arc;

use gateway_core::domain::{
    CredentialFacts, CredentialRevision, CredentialSlot, CredentialState, QuotaFacts, QuotaRevision, QuotaState,
};
use gateway_core::ports::{CredentialStore, CredentialWrite, QuotaStore, StorageError, StorageErrorKind};
use gateway_store::crypto::{Keyring, MasterKey};

use crate::postgres::test_store::{TestStore, credential, now};

#[tokio::test]
async fn concurrent_writes_on_one_revision_exactly_one_wins() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let imported = t.import("acct-1", "tok-0").await?;
    let store = Arc::new(t.store.clone());
    let write = |token: &'static str| {
        let store = Arc::clone(&store);
        let account = imported.account_id;
        let expected = imported.credential_revision;
        tokio::spawn(async move {
            let write = CredentialWrite {
                document: credential(token),
                facts: CredentialFacts::active(None, None),
                profile: None,
            };
            store.write_credential(account, expected, write).await
        })
    };
    let (a, b) = tokio::join!(write("tok-a"), write("tok-b"));
    let results = [a?, b?];
    let wins = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(wins, 1, "exactly one CAS wins: {results:?}");
    let loser = results.iter().find_map(|r| r.as_ref().err()).expect("one loser");
    assert!(
        matches!(loser, StorageError::RevisionMismatch { expected, actual, .. } if *expected == 1 && *actual == 2),
        "{loser:?}"
    );
    assert_eq!(t.store.read_credential(imported.account_id).await?.revision, CredentialRevision(2));
    t.finish().await
}

#[tokio::test]
async fn facts_only_writes_are_fenced_but_keep_the_revision() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let imported = t.import("acct-1", "tok").await?;
    let failing = CredentialFacts {
        state: CredentialState::Active,
        reason: None,
        access_token_expires_at: None,
        next_refresh_at: Some(now()),
        refresh_failure_count: 3,
    };
    t.store.write_credential_facts(imported.account_id, imported.credential_revision, failing.clone()).await?;
    assert_eq!(t.store.read_credential(imported.account_id).await?.revision, imported.credential_revision);
    let err = t
        .store
        .write_credential_facts(imported.account_id, CredentialRevision(99), failing)
        .await
        .expect_err("stale revision");
    assert_eq!(err.kind(), StorageErrorKind::RevisionMismatch);
    let due = t.store.due_for_refresh(now() + time::Duration::seconds(1), 10).await?;
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].account_id, imported.account_id);

    let banned = CredentialFacts {
        state: CredentialState::Banned,
        reason: None,
        access_token_expires_at: None,
        next_refresh_at: None,
        refresh_failure_count: 0,
    };
    let err = t
        .store
        .write_credential_facts(imported.account_id, imported.credential_revision, banned)
        .await
        .expect_err("a non-active state needs a reason");
    assert_eq!(err.kind(), StorageErrorKind::Constraint);
    t.finish().await
}

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

#[tokio::test]
async fn a_wrong_key_fails_cleanly() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let imported = t.import("acct-1", "tok").await?;
    let impostor = t.reopen(Keyring::new(MasterKey::generate("k1")?, vec![])?).await?;
    let stored = impostor.read_credential(imported.account_id).await?;
    assert!(matches!(stored.slot, CredentialSlot::Unreadable { ref key_id } if key_id == "k1"), "{stored:?}");
    let unknown = t.reopen(Keyring::new(MasterKey::generate("k9")?, vec![])?).await?;
    let stored = unknown.read_credential(imported.account_id).await?;
    assert!(matches!(stored.slot, CredentialSlot::Unreadable { .. }));
    let keyless = gateway_store::postgres::connect(t.url(), 1).await?;
    let err = keyless.read_credential(imported.account_id).await.expect_err("no keyring");
    assert_eq!(err.kind(), StorageErrorKind::Misconfigured);
    impostor.close().await;
    unknown.close().await;
    keyless.close().await;
    t.finish().await
}

#[tokio::test]
async fn quota_writes_are_fenced_by_revision_and_observation_time() -> anyhow::Result<()> {
    let t = TestStore::new().await?;
    let account = t.import("acct-1", "tok").await?.account_id;
    let at = now();
    let facts = |state, observed_at| QuotaFacts { state, windows: Vec::new(), observed_at };
    let r1 = t.store.write_quota(account, QuotaRevision(0), facts(QuotaState::Allowed, Some(at))).await?;
    assert_eq!(r1, QuotaRevision(1));
    let stale = t.store.write_quota(account, QuotaRevision(0), facts(QuotaState::Exhausted, Some(at))).await;
    assert_eq!(stale.expect_err("lost race").kind(), StorageErrorKind::RevisionMismatch);
    let older =
        t.store.write_quota(account, r1, facts(QuotaState::Exhausted, Some(at - time::Duration::minutes(1)))).await;
    assert_eq!(older.expect_err("older observation").kind(), StorageErrorKind::RevisionMismatch);
    let r2 = t.store.write_quota(account, r1, facts(QuotaState::Exhausted, Some(at))).await?;
    assert_eq!(r2, QuotaRevision(2));
    t.finish().await
}
