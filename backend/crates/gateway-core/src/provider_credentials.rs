//! The decoded credentials a provider sends with, per account, fenced by credential revision.
//!
//! Every provider needs the same three things of its credentials: the one to use on the hot path
//! (decoded once, never older than the snapshot's), the newest stored one off the hot path (probes,
//! catalog fetches see a refresh before the next snapshot reload), and a single-flight renewal
//! after an `Unauthorized` failure. [`ProviderCredentials`] does them once for any credential type.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::credential_refresh::{CredentialRefresher, RefreshError, RefreshOutcome, RefreshTrigger};
use crate::domain::{AccountId, CredentialDocument, CredentialRevision, CredentialSlot, SendState};
use crate::fault::Fault;
use crate::ports::CredentialStore;
use crate::provider::AttemptFailure;
use crate::snapshot::AccountEntry;

/// A provider's credential type, decoded from its stored document.
pub trait DecodedCredential: Send + Sync + Sized + 'static {
    /// `None` when the document is not this provider's credential (malformed).
    fn decode_document(document: &CredentialDocument) -> Option<Self>;
}

struct Cached<C> {
    revision: CredentialRevision,
    credential: Arc<C>,
}

/// Decoded credentials by account; a newer revision always wins over an older one.
pub struct ProviderCredentials<C> {
    store: Arc<dyn CredentialStore>,
    refresher: Option<Arc<CredentialRefresher>>,
    cache: Mutex<HashMap<AccountId, Cached<C>>>,
}

impl<C: DecodedCredential> ProviderCredentials<C> {
    pub fn new(store: Arc<dyn CredentialStore>) -> Self {
        Self { store, refresher: None, cache: Mutex::new(HashMap::new()) }
    }

    /// Routes [`recover`](Self::recover) through the shared single-flight refresher.
    pub fn with_refresher(mut self, refresher: Arc<CredentialRefresher>) -> Self {
        self.refresher = Some(refresher);
        self
    }

    /// The credential to use for `account` and its revision: the cached one when it is at least
    /// as new as the snapshot's, else the snapshot's (decoded once and cached).
    pub fn current(&self, account: &AccountEntry) -> Result<(CredentialRevision, Arc<C>), AttemptFailure> {
        let snapshot_revision = account.record.credential_revision;
        if let Some(cached) = self.lock().get(&account.id())
            && cached.revision >= snapshot_revision
        {
            return Ok((cached.revision, cached.credential.clone()));
        }
        let document = account.credential().ok_or_else(|| unusable("credential_unreadable"))?;
        let credential = Arc::new(decode::<C>(document)?);
        self.remember(account.id(), snapshot_revision, credential.clone());
        Ok((snapshot_revision, credential))
    }

    /// The newest stored credential (off the hot path): the store's when it is newer than the
    /// one in memory. Falls back to memory when the store cannot be read.
    pub async fn freshest(&self, account: &AccountEntry) -> Result<Arc<C>, AttemptFailure> {
        let (revision, credential) = self.current(account)?;
        match self.store.read_credential(account.id()).await {
            Ok(stored) if stored.revision > revision => {
                let CredentialSlot::Available(document) = &stored.slot else { return Ok(credential) };
                let newer = Arc::new(decode::<C>(document)?);
                self.remember(account.id(), stored.revision, newer.clone());
                Ok(newer)
            }
            _ => Ok(credential),
        }
    }

    /// After an `Unauthorized` failure: renews the account's credential once (single flight
    /// across replicas); the next [`current`](Self::current) uses the result.
    pub async fn recover(&self, account: AccountId) -> Result<(), AttemptFailure> {
        let Some(refresher) = &self.refresher else {
            return Err(AttemptFailure::new(Fault::CredentialRefused, SendState::NotSent, "no credential refresher"));
        };
        let trigger = match self.lock().get(&account) {
            Some(cached) => RefreshTrigger::Unauthorized { seen: cached.revision },
            None => RefreshTrigger::Manual,
        };
        match refresher.refresh(account, trigger).await {
            Ok(RefreshOutcome::Renewed(current) | RefreshOutcome::Newer(current)) => {
                let credential = decode::<C>(&current.document)?;
                self.remember(account, current.revision, Arc::new(credential));
                Ok(())
            }
            Ok(RefreshOutcome::NotDue) => Ok(()),
            Err(RefreshError::Terminal { reason }) => {
                Err(AttemptFailure::new(Fault::RefreshTokenRefused, SendState::NotSent, reason))
            }
            Err(RefreshError::NoRefreshToken) => {
                Err(AttemptFailure::new(Fault::CredentialRefused, SendState::NotSent, "no_refresh_token"))
            }
            Err(RefreshError::Unreadable) => Err(unusable("credential_unreadable")),
            // The token endpoint (or its edge) failed for now: the account is back when the
            // refresh is retried.
            Err(RefreshError::Transient { message, retry_at, fault }) => {
                Err(AttemptFailure::new(fault, SendState::NotSent, message).until(retry_at))
            }
            Err(err) => Err(AttemptFailure::new(Fault::TokenEndpointUnavailable, SendState::NotSent, err.to_string())),
        }
    }

    fn remember(&self, account: AccountId, revision: CredentialRevision, credential: Arc<C>) {
        let mut cache = self.lock();
        match cache.get(&account) {
            Some(cached) if cached.revision > revision => {}
            _ => {
                cache.insert(account, Cached { revision, credential });
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<AccountId, Cached<C>>> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn decode<C: DecodedCredential>(document: &CredentialDocument) -> Result<C, AttemptFailure> {
    C::decode_document(document).ok_or_else(|| unusable("credential_malformed"))
}

/// The stored credential cannot be opened or read: the account cannot be used as it is.
fn unusable(reason: &str) -> AttemptFailure {
    AttemptFailure::new(Fault::CredentialMalformed, SendState::NotSent, reason)
}
