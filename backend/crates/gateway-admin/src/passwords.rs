//! Password hashing (argon2id, PHC strings) and the password policy.

use argon2::{Argon2, PasswordHasher, PasswordVerifier};

use crate::admin_user::PasswordHash;
use crate::error::AdminError;

pub const MIN_PASSWORD_LEN: usize = 10;
pub const MAX_PASSWORD_LEN: usize = 256;

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

pub fn check_password_policy(field: &str, password: &str) -> Result<(), AdminError> {
    let chars = password.chars().count();
    if !(MIN_PASSWORD_LEN..=MAX_PASSWORD_LEN).contains(&chars) {
        return Err(AdminError::invalid(field, format!("must be {MIN_PASSWORD_LEN} to {MAX_PASSWORD_LEN} characters")));
    }
    Ok(())
}

/// Hashes with argon2id and a fresh salt (on a blocking thread: it takes tens of milliseconds).
pub async fn hash_password(password: &str) -> Result<PasswordHash, AdminError> {
    let password = password.to_owned();
    tokio::task::spawn_blocking(move || {
        Argon2::default()
            .hash_password(password.as_bytes())
            .map(|hash| PasswordHash(hash.to_string()))
            .map_err(|e| AdminError::Storage(gateway_core::ports::StorageError::Internal(format!("argon2: {e}"))))
    })
    .await
    .map_err(|e| AdminError::Storage(gateway_core::ports::StorageError::Internal(format!("hashing task: {e}"))))?
}

/// Verifies `password` against `hash`; `None` verifies against a decoy and returns `false`.
pub async fn verify_password(password: &str, hash: Option<&PasswordHash>) -> bool {
    let password = password.to_owned();
    let known = hash.map(|h| h.0.clone());
    tokio::task::spawn_blocking(move || {
        let real = known.is_some();
        let phc = known.unwrap_or_else(decoy_hash);
        let Ok(parsed) = argon2::password_hash::phc::PasswordHash::new(&phc) else { return false };
        Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok() && real
    })
    .await
    .unwrap_or(false)
}
