//! Model catalogs per plan, shared by every provider that lists models per account.
//!
//! A provider's [`CatalogSource`] fetches one account's catalog (with an entity tag); the
//! [`CatalogBook`] keeps the newest catalog per plan in memory and answers the hot path
//! (`Provider::supports_model` / `models`) without I/O. A plan nobody fetched yet falls back to
//! the provider's embedded catalog. [`sync_catalogs`] refreshes one account per plan; an entity
//! tag seen on a normal response that differs from the known one asks for a resync.
//!
//! The book lives per replica (each replica fetches once per plan per period, conditional on the
//! entity tag); it is a cache, never a business fact. Beside the model ids it keeps each plan's
//! upstream entries ([`CatalogEntry`], the raw ModelInfo objects a Codex catalog carries), which
//! the Codex catalog route serves as they were sent.

mod entry;

pub use entry::{CatalogEntry, CatalogEntryError, MAX_CATALOG_ENTRY_BYTES, SyncedEntry, pick_entry};

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use time::OffsetDateTime;
use tokio::sync::Notify;

use crate::domain::ProviderKind;
use crate::provider::ModelInfo;
use crate::snapshot::{AccountEntry, RuntimeSnapshot};

/// The plan key of accounts without a known plan.
pub const UNKNOWN_PLAN: &str = "unknown";

/// The plan an account's catalog is cached under.
pub fn plan_key(account: &AccountEntry) -> &str {
    account.record.profile.plan_type.as_deref().filter(|p| !p.is_empty()).unwrap_or(UNKNOWN_PLAN)
}

/// One fetch answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogFetch {
    /// The entity tag matched: the known catalog is current.
    NotModified,
    Models {
        etag: Option<String>,
        models: Vec<ModelInfo>,
        /// The upstream's own entries of (some of) `models`; empty for a provider whose
        /// catalog has none to serve.
        entries: Vec<CatalogEntry>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("catalog fetch failed: {0}")]
pub struct CatalogFetchError(pub String);

/// The provider-specific part: how to ask one account for its catalog.
#[async_trait]
pub trait CatalogSource: Send + Sync {
    fn provider(&self) -> ProviderKind;
    async fn fetch_catalog(
        &self,
        account: &AccountEntry,
        etag: Option<&str>,
    ) -> Result<CatalogFetch, CatalogFetchError>;
}

#[derive(Debug)]
struct PlanCatalog {
    etag: Option<String>,
    models: Vec<ModelInfo>,
    ids: HashSet<String>,
    entries: HashMap<String, CatalogEntry>,
    fetched_at: OffsetDateTime,
}

#[derive(Debug, Default)]
struct CatalogState {
    plans: HashMap<String, Arc<PlanCatalog>>,
}

/// What the book knows about one plan (admin views).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanCatalogView {
    pub plan: String,
    pub etag: Option<String>,
    pub models: Vec<String>,
    pub fetched_at: OffsetDateTime,
}

pub struct CatalogBook {
    fallback: Vec<ModelInfo>,
    fallback_ids: HashSet<String>,
    state: RwLock<Arc<CatalogState>>,
    resync: AtomicBool,
    wake: Notify,
    /// Bumped by every install: what `Provider::catalog_generation` reports.
    generation: AtomicU64,
}

impl CatalogBook {
    /// A book that answers with `fallback` until catalogs are fetched.
    pub fn new(fallback: Vec<ModelInfo>) -> Self {
        let fallback_ids = fallback.iter().map(|m| m.id.clone()).collect();
        Self {
            fallback,
            fallback_ids,
            state: RwLock::new(Arc::new(CatalogState::default())),
            resync: AtomicBool::new(false),
            wake: Notify::new(),
            generation: AtomicU64::new(0),
        }
    }

    fn state(&self) -> Arc<CatalogState> {
        self.state.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Hot path: whether accounts of `plan` can use `model`.
    pub fn supports(&self, plan: &str, model: &str) -> bool {
        let state = self.state.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        match state.plans.get(plan) {
            Some(catalog) => catalog.ids.contains(model),
            None => self.fallback_ids.contains(model),
        }
    }

    /// The models of `plan` (the fallback when unknown).
    pub fn models(&self, plan: &str) -> Vec<ModelInfo> {
        match self.state().plans.get(plan) {
            Some(catalog) => catalog.models.clone(),
            None => self.fallback.clone(),
        }
    }

    /// The union over every known plan, or the fallback when none is known, sorted by id.
    pub fn union(&self) -> Vec<ModelInfo> {
        let state = self.state();
        if state.plans.is_empty() {
            return self.fallback.clone();
        }
        let mut all = BTreeMap::new();
        for catalog in state.plans.values() {
            for model in &catalog.models {
                all.entry(model.id.clone()).or_insert_with(|| model.clone());
            }
        }
        all.into_values().collect()
    }

    pub fn etag(&self, plan: &str) -> Option<String> {
        self.state().plans.get(plan).and_then(|c| c.etag.clone())
    }

    /// Every known plan catalog.
    pub fn plans(&self) -> Vec<PlanCatalogView> {
        let mut views: Vec<PlanCatalogView> = self
            .state()
            .plans
            .iter()
            .map(|(plan, c)| PlanCatalogView {
                plan: plan.clone(),
                etag: c.etag.clone(),
                models: c.models.iter().map(|m| m.id.clone()).collect(),
                fetched_at: c.fetched_at,
            })
            .collect();
        views.sort_by(|a, b| a.plan.cmp(&b.plan));
        views
    }

    /// The upstream's entry of `model` in the catalog of `plan`, with the time that catalog was
    /// installed; `None` for a plan nobody fetched yet (the fallback has no entries) and for a
    /// model the catalog lists without one.
    pub fn entry(&self, plan: &str, model: &str) -> Option<SyncedEntry> {
        let state = self.state.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        let catalog = state.plans.get(plan)?;
        let entry = catalog.entries.get(model)?;
        Some(SyncedEntry { fetched_at: catalog.fetched_at, entry: entry.clone() })
    }

    /// Installs a fetched catalog for `plan`: its models and the upstream's entries of them
    /// (an entry of a model `models` does not list is dropped; the first entry of a slug wins).
    pub fn install(&self, plan: &str, etag: Option<String>, models: Vec<ModelInfo>, entries: Vec<CatalogEntry>) {
        let ids: HashSet<String> = models.iter().map(|m| m.id.clone()).collect();
        let mut by_slug = HashMap::new();
        for entry in entries {
            if ids.contains(entry.slug()) {
                by_slug.entry(entry.slug().to_owned()).or_insert(entry);
            }
        }
        let catalog =
            Arc::new(PlanCatalog { etag, models, ids, entries: by_slug, fetched_at: OffsetDateTime::now_utc() });
        let mut guard = self.state.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut plans = guard.plans.clone();
        plans.insert(plan.to_owned(), catalog);
        *guard = Arc::new(CatalogState { plans });
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    /// How many catalogs were installed: changes whenever [`supports`](Self::supports) may
    /// answer differently.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Hot path: an entity tag seen on a normal response. A tag that differs from the one the
    /// plan's catalog was fetched with asks the sync worker for a resync.
    pub fn observe_etag(&self, plan: &str, etag: &str) {
        let stale = {
            let state = self.state.read().unwrap_or_else(std::sync::PoisonError::into_inner);
            state.plans.get(plan).is_some_and(|c| c.etag.as_deref() != Some(etag))
        };
        if stale && !self.resync.swap(true, Ordering::AcqRel) {
            self.wake.notify_one();
        }
    }

    /// Takes a pending resync request.
    pub fn take_resync(&self) -> bool {
        self.resync.swap(false, Ordering::AcqRel)
    }

    /// Resolves when a resync is asked for (or immediately if one is pending).
    pub async fn resync_requested(&self) {
        if self.resync.load(Ordering::Acquire) {
            return;
        }
        self.wake.notified().await;
    }
}

/// What a sync pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CatalogSyncReport {
    pub updated: Vec<String>,
    pub unchanged: Vec<String>,
    pub failed: Vec<String>,
}

/// Fetches each plan's catalog from one schedulable account of that plan (the next one when a
/// fetch fails), conditional on the known entity tag.
pub async fn sync_catalogs(
    book: &CatalogBook,
    source: &dyn CatalogSource,
    snapshot: &RuntimeSnapshot,
) -> CatalogSyncReport {
    let mut by_plan: BTreeMap<&str, Vec<&AccountEntry>> = BTreeMap::new();
    for account in snapshot.accounts() {
        if account.provider() == source.provider() && account.is_schedulable() {
            by_plan.entry(plan_key(account)).or_default().push(account);
        }
    }
    let mut report = CatalogSyncReport::default();
    for (plan, accounts) in by_plan {
        let etag = book.etag(plan);
        let mut done = false;
        // A few accounts per plan at most: one failing account must not stop the plan, and a
        // broken upstream must not cost one request per account.
        for account in accounts.into_iter().take(3) {
            match source.fetch_catalog(account, etag.as_deref()).await {
                Ok(CatalogFetch::NotModified) => {
                    report.unchanged.push(plan.to_owned());
                    done = true;
                }
                Ok(CatalogFetch::Models { etag, models, entries }) => {
                    book.install(plan, etag, models, entries);
                    report.updated.push(plan.to_owned());
                    done = true;
                }
                Err(err) => tracing::debug!(account = %account.id(), %plan, error = %err, "catalog fetch failed"),
            }
            if done {
                break;
            }
        }
        if !done {
            report.failed.push(plan.to_owned());
        }
    }
    report
}
