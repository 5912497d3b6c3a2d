//! Compiling [`SnapshotFacts`] into the indexes the hot path reads.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::{AccountEntry, AccountScope, KeyEntry, RuntimeSnapshot};
use crate::domain::{AccountGroup, AccountId, EgressProxy, GroupId, GroupRef, KeyScope, ProviderKind, RoutingSnapshot};
use crate::ports::SnapshotFacts;

impl RuntimeSnapshot {
    pub fn build(facts: SnapshotFacts) -> Self {
        Self::build_with_default_proxy(facts, None)
    }

    /// [`RuntimeSnapshot::build`] with the default egress proxy (`providers.egress_proxy`) for
    /// accounts with neither their own proxy nor a group's.
    pub fn build_with_default_proxy(facts: SnapshotFacts, default_proxy: Option<EgressProxy>) -> Self {
        let default_cap = facts.settings.default_account_concurrency.max(1);
        let mut accounts = Vec::with_capacity(facts.accounts.len());
        let mut account_index = HashMap::with_capacity(facts.accounts.len());
        let mut by_provider: HashMap<ProviderKind, Vec<usize>> = HashMap::new();
        let group_proxies = group_proxies(&facts.groups);
        for record in facts.accounts {
            let index = accounts.len();
            account_index.insert(record.id, index);
            by_provider.entry(record.provider).or_default().push(index);
            let max_in_flight = record.scheduling.concurrency_cap.unwrap_or(default_cap).max(1);
            let egress_proxy = record
                .egress_proxy
                .clone()
                .or_else(|| group_proxies.get(&record.id).cloned())
                .or_else(|| default_proxy.clone());
            accounts.push(Arc::new(AccountEntry { record, max_in_flight, egress_proxy }));
        }

        let groups: HashMap<GroupId, &AccountGroup> = facts.groups.iter().map(|g| (g.id, g)).collect();
        let mut scopes: HashMap<Vec<GroupId>, Arc<AccountScope>> = HashMap::new();
        let all = Arc::new(AccountScope { id: 0, members: None, routing: RoutingSnapshot::All });
        let mut keys = HashMap::with_capacity(facts.client_keys.len());
        for record in facts.client_keys {
            let scope = match &record.scope {
                KeyScope::AllAccounts => all.clone(),
                KeyScope::Groups(ids) => {
                    let mut ids = ids.clone();
                    ids.sort_unstable();
                    ids.dedup();
                    let next = u32::try_from(scopes.len() + 1).unwrap_or(u32::MAX);
                    scopes
                        .entry(ids.clone())
                        .or_insert_with(|| Arc::new(group_scope(next, &ids, &groups, &account_index, &accounts)))
                        .clone()
                }
            };
            keys.insert(record.key_hash, Arc::new(KeyEntry { record, scope }));
        }

        let mut group_refs: Vec<GroupRef> =
            facts.groups.iter().map(|g| GroupRef { id: g.id, name: g.name.clone() }).collect();
        group_refs.sort_by_key(|g| g.id);
        Self {
            config_revision: facts.config_revision,
            generation: super::next_generation(),
            settings: facts.settings,
            accounts,
            account_index,
            by_provider,
            keys,
            groups: group_refs,
        }
    }
}

/// For each account in a group with a proxy: the proxy of its lowest-id such group.
fn group_proxies(groups: &[AccountGroup]) -> HashMap<AccountId, EgressProxy> {
    let mut ordered: Vec<&AccountGroup> = groups.iter().filter(|g| g.egress_proxy.is_some()).collect();
    ordered.sort_by_key(|g| g.id);
    let mut proxies = HashMap::new();
    for group in ordered {
        let Some(proxy) = &group.egress_proxy else { continue };
        for account in &group.account_ids {
            proxies.entry(*account).or_insert_with(|| proxy.clone());
        }
    }
    proxies
}

/// A key limited to groups may use only the enabled members of its enabled groups; disabled or
/// empty groups give an empty pool, never a fallback to every account.
fn group_scope(
    id: u32,
    ids: &[GroupId],
    groups: &HashMap<GroupId, &AccountGroup>,
    account_index: &HashMap<AccountId, usize>,
    accounts: &[Arc<AccountEntry>],
) -> AccountScope {
    let mut members: BTreeSet<usize> = BTreeSet::new();
    let mut refs = Vec::with_capacity(ids.len());
    for id in ids {
        let Some(group) = groups.get(id) else { continue };
        refs.push(GroupRef { id: group.id, name: group.name.clone() });
        if !group.enabled {
            continue;
        }
        members.extend(group.account_ids.iter().filter_map(|a| account_index.get(a).copied()));
    }
    let mut by_provider: HashMap<ProviderKind, Vec<usize>> = HashMap::new();
    for index in members {
        by_provider.entry(accounts[index].provider()).or_default().push(index);
    }
    AccountScope { id, members: Some(by_provider), routing: RoutingSnapshot::Groups(refs) }
}
