//! Which egress proxy an account's calls go through (decision 0241): its own, else that of its
//! lowest-id group with one, else none; a proxy whose sealed URL did not open makes the
//! account unschedulable instead of letting it go out directly.

use gateway_core::domain::{AccountId, EgressProxy, ProviderKind};
use gateway_core::snapshot::RuntimeSnapshot;

use crate::fixtures::{account, facts, group};

fn proxy(port: u16) -> EgressProxy {
    EgressProxy::new(format!("socks5://10.0.0.1:{port}"), format!("socks5://u:pw{port}@10.0.0.1:{port}"))
}

fn route(snapshot: &RuntimeSnapshot, id: i64) -> Option<String> {
    let entry = snapshot.account(AccountId(id)).expect("account");
    entry.egress_proxy.as_ref().map(|p| p.display().to_owned())
}

#[test]
fn the_account_wins_then_the_lowest_id_group_then_direct() {
    let mut own = account(1, ProviderKind::Openai);
    own.egress_proxy = Some(proxy(1));
    let accounts = vec![own, account(2, ProviderKind::Openai), account(3, ProviderKind::Openai)];
    let mut high = group(20, true, &[1, 2]);
    high.egress_proxy = Some(proxy(20));
    let mut low = group(10, false, &[2]);
    low.egress_proxy = Some(proxy(10));
    let plain = group(5, true, &[1, 2, 3]);
    // Given out of order: the resolution sorts by id.
    let snapshot = RuntimeSnapshot::build(facts(accounts, vec![high, plain, low], vec![]));
    assert_eq!(route(&snapshot, 1).as_deref(), Some("socks5://10.0.0.1:1"));
    assert_eq!(route(&snapshot, 2).as_deref(), Some("socks5://10.0.0.1:10"));
    assert_eq!(route(&snapshot, 3), None);
    let entry = snapshot.account(AccountId(2)).expect("account");
    assert_eq!(entry.egress_proxy.as_ref().and_then(EgressProxy::expose_url), Some("socks5://u:pw10@10.0.0.1:10"));
}

#[test]
fn an_unreadable_proxy_makes_the_account_unschedulable() {
    let mut broken = account(1, ProviderKind::Openai);
    broken.egress_proxy = Some(EgressProxy::unreadable("http://10.0.0.1:3128".to_owned()));
    let mut via_group = account(2, ProviderKind::Openai);
    via_group.scheduling.enabled = true;
    let mut unreadable_group = group(7, true, &[2]);
    unreadable_group.egress_proxy = Some(EgressProxy::unreadable("http://10.0.0.2:3128".to_owned()));
    let snapshot = RuntimeSnapshot::build(facts(
        vec![broken, via_group, account(3, ProviderKind::Openai)],
        vec![unreadable_group],
        vec![],
    ));
    let schedulable = |id| snapshot.account(AccountId(id)).expect("account").is_schedulable();
    assert!(!schedulable(1), "never out directly instead of through its proxy");
    assert!(!schedulable(2), "the group's proxy counts the same");
    assert!(schedulable(3));
}

#[test]
fn the_proxy_url_never_shows_in_debug() {
    let proxy = proxy(8);
    let shown = format!("{proxy:?}");
    assert!(!shown.contains("pw8") && !shown.contains("u:"), "{shown}");
    assert!(proxy.has_credentials());
    assert!(!EgressProxy::new("http://h:1".to_owned(), "http://h:1".to_owned()).has_credentials());
}

#[test]
fn the_default_proxy_serves_accounts_with_neither_their_own_nor_a_groups() {
    let mut own = account(1, ProviderKind::Openai);
    own.egress_proxy = Some(proxy(1));
    let mut grouped = group(10, true, &[2]);
    grouped.egress_proxy = Some(proxy(10));
    let accounts = vec![own, account(2, ProviderKind::Openai), account(3, ProviderKind::Xai)];
    let snapshot = RuntimeSnapshot::build_with_default_proxy(facts(accounts, vec![grouped], vec![]), Some(proxy(99)));
    assert_eq!(route(&snapshot, 1).as_deref(), Some("socks5://10.0.0.1:1"), "the account's own wins");
    assert_eq!(route(&snapshot, 2).as_deref(), Some("socks5://10.0.0.1:10"), "then its group's");
    assert_eq!(route(&snapshot, 3).as_deref(), Some("socks5://10.0.0.1:99"), "then the default");
    let direct = RuntimeSnapshot::build(facts(vec![account(3, ProviderKind::Xai)], vec![], vec![]));
    assert_eq!(route(&direct, 3), None, "no default: direct");
}
