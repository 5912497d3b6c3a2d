//! [`CredentialStore`]: compare-and-swap on the credential revision, fenced facts, key failures.

use gateway_core::domain::{CredentialFacts, CredentialRevision, CredentialSlot, CredentialState};
use gateway_core::ports::{CredentialStore, CredentialWrite, StorageError, StorageErrorKind};
use gateway_store::crypto::{Keyring, MasterKey};

use crate::storage_contract::fixtures::{Harness, credential, import, now};

pub async fn concurrent_credential_writes_on_one_revision_exactly_one_wins(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let imported = import(&store, "acct-1", "tok-0").await?;
    let write = |token: &'static str| {
        let store = store.clone();
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
    assert_eq!(store.read_credential(imported.account_id).await?.revision, CredentialRevision(2));
    h.finish().await
}

pub async fn facts_only_writes_are_fenced_but_keep_the_revision(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let imported = import(&store, "acct-1", "tok").await?;
    let failing = CredentialFacts {
        state: CredentialState::Active,
        reason: None,
        access_token_expires_at: None,
        next_refresh_at: Some(now()),
        refresh_failure_count: 3,
    };
    store.write_credential_facts(imported.account_id, imported.credential_revision, failing.clone()).await?;
    assert_eq!(store.read_credential(imported.account_id).await?.revision, imported.credential_revision);
    let err = store
        .write_credential_facts(imported.account_id, CredentialRevision(99), failing)
        .await
        .expect_err("stale revision");
    assert_eq!(err.kind(), StorageErrorKind::RevisionMismatch);
    assert!(store.due_for_refresh(now() - time::Duration::seconds(1), 10).await?.is_empty(), "not due yet");
    let due = store.due_for_refresh(now() + time::Duration::seconds(1), 10).await?;
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].account_id, imported.account_id);
    assert_eq!(due[0].credential_revision, imported.credential_revision);

    let banned = CredentialFacts {
        state: CredentialState::Banned,
        reason: None,
        access_token_expires_at: None,
        next_refresh_at: None,
        refresh_failure_count: 0,
    };
    let err = store
        .write_credential_facts(imported.account_id, imported.credential_revision, banned)
        .await
        .expect_err("a non-active state needs a reason");
    assert_eq!(err.kind(), StorageErrorKind::Constraint);
    let err = store
        .write_credential_facts(
            gateway_core::domain::AccountId(424_242),
            CredentialRevision(1),
            CredentialFacts::active(None, None),
        )
        .await
        .expect_err("missing account");
    assert_eq!(err.kind(), StorageErrorKind::NotFound);
    h.finish().await
}

pub async fn a_wrong_or_missing_key_fails_cleanly(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let imported = import(&store, "acct-1", "tok").await?;
    match store.read_credential(imported.account_id).await?.slot {
        CredentialSlot::Available(doc) => assert!(doc.expose_json().contains("tok")),
        other => panic!("the right key opens it: {other:?}"),
    }
    let impostor = h.reopen(Some(Keyring::new(MasterKey::generate("k1")?, vec![])?)).await?;
    let stored = impostor.read_credential(imported.account_id).await?;
    assert!(matches!(stored.slot, CredentialSlot::Unreadable { ref key_id } if key_id == "k1"), "{stored:?}");
    let unknown = h.reopen(Some(Keyring::new(MasterKey::generate("k9")?, vec![])?)).await?;
    let stored = unknown.read_credential(imported.account_id).await?;
    assert!(matches!(stored.slot, CredentialSlot::Unreadable { .. }));
    let keyless = h.reopen(None).await?;
    let err = keyless.read_credential(imported.account_id).await.expect_err("no keyring");
    assert_eq!(err.kind(), StorageErrorKind::Misconfigured);
    h.close(impostor).await;
    h.close(unknown).await;
    h.close(keyless).await;
    h.finish().await
}
