//! `format!("{:?}")` of every credential-bearing type shows no secret.

use gateway_admin::backup::{BackupSettingsUpdate, BackupStorageSecrets, SecretsChange};
use gateway_admin::ports::AccountImport;
use gateway_core::domain::{
    AccountProfile, ClientKeySecret, CredentialDocument, CredentialFacts, CredentialSlot, ProviderData, ProviderKind,
    StoredCredential,
};
use gateway_core::ports::CredentialWrite;
use gateway_store::crypto::{Keyring, MasterKey};
use secrecy::ExposeSecret;

const TOKEN: &str = "rt-very-secret-token-123";

fn document() -> CredentialDocument {
    CredentialDocument::new(format!("{{\"refresh_token\":\"{TOKEN}\",\"access_token\":\"{TOKEN}\"}}"))
}

fn assert_hidden(what: &str, debug: String) {
    assert!(!debug.contains(TOKEN), "{what} leaks the token: {debug}");
    assert!(!debug.contains("rt-very"), "{what} leaks part of the token: {debug}");
}

#[test]
fn credential_types_do_not_print_secrets() {
    assert_hidden("CredentialDocument", format!("{:?}", document()));
    assert_hidden("CredentialSlot", format!("{:?}", CredentialSlot::Available(document())));
    assert_hidden(
        "StoredCredential",
        format!(
            "{:?}",
            StoredCredential {
                revision: gateway_core::domain::CredentialRevision(1),
                slot: CredentialSlot::Available(document())
            }
        ),
    );
    let write = CredentialWrite { document: document(), facts: CredentialFacts::active(None, None), profile: None };
    assert_hidden("CredentialWrite", format!("{write:?}"));
    let import = AccountImport {
        provider: ProviderKind::Openai,
        external_account_id: "acct".to_owned(),
        profile: AccountProfile::default(),
        document: document(),
        facts: CredentialFacts::active(None, None),
        provider_data: ProviderData::default(),
    };
    assert_hidden("AccountImport", format!("{import:?}"));
    assert_hidden("ClientKeySecret", format!("{:?}", ClientKeySecret::new(TOKEN.to_owned())));
    assert_eq!(ClientKeySecret::new(TOKEN.to_owned()).display_prefix(), "rt-very-secr");
}

#[test]
fn backup_and_key_types_do_not_print_secrets() {
    let secrets = BackupStorageSecrets::new(TOKEN.to_owned(), TOKEN.to_owned());
    assert_hidden("BackupStorageSecrets", format!("{secrets:?}"));
    let update = BackupSettingsUpdate {
        enabled: true,
        endpoint: String::new(),
        region: String::new(),
        bucket: String::new(),
        path_style: false,
        prefix: String::new(),
        credentials: SecretsChange::Replace(secrets),
        schedule_cron: None,
        retention_count: None,
        retention_days: None,
    };
    assert_hidden("BackupSettingsUpdate", format!("{update:?}"));

    let key = MasterKey::generate("k1").expect("key");
    let material = key.to_config_value().expose_secret().to_owned();
    let encoded = material.split_once(':').map(|(_, b)| b.to_owned()).expect("ID:BASE64");
    let debug = format!("{key:?}");
    assert!(!debug.contains(&encoded), "MasterKey leaks its bytes: {debug}");
    let keyring = Keyring::new(key, vec![]).expect("keyring");
    let sealed = keyring.seal(TOKEN.as_bytes(), "ctx").expect("seal");
    assert!(!format!("{keyring:?}").contains(&encoded));
    assert_hidden("SealedSecret", format!("{sealed:?}"));
}
