//! The runtime snapshot: everything a request needs to route, frozen once per request and never
//! re-read mid-request. Built from [`SnapshotFacts`] (one consistent database read) and swapped
//! atomically when reconciliation sees a newer `config_revision`.

mod account_state;
mod build;
mod holder;
mod reconcile;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::engine::candidates::CandidatePool;

use crate::domain::{
    AccountId, AccountRecord, ClientKeyHash, ClientKeyRecord, ConfigRevision, CredentialDocument, CredentialSlot,
    CredentialState, EgressProxy, GroupRef, ProviderKind, RoutingSnapshot, RuntimeSettings,
};

pub use account_state::{AccountState, CoolingDown, resolve_account_state};
pub use holder::SnapshotHolder;
pub use reconcile::Reconciler;

/// The egress path of an account without a proxy.
pub const DIRECT_EGRESS: &str = "direct";

/// One account as the data plane sees it.
#[derive(Debug)]
pub struct AccountEntry {
    pub record: AccountRecord,
    /// Resolved cap: the account's own or the runtime default, at least 1.
    pub max_in_flight: u32,
    /// The proxy calls for this account go through: its own, else that of its lowest-id group
    /// with one (decision 0241); `None` goes out directly.
    pub egress_proxy: Option<EgressProxy>,
}

impl AccountEntry {
    pub fn id(&self) -> AccountId {
        self.record.id
    }

    pub fn provider(&self) -> ProviderKind {
        self.record.provider
    }

    /// The decrypted credential, when it could be opened.
    pub fn credential(&self) -> Option<&CredentialDocument> {
        match &self.record.credential {
            CredentialSlot::Available(doc) => Some(doc),
            CredentialSlot::Unreadable { .. } => None,
        }
    }

    /// The name of the path this account's calls go out by: its proxy without user info, or
    /// `direct`. Cookies and egress faults belong to the account on this path.
    pub fn egress_path(&self) -> &str {
        self.egress_proxy.as_ref().map_or(DIRECT_EGRESS, EgressProxy::display)
    }

    /// Static usability: enabled, with a working credential. Cooldowns and quota are checked
    /// elsewhere (coordination storage, quota facts).
    pub fn is_schedulable(&self) -> bool {
        self.record.scheduling.enabled
            && self.record.credential_facts.state == CredentialState::Active
            && self.credential().is_some()
            && self.egress_proxy.as_ref().is_none_or(EgressProxy::is_readable)
    }
}

/// The accounts a client key may use, resolved once per snapshot and shared between keys with
/// the same group set.
#[derive(Debug)]
pub struct AccountScope {
    /// Names the scope within its snapshot (0 = every account); what caches key it by.
    pub id: u32,
    /// Indices into [`RuntimeSnapshot::accounts`], grouped by provider; `None` = every account.
    pub members: Option<HashMap<ProviderKind, Vec<usize>>>,
    pub routing: RoutingSnapshot,
}

/// One client key with its resolved scope.
#[derive(Debug)]
pub struct KeyEntry {
    pub record: ClientKeyRecord,
    pub scope: Arc<AccountScope>,
}

#[derive(Debug)]
pub struct RuntimeSnapshot {
    pub config_revision: ConfigRevision,
    /// Unique per built snapshot in this process (a reload at the same `config_revision` gets a
    /// new one): what the engine's caches key by.
    generation: u64,
    pub settings: RuntimeSettings,
    accounts: Vec<Arc<AccountEntry>>,
    account_index: HashMap<AccountId, usize>,
    /// Indices of every account of each provider.
    by_provider: HashMap<ProviderKind, Vec<usize>>,
    keys: HashMap<ClientKeyHash, Arc<KeyEntry>>,
    groups: Vec<GroupRef>,
}

/// The source of [`RuntimeSnapshot::generation`].
static GENERATIONS: AtomicU64 = AtomicU64::new(1);

fn next_generation() -> u64 {
    GENERATIONS.fetch_add(1, Ordering::Relaxed)
}

/// Which stored credentials the configured keys open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialCoverage {
    pub stored: usize,
    pub unreadable: usize,
    /// The key ids the unreadable credentials were sealed with.
    pub unreadable_key_ids: std::collections::BTreeSet<String>,
}

impl CredentialCoverage {
    /// Credentials are stored and not one of them opens: the wrong master key is configured.
    pub fn opens_none(&self) -> bool {
        self.stored > 0 && self.unreadable == self.stored
    }
}

impl RuntimeSnapshot {
    /// Unique per built snapshot in this process.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub fn key(&self, hash: &ClientKeyHash) -> Option<&Arc<KeyEntry>> {
        self.keys.get(hash)
    }

    pub fn account(&self, id: AccountId) -> Option<&Arc<AccountEntry>> {
        self.account_index.get(&id).map(|i| &self.accounts[*i])
    }

    pub fn accounts(&self) -> &[Arc<AccountEntry>] {
        &self.accounts
    }

    /// How many stored credentials the configured keys could not open (start-up refuses a
    /// master key that opens none).
    pub fn credential_coverage(&self) -> CredentialCoverage {
        let mut unreadable_key_ids = std::collections::BTreeSet::new();
        let mut unreadable = 0;
        for account in &self.accounts {
            if let CredentialSlot::Unreadable { key_id } = &account.record.credential {
                unreadable += 1;
                unreadable_key_ids.insert(key_id.clone());
            }
        }
        CredentialCoverage { stored: self.accounts.len(), unreadable, unreadable_key_ids }
    }

    pub fn groups(&self) -> &[GroupRef] {
        &self.groups
    }

    /// The accounts of `provider` inside `scope`, in storage order.
    pub fn scoped_accounts<'a>(
        &'a self,
        scope: &'a AccountScope,
        provider: ProviderKind,
    ) -> impl Iterator<Item = &'a Arc<AccountEntry>> + 'a {
        let indices: &[usize] = match &scope.members {
            None => self.by_provider.get(&provider).map(Vec::as_slice).unwrap_or(&[]),
            Some(members) => members.get(&provider).map(Vec::as_slice).unwrap_or(&[]),
        };
        indices.iter().map(move |i| &self.accounts[*i])
    }

    /// Whether `account` lies in `scope`.
    pub fn in_scope(&self, scope: &AccountScope, account: AccountId) -> bool {
        let Some(index) = self.account_index.get(&account) else { return false };
        match &scope.members {
            None => true,
            Some(members) => members.values().any(|indices| indices.binary_search(index).is_ok()),
        }
    }

    /// Builds the candidate pool of `scope` × `provider`: the scoped accounts of the provider
    /// that pass `admit`. Pure: the engine's `PoolCache` keeps what it builds.
    pub fn build_pool(
        &self,
        scope: &AccountScope,
        provider: ProviderKind,
        admit: impl Fn(&AccountEntry) -> bool,
    ) -> CandidatePool {
        let indices: &[usize] = match &scope.members {
            None => self.by_provider.get(&provider).map(Vec::as_slice).unwrap_or(&[]),
            Some(members) => members.get(&provider).map(Vec::as_slice).unwrap_or(&[]),
        };
        CandidatePool::build(
            indices.iter().map(|i| (*i, self.accounts[*i].as_ref())).filter(|(_, account)| admit(account)),
        )
    }

    /// An empty snapshot (no accounts, no keys) at revision 0: what a gateway serves before the
    /// first load.
    pub fn empty() -> Self {
        Self {
            config_revision: ConfigRevision(0),
            generation: next_generation(),
            settings: RuntimeSettings::default(),
            accounts: Vec::new(),
            account_index: HashMap::new(),
            by_provider: HashMap::new(),
            keys: HashMap::new(),
            groups: Vec::new(),
        }
    }
}
