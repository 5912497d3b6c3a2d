//! [`AdminUsers`] and the admin-user mutations of the unit of work; [`AuditSearch`].

use gateway_admin::admin_user::{AdminApiKey, NewAdminUser, PasswordHash, TotpChange, TotpSecret};
use gateway_admin::audit::{AuditActor, AuditEntry};
use gateway_admin::ports::{AdminUsers, AuditFilter, AuditSearch, UnitOfWork};
use gateway_core::ports::{StorageError, StorageErrorKind};

use crate::storage_contract::fixtures::{Harness, audit, group, now};

const HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA";

pub async fn admin_users_are_found_by_name_and_key_and_totp_is_sealed(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    assert_eq!(store.count_admin_users().await?, 0);
    let mut tx = store.begin().await?;
    let user = NewAdminUser { username: "Admin".to_owned(), password_hash: Some(PasswordHash(HASH.to_owned())) };
    let id = tx.create_admin_user(&user).await?;
    tx.set_admin_api_key(id, Some(&AdminApiKey { hash: [9; 32], prefix: "sb-adm-12345".to_owned() })).await?;
    tx.commit(audit("admin_user.create", "admin_user")).await?;

    let mut tx = store.begin().await?;
    let err = tx.create_admin_user(&NewAdminUser { username: "admin".to_owned(), password_hash: None }).await;
    assert_eq!(err.expect_err("names are unique, case-insensitively").kind(), StorageErrorKind::Conflict);
    drop(tx);

    assert_eq!(store.count_admin_users().await?, 1);
    let found = store.find_admin_by_username("ADMIN").await?.expect("case-insensitive");
    assert_eq!((found.id, found.username.as_str()), (id, "Admin"));
    assert_eq!(found.password_hash.as_ref().map(|h| h.0.as_str()), Some(HASH));
    assert!(found.enabled && !found.totp_enabled && found.last_login_at.is_none());
    assert_eq!(found.api_key_prefix.as_deref(), Some("sb-adm-12345"));
    assert!(found.api_key_created_at.is_some());
    assert_eq!(store.find_admin_by_api_key(&[9; 32]).await?.map(|u| u.id), Some(id));
    assert!(store.find_admin_by_api_key(&[8; 32]).await?.is_none());

    let secret = TotpSecret::new(vec![1, 2, 3, 250]);
    let mut tx = store.begin().await?;
    tx.set_admin_totp(id, TotpChange::Pending(&secret)).await?;
    tx.commit(audit("admin_user.totp", "admin_user")).await?;
    assert_eq!(store.admin_totp_secret(id).await?.map(|s| s.expose().to_vec()), Some(vec![1, 2, 3, 250]));
    assert!(!store.get_admin_user(id).await?.totp_enabled);
    let mut tx = store.begin().await?;
    tx.set_admin_totp(id, TotpChange::Enable(&secret)).await?;
    tx.commit(audit("admin_user.totp", "admin_user")).await?;
    assert!(store.get_admin_user(id).await?.totp_enabled);
    let mut tx = store.begin().await?;
    let err = tx.set_admin_totp(id, TotpChange::Pending(&secret)).await.expect_err("refused while enabled");
    assert!(matches!(&err, StorageError::Conflict { constraint } if constraint == "admin_users_totp_enabled"));
    tx.set_admin_totp(id, TotpChange::Clear).await?;
    tx.set_admin_api_key(id, None).await?;
    tx.commit(audit("admin_user.totp", "admin_user")).await?;
    assert!(store.admin_totp_secret(id).await?.is_none());
    assert!(store.find_admin_by_api_key(&[9; 32]).await?.is_none());

    let at = now();
    store.record_admin_login(id, at).await?;
    assert_eq!(store.get_admin_user(id).await?.last_login_at, Some(at));
    let mut tx = store.begin().await?;
    let missing = gateway_admin::admin_user::AdminUserId(424_242);
    assert_eq!(
        tx.set_admin_password(missing, &PasswordHash(HASH.to_owned())).await.expect_err("missing").kind(),
        StorageErrorKind::NotFound
    );
    drop(tx);
    assert_eq!(store.list_admin_users().await?.len(), 1);
    h.finish().await
}

pub async fn audit_search_filters_and_pages(h: impl Harness) -> anyhow::Result<()> {
    let store = h.store();
    let start = now();
    let mut ids = Vec::new();
    for (actor, action, target) in
        [("Alice", "group.create", "g1"), ("bob", "group.update", "g1"), ("alice", "client_key.create", "k1")]
    {
        let mut tx = store.begin().await?;
        tx.create_group(&group(&format!("{action}-{target}"))).await?;
        let entry = AuditEntry::new(
            AuditActor { user_id: None, name: actor.to_owned() },
            action,
            action.split('.').next().unwrap_or_default(),
            Some(target.to_owned()),
            serde_json::json!({}),
        );
        ids.push(tx.commit(entry).await?.audit_event_id);
    }
    let ids_of = |events: Vec<gateway_admin::audit::AuditEvent>| events.into_iter().map(|e| e.id).collect::<Vec<_>>();
    let by_actor = AuditFilter { actor: Some("ALICE".to_owned()), ..AuditFilter::default() };
    assert_eq!(ids_of(store.search_audit(&by_actor, None, 10).await?), [ids[2], ids[0]]);
    let by_prefix = AuditFilter { action: Some("group.".to_owned()), ..AuditFilter::default() };
    assert_eq!(ids_of(store.search_audit(&by_prefix, None, 10).await?), [ids[1], ids[0]]);
    let by_target = AuditFilter {
        target_kind: Some("group".to_owned()),
        target_id: Some("g1".to_owned()),
        ..AuditFilter::default()
    };
    assert_eq!(ids_of(store.search_audit(&by_target, Some(ids[1]), 10).await?), [ids[0]], "keyset page");
    let window = AuditFilter {
        from: Some(start - time::Duration::minutes(1)),
        to: Some(start + time::Duration::hours(1)),
        ..AuditFilter::default()
    };
    assert_eq!(store.search_audit(&window, None, 2).await?.len(), 2, "bounded");
    let future = AuditFilter { from: Some(start + time::Duration::hours(1)), ..AuditFilter::default() };
    assert!(store.search_audit(&future, None, 10).await?.is_empty());
    assert_eq!(store.get_audit_event(ids[1]).await?.actor.name, "bob");
    assert_eq!(store.get_audit_event(424_242).await.expect_err("missing").kind(), StorageErrorKind::NotFound);
    h.finish().await
}
