use gateway_store::crypto::{CryptoError, Keyring, KeyringError, MasterKey, MasterKeyError};
use secrecy::ExposeSecret;

fn key(id: &str) -> MasterKey {
    MasterKey::generate(id).expect("valid key id")
}

#[test]
fn sealed_text_opens_with_the_same_context_only() {
    let keyring = Keyring::new(key("k1"), vec![]).expect("keyring");
    let sealed = keyring.seal(b"{\"refresh_token\":\"rt-secret\"}", "ctx:a").expect("seal");
    assert_eq!(sealed.key_id, "k1");
    assert!(!sealed.ciphertext.windows(9).any(|w| w == b"rt-secret"));
    let opened = keyring.open(&sealed, "ctx:a").expect("open");
    assert_eq!(opened.expose_secret(), "{\"refresh_token\":\"rt-secret\"}");
    assert!(matches!(keyring.open(&sealed, "ctx:b"), Err(CryptoError::Unauthentic { .. })));
}

#[test]
fn two_seals_of_the_same_text_differ() {
    let keyring = Keyring::new(key("k1"), vec![]).expect("keyring");
    let a = keyring.seal(b"same", "ctx").expect("seal");
    let b = keyring.seal(b"same", "ctx").expect("seal");
    assert_ne!(a.ciphertext, b.ciphertext, "random nonce per seal");
}

#[test]
fn retired_keys_open_and_unknown_or_wrong_keys_fail_cleanly() {
    let old = key("old");
    let old_config = old.to_config_value().expose_secret().to_owned();
    let before = Keyring::new(old, vec![]).expect("keyring");
    let sealed = before.seal(b"secret", "ctx").expect("seal");

    let rotated = Keyring::from_config(key("new").to_config_value().expose_secret(), std::slice::from_ref(&old_config))
        .expect("keyring");
    assert_eq!(rotated.open(&sealed, "ctx").expect("retired key opens").expose_secret(), "secret");
    assert_eq!(rotated.current_key_id(), "new");

    let forgot = Keyring::new(key("new"), vec![]).expect("keyring");
    assert!(matches!(forgot.open(&sealed, "ctx"), Err(CryptoError::UnknownKey { key_id }) if key_id == "old"));

    let impostor = Keyring::new(key("old"), vec![]).expect("same id, other bytes");
    assert!(matches!(impostor.open(&sealed, "ctx"), Err(CryptoError::Unauthentic { .. })));

    let mut tampered = sealed.clone();
    let last = tampered.ciphertext.len() - 1;
    tampered.ciphertext[last] ^= 1;
    assert!(matches!(before.open(&tampered, "ctx"), Err(CryptoError::Unauthentic { .. })));
}

#[test]
fn master_key_parsing_names_the_problem_without_the_material() {
    assert_eq!(MasterKey::parse("no-separator").err(), Some(MasterKeyError::MissingSeparator));
    assert_eq!(MasterKey::parse("bad id:AAAA").err(), Some(MasterKeyError::InvalidId));
    assert!(matches!(MasterKey::parse("k:!!!"), Err(MasterKeyError::InvalidBase64 { .. })));
    let short = MasterKey::parse("k:AAAA").expect_err("too short");
    assert_eq!(short, MasterKeyError::WrongLength { id: "k".to_owned(), len: 3 });
    assert!(!short.to_string().contains("AAAA"));
    let one = key("same").to_config_value().expose_secret().to_owned();
    let two = key("same").to_config_value().expose_secret().to_owned();
    assert!(matches!(Keyring::from_config(&one, &[two]), Err(KeyringError::DuplicateId(id)) if id == "same"));
}
