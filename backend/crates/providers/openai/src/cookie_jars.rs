//! Each account's cookie jar (SPEC §3 invariant 7: cookies are bound explicitly to each call):
//! the cookies the backend (or the edge in front of it: `__cf_bm`, `cf_clearance`) set on an
//! account's answers, sent back on that account's later HTTP requests and WebSocket upgrades —
//! never on another account's, never to a client. A jar belongs to the egress path it was
//! collected on: when the account's path changes (another proxy), the jar is dropped.
//!
//! The jars live in memory; [`AccountCookies::take_changes`] hands the changed ones to the
//! `cookie-jars` worker, which stores them sealed (`CookieJarStore`) and loads them at start.
//! While no account holds a cookie, a request pays one atomic load.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use gateway_core::domain::AccountId;
use gateway_core::ports::{CookieFacts, StoredCookieJar};
use gateway_core::snapshot::AccountEntry;
use gateway_transport::CookieJar;
use http::{HeaderMap, HeaderValue};
use secrecy::{ExposeSecret, SecretString};
use time::OffsetDateTime;
use url::Url;

/// Accounts whose jars are kept in memory before the oldest ones are dropped.
const MAX_JARS: usize = 100_000;

#[derive(Default)]
pub struct AccountCookies {
    /// Jars held; zero lets a request skip the lock.
    held: AtomicUsize,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    jars: HashMap<AccountId, Held>,
    /// Changed since the last [`AccountCookies::take_changes`].
    changed: HashSet<AccountId>,
}

struct Held {
    egress_path: String,
    jar: CookieJar,
}

/// What changed since the last hand-over: jars to store, accounts whose jar is gone.
#[derive(Debug, Default)]
pub struct CookieChanges {
    pub save: Vec<StoredCookieJar>,
    pub delete: Vec<AccountId>,
}

impl AccountCookies {
    /// The `Cookie` header for `account`'s request to `url`, from its jar on its current path.
    pub fn header(&self, account: &AccountEntry, url: &Url) -> Option<HeaderValue> {
        if self.held.load(Ordering::Relaxed) == 0 {
            return None;
        }
        self.with(|inner| {
            let held = inner.jars.get(&account.id())?;
            if held.egress_path != account.egress_path() {
                // Collected on another path: those cookies describe another address.
                inner.jars.remove(&account.id());
                inner.changed.insert(account.id());
                return None;
            }
            held.jar.header(url)
        })
    }

    /// Takes the `Set-Cookie` headers of `account`'s answer from `url` into its jar.
    pub fn absorb(&self, account: &AccountEntry, url: &Url, headers: &HeaderMap) {
        if !headers.contains_key(http::header::SET_COOKIE) {
            return;
        }
        let path = account.egress_path();
        self.with(|inner| {
            if inner.jars.len() >= MAX_JARS && !inner.jars.contains_key(&account.id()) {
                return;
            }
            let held = inner
                .jars
                .entry(account.id())
                .or_insert_with(|| Held { egress_path: path.to_owned(), jar: CookieJar::new() });
            if held.egress_path != path {
                *held = Held { egress_path: path.to_owned(), jar: CookieJar::new() };
            }
            if held.jar.absorb(url, headers) {
                inner.changed.insert(account.id());
            }
        });
    }

    /// The jars stored before this process started; an account that already collected
    /// cookies since keeps its own.
    pub fn load(&self, stored: Vec<StoredCookieJar>) {
        self.with(|inner| {
            for jar in stored {
                let Ok(parsed) = CookieJar::from_json(jar.jar.expose_secret()) else {
                    tracing::warn!(account = %jar.account, "a stored cookie jar is unreadable; it is dropped");
                    inner.changed.insert(jar.account);
                    continue;
                };
                inner.jars.entry(jar.account).or_insert(Held { egress_path: jar.egress_path, jar: parsed });
            }
        });
    }

    /// The jars changed since the last call (to store) and the accounts whose jar is gone or
    /// empty (to delete).
    pub fn take_changes(&self, now: OffsetDateTime) -> CookieChanges {
        self.with(|inner| {
            let mut changes = CookieChanges::default();
            for account in std::mem::take(&mut inner.changed) {
                match inner.jars.get(&account).filter(|held| !held.jar.is_empty()) {
                    Some(held) => changes.save.push(stored(account, held, now)),
                    None => {
                        inner.jars.remove(&account);
                        changes.delete.push(account);
                    }
                }
            }
            changes
        })
    }

    /// Marks `account`'s jar for another hand-over (its write failed).
    pub fn retry(&self, account: AccountId) {
        self.with(|inner| {
            inner.changed.insert(account);
        });
    }

    /// The names (no values) of the cookies `account` holds now, for tests and logs.
    pub fn names(&self, account: AccountId) -> Vec<String> {
        self.with(|inner| {
            inner.jars.get(&account).map(|h| h.jar.entries().into_iter().map(|e| e.name).collect()).unwrap_or_default()
        })
    }

    fn with<T>(&self, change: impl FnOnce(&mut Inner) -> T) -> T {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let result = change(&mut inner);
        self.held.store(inner.jars.len(), Ordering::Relaxed);
        result
    }
}

fn stored(account: AccountId, held: &Held, now: OffsetDateTime) -> StoredCookieJar {
    let cookies = held
        .jar
        .entries()
        .into_iter()
        .map(|e| CookieFacts { name: e.name, domain: e.domain, path: e.path, expires_at: e.expires_at })
        .collect();
    StoredCookieJar {
        account,
        egress_path: held.egress_path.clone(),
        jar: SecretString::from(held.jar.to_json()),
        cookies,
        updated_at: now,
    }
}

/// Loads the stored jars once (`loaded` remembers), then stores what changed since the last
/// pass: the `cookie-jars` worker's period. A write that fails is retried at the next pass.
pub async fn persist(
    cookies: &AccountCookies,
    store: &dyn gateway_core::ports::CookieJarStore,
    loaded: &std::sync::atomic::AtomicBool,
) -> Result<(), gateway_core::ports::StorageError> {
    if !loaded.load(Ordering::Relaxed) {
        cookies.load(store.load_cookie_jars().await?);
        loaded.store(true, Ordering::Relaxed);
    }
    let changes = cookies.take_changes(OffsetDateTime::now_utc());
    let mut failed = None;
    for jar in &changes.save {
        if let Err(error) = store.save_cookie_jar(jar).await {
            cookies.retry(jar.account);
            failed = Some(error);
        }
    }
    for account in changes.delete {
        if let Err(error) = store.delete_cookie_jar(account).await {
            cookies.retry(account);
            failed = Some(error);
        }
    }
    failed.map_or(Ok(()), Err)
}
