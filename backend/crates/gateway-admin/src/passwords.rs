//! Password hashing (argon2id, PHC strings), the bound on concurrent hashing, and the password
//! policy.
//!
//! One argon2 computation with the defaults takes 19 MiB for tens of milliseconds, so hashing
//! runs only with a [`HashPermit`] of a small [`PasswordHashing`] bound; when all permits are
//! taken a request is refused at once (`rate_limited`) instead of queueing memory.

use std::sync::Arc;

use argon2::{Argon2, PasswordHasher, PasswordVerifier};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::admin_user::PasswordHash;
use crate::error::AdminError;

pub const MIN_PASSWORD_LEN: usize = 10;
pub const MAX_PASSWORD_LEN: usize = 256;

/// How long a refused hashing request is told to wait.
pub const BUSY_RETRY_SECONDS: u64 = 1;

/// The hash of a random password no login can know: verified against when the user does not
/// exist, so unknown and known usernames take the same time.
static DECOY_HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();

fn decoy_hash() -> String {
    DECOY_HASH
        .get_or_init(|| {
            let random: String = (0..32).map(|_| char::from(b'a' + rand::random_range(0..26u8))).collect();
            Argon2::default().hash_password(random.as_bytes()).map(|h| h.to_string()).unwrap_or_default()
        })
        .clone()
}

/// At most `concurrency` password hashes or verifications at a time, process-wide.
#[derive(Clone)]
pub struct PasswordHashing {
    permits: Arc<Semaphore>,
}

impl PasswordHashing {
    /// A bound of `concurrency` (at least one).
    pub fn new(concurrency: usize) -> Self {
        Self { permits: Arc::new(Semaphore::new(concurrency.max(1))) }
    }

    /// A permit to hash now, or `rate_limited` (retry in a second) when the bound is reached.
    pub fn try_permit(&self) -> Result<HashPermit, AdminError> {
        match Arc::clone(&self.permits).try_acquire_owned() {
            Ok(permit) => Ok(HashPermit { _held: Arc::new(permit) }),
            Err(_) => Err(AdminError::RateLimited { retry_after_seconds: BUSY_RETRY_SECONDS }),
        }
    }

    /// Permits free right now.
    pub fn available(&self) -> usize {
        self.permits.available_permits()
    }
}

/// The right to run argon2. The blocking computation holds a clone, so the permit is released
/// only when the computation ends, even if the request that started it was cancelled.
#[derive(Clone)]
pub struct HashPermit {
    _held: Arc<OwnedSemaphorePermit>,
}

pub fn check_password_policy(field: &str, password: &str) -> Result<(), AdminError> {
    let chars = password.chars().count();
    if !(MIN_PASSWORD_LEN..=MAX_PASSWORD_LEN).contains(&chars) {
        return Err(AdminError::invalid(field, format!("must be {MIN_PASSWORD_LEN} to {MAX_PASSWORD_LEN} characters")));
    }
    Ok(())
}

fn internal(message: String) -> AdminError {
    AdminError::Storage(gateway_core::ports::StorageError::Internal(message))
}

/// Hashes with argon2id and a fresh salt on a blocking thread, under `permit`.
pub async fn hash_password_with(permit: &HashPermit, password: &str) -> Result<PasswordHash, AdminError> {
    let (password, permit) = (password.to_owned(), permit.clone());
    tokio::task::spawn_blocking(move || {
        let _held = permit;
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|hash| PasswordHash(hash.to_string()))
            .map_err(|e| internal(format!("argon2: {e}")))
    })
    .await
    .map_err(|e| internal(format!("hashing task: {e}")))?
}

/// Hashes outside any request bound (the first admin at start-up, tests).
pub async fn hash_password(password: &str) -> Result<PasswordHash, AdminError> {
    hash_password_with(&PasswordHashing::new(1).try_permit()?, password).await
}

/// Verifies `password` against `hash` under `permit`; `None` verifies against a decoy and
/// returns `false`.
pub async fn verify_password(permit: &HashPermit, password: &str, hash: Option<&PasswordHash>) -> bool {
    let (password, permit) = (password.to_owned(), permit.clone());
    let known = hash.map(|h| h.0.clone());
    tokio::task::spawn_blocking(move || {
        let _held = permit;
        let real = known.is_some();
        let phc = known.unwrap_or_else(decoy_hash);
        let Ok(parsed) = argon2::password_hash::phc::PasswordHash::new(&phc) else { return false };
        Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok() && real
    })
    .await
    .unwrap_or(false)
}
