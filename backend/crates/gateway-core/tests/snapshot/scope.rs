use gateway_core::domain::{ClientKeyHash, KeyScope, ProviderKind, RoutingSnapshot};
use gateway_core::snapshot::RuntimeSnapshot;

use crate::fixtures::{account, facts, group, key};

fn ids(snapshot: &RuntimeSnapshot, plaintext: &str) -> Vec<i64> {
    let key = snapshot.key(&ClientKeyHash::of(plaintext)).expect("key");
    snapshot.scoped_accounts(&key.scope, ProviderKind::Openai).map(|a| a.id().0).collect()
}

fn snapshot() -> RuntimeSnapshot {
    let accounts = (1..=4).map(|i| account(i, ProviderKind::Openai)).collect();
    let groups = vec![group(10, true, &[1, 2]), group(11, false, &[3]), group(12, true, &[])];
    let keys = vec![
        key(1, "sk-all", KeyScope::AllAccounts),
        key(2, "sk-g10", KeyScope::Groups(vec![gateway_core::domain::GroupId(10)])),
        key(3, "sk-disabled-group", KeyScope::Groups(vec![gateway_core::domain::GroupId(11)])),
        key(4, "sk-empty-group", KeyScope::Groups(vec![gateway_core::domain::GroupId(12)])),
        key(
            5,
            "sk-mixed",
            KeyScope::Groups(vec![gateway_core::domain::GroupId(11), gateway_core::domain::GroupId(10)]),
        ),
    ];
    RuntimeSnapshot::build(facts(accounts, groups, keys))
}

#[test]
fn a_key_without_groups_sees_every_account() {
    assert_eq!(ids(&snapshot(), "sk-all"), vec![1, 2, 3, 4]);
}

#[test]
fn a_key_with_groups_sees_only_enabled_members_of_enabled_groups() {
    let snapshot = snapshot();
    assert_eq!(ids(&snapshot, "sk-g10"), vec![1, 2]);
    assert_eq!(ids(&snapshot, "sk-mixed"), vec![1, 2]);
}

#[test]
fn disabled_or_empty_groups_give_an_empty_pool_never_everything() {
    let snapshot = snapshot();
    assert!(ids(&snapshot, "sk-disabled-group").is_empty());
    assert!(ids(&snapshot, "sk-empty-group").is_empty());
}

#[test]
fn the_routing_snapshot_names_the_groups() {
    let snapshot = snapshot();
    let key = snapshot.key(&ClientKeyHash::of("sk-mixed")).expect("key");
    match &key.scope.routing {
        RoutingSnapshot::Groups(groups) => {
            let names: Vec<&str> = groups.iter().map(|g| g.name.as_str()).collect();
            assert_eq!(names, vec!["group 10", "group 11"]);
        }
        other => panic!("expected groups, got {other:?}"),
    }
    assert_eq!(snapshot.key(&ClientKeyHash::of("sk-all")).expect("key").scope.routing, RoutingSnapshot::All);
}

#[test]
fn unknown_keys_are_absent_and_caps_inherit_the_default() {
    let snapshot = snapshot();
    assert!(snapshot.key(&ClientKeyHash::of("sk-nope")).is_none());
    let default = snapshot.settings.default_account_concurrency;
    assert!(snapshot.accounts().iter().all(|a| a.max_in_flight == default));
}
