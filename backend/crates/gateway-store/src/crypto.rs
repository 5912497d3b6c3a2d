//! Secrets at rest: AES-256-GCM under a configured master key.
//!
//! Sealed format (`SEAL_VERSION` 1): `0x01 || nonce (12 random bytes) || ciphertext || tag (16)`.
//! The id of the sealing key is stored next to the ciphertext (its own column) and bound into
//! the associated data together with a context naming the column and row, so a ciphertext moved
//! to another row or relabelled with another key id does not open:
//! `AAD = "switchboard.seal.v1" || 0x00 || key_id || 0x00 || context`.
//!
//! Rotation: configure the new key as `secrets.master_key`, list the old one in
//! `secrets.retired_master_keys`, re-seal (`switchboard secrets reseal`, `PgStore::reseal_secrets`)
//! until nothing but unreadable rows remain, then drop the retired key.

mod keyring;
mod master_key;

pub use keyring::{CryptoError, Keyring, KeyringError, SealedSecret};
pub use master_key::{MasterKey, MasterKeyError};
