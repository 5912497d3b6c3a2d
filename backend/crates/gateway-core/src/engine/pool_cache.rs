//! The engine's cache of candidate pools, keyed by (snapshot generation, scope, provider,
//! model, catalog generation). The frozen snapshot stays data (no lock, no cache inside it);
//! the pools and their round-robin cursors live here.
//!
//! A pool holds the accounts that pass the static filters, one of which — the model being in
//! the account's catalog — is asked of the provider's live catalog. Keying by the provider's
//! catalog generation makes a newly installed catalog take effect at the next request instead of
//! at the next snapshot reload. Pools of one snapshot generation are kept; the first request
//! on a newer snapshot drops the older ones, and a request still on an older snapshot builds
//! its pools without keeping them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::candidates::CandidatePool;
use crate::domain::ProviderKind;
use crate::provider::Provider;
use crate::snapshot::{AccountScope, RuntimeSnapshot};

/// Distinct pools kept per snapshot; beyond this (clients inventing model names) pools are
/// built per request and not kept.
const MAX_CACHED_POOLS: usize = 4096;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct PoolKey {
    scope: u32,
    provider: ProviderKind,
    model: String,
    catalog: u64,
}

#[derive(Default)]
struct Pools {
    snapshot: u64,
    pools: HashMap<PoolKey, Arc<CandidatePool>>,
}

#[derive(Default)]
pub struct PoolCache {
    inner: Mutex<Pools>,
}

impl PoolCache {
    /// The pool of `scope` × `provider` × `model` in `snapshot`: schedulable accounts the
    /// provider's live catalog says serve `model`.
    pub fn pool(
        &self,
        snapshot: &RuntimeSnapshot,
        scope: &AccountScope,
        provider: &dyn Provider,
        model: &str,
    ) -> Arc<CandidatePool> {
        let generation = snapshot.generation();
        let key = PoolKey {
            scope: scope.id,
            provider: provider.kind(),
            model: model.to_owned(),
            catalog: provider.catalog_generation(),
        };
        if let Some(pool) = self.lock().cached(generation, &key) {
            return pool;
        }
        let pool = Arc::new(snapshot.build_pool(scope, provider.kind(), |account| {
            account.is_schedulable() && provider.supports_model(account, model)
        }));
        self.lock().keep(generation, key, &pool);
        pool
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pools> {
        // Every operation leaves the map consistent before it can panic.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Pools {
    fn cached(&self, generation: u64, key: &PoolKey) -> Option<Arc<CandidatePool>> {
        (self.snapshot == generation).then(|| self.pools.get(key).cloned()).flatten()
    }

    fn keep(&mut self, generation: u64, key: PoolKey, pool: &Arc<CandidatePool>) {
        if generation > self.snapshot {
            self.snapshot = generation;
            self.pools.clear();
        }
        if generation != self.snapshot {
            return;
        }
        // A newer catalog generation of the same pool replaces the older one.
        self.pools.retain(|k, _| {
            !(k.scope == key.scope && k.provider == key.provider && k.model == key.model && k.catalog != key.catalog)
        });
        if self.pools.len() < MAX_CACHED_POOLS {
            self.pools.insert(key, pool.clone());
        }
    }
}
