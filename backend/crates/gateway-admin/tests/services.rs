//! The use-case services over in-memory fakes: a use case writes its audit row and announces
//! its commit itself, and a refused one writes nothing.

mod fakes;

use std::sync::Arc;

use gateway_admin::AdminError;
use gateway_admin::audit::AuditActor;
use gateway_admin::client_keys::KeySpec;
use gateway_admin::services::{GroupsService, KeysService, Mutations};
use gateway_core::domain::{ClientKeyId, ClientKeyRecord, GroupId, KeyScope};

use fakes::Fake;

fn actor() -> AuditActor {
    AuditActor { user_id: None, name: "ops".to_owned() }
}

fn mutations(fake: &Fake) -> Mutations {
    Mutations::publishing(Arc::new(fake.clone()), Arc::new(fake.clone()))
}

fn keys(fake: &Fake) -> KeysService {
    KeysService::new(mutations(fake), Arc::new(fake.clone()), Arc::new(fake.clone()), Arc::new(fake.clone()))
}

fn groups(fake: &Fake) -> GroupsService {
    GroupsService::new(mutations(fake), Arc::new(fake.clone()), Arc::new(fake.clone()))
}

fn spec(name: &str) -> KeySpec {
    KeySpec { name: name.to_owned(), ..KeySpec::default() }
}

#[tokio::test]
async fn key_create_writes_one_audit_row_and_announces_it_once() {
    let fake = Fake::default();
    let (key, _, secret) = keys(&fake).create(actor(), spec("  ci  ")).await.expect("created");

    assert_eq!(key.name, "ci", "validated (trimmed) by the service");
    assert!(secret.expose().starts_with("sk-sb-"));
    let world = fake.world();
    assert_eq!(world.transactions_opened, 1);
    assert_eq!(world.audit.len(), 1, "exactly one audit row");
    let row = &world.audit[0];
    assert_eq!((row.action.as_str(), row.target_id.as_deref()), ("client_key.create", Some("1")));
    assert!(!row.details.to_string().contains(secret.expose()), "the plaintext is never audited");
    assert_eq!(world.published, vec![1], "exactly one change notification, of the committed revision");
}

#[tokio::test]
async fn invalid_key_is_refused_without_a_transaction() {
    let fake = Fake::default();
    let err = keys(&fake).create(actor(), spec("   ")).await.err().expect("refused");

    assert!(matches!(err, AdminError::Invalid { .. } | AdminError::InvalidFields(_)), "{err:?}");
    let world = fake.world();
    assert_eq!((world.transactions_opened, world.audit.len(), world.published.len()), (0, 0, 0));
    assert!(world.keys.is_empty());
}

fn scoped_key(id: i64, group: i64) -> ClientKeyRecord {
    let now = time::OffsetDateTime::now_utc();
    let secret = gateway_admin::client_keys::generate_key();
    ClientKeyRecord {
        id: ClientKeyId(id),
        name: format!("key-{id}"),
        key_hash: secret.hash(),
        key_prefix: secret.display_prefix(),
        enabled: true,
        expires_at: None,
        limits: Default::default(),
        allowed_models: None,
        scope: KeyScope::Groups(vec![GroupId(group)]),
        service_tier_policy: Default::default(),
        created_at: now,
        updated_at: now,
    }
}

#[tokio::test]
async fn group_delete_with_a_scoped_key_is_refused_without_writing() {
    let fake = Fake::default();
    fake.add_group(7, "eu");
    fake.world().keys.insert(3, scoped_key(3, 7));

    let err = groups(&fake).delete(actor(), GroupId(7)).await.expect_err("refused");

    assert!(matches!(&err, AdminError::Conflict(m) if m.contains("client keys 3")), "{err:?}");
    let world = fake.world();
    assert_eq!((world.transactions_opened, world.audit.len(), world.published.len()), (0, 0, 0));
    assert!(world.groups.contains_key(&7), "the group is kept");
}

#[tokio::test]
async fn group_delete_audits_and_announces_once() {
    let fake = Fake::default();
    fake.add_group(7, "eu");
    fake.add_group(8, "us");
    fake.world().keys.insert(3, scoped_key(3, 8));

    groups(&fake).delete(actor(), GroupId(7)).await.expect("deleted");

    let world = fake.world();
    assert!(!world.groups.contains_key(&7));
    assert_eq!(world.audit.iter().map(|a| a.action.as_str()).collect::<Vec<_>>(), vec!["group.delete"]);
    assert_eq!(world.published, vec![1]);
}
