//! A migrated store on a fresh schema, plus builders for the rows most tests need.

use gateway_admin::audit::{AuditActor, AuditEntry};
use gateway_admin::ports::{AccountImport, ImportOutcome, UnitOfWork};
use gateway_core::domain::{AccountProfile, CredentialDocument, CredentialFacts, ProviderData, ProviderKind};
use gateway_store::crypto::{Keyring, MasterKey};
use gateway_store::postgres::PgStore;
use secrecy::ExposeSecret;
use sqlx::PgPool;
use test_support::TestDatabase;

pub struct TestStore {
    pub store: PgStore,
    /// A raw pool on the same schema, standing in for psql.
    pub raw: PgPool,
    pub key_config: String,
    db: TestDatabase,
}

impl TestStore {
    /// A fresh schema, migrated, with a keyring whose current key is `k1`.
    pub async fn new() -> anyhow::Result<Self> {
        let key = MasterKey::generate("k1")?;
        let key_config = key.to_config_value().expose_secret().to_owned();
        Self::with_key(key_config).await
    }

    pub async fn with_key(key_config: String) -> anyhow::Result<Self> {
        let db = TestDatabase::create().await?;
        let keyring = Keyring::from_config(&key_config, &[])?;
        let store = gateway_store::postgres::connect(db.url(), 4).await?.with_keyring(keyring);
        store.migrate().await?;
        let raw = db.pool().await?;
        Ok(Self { store, raw, key_config, db })
    }

    /// The same schema seen through another keyring.
    pub async fn reopen(&self, keyring: Keyring) -> anyhow::Result<PgStore> {
        Ok(gateway_store::postgres::connect(self.db.url(), 4).await?.with_keyring(keyring))
    }

    pub fn url(&self) -> &str {
        self.db.url()
    }

    pub async fn finish(self) -> anyhow::Result<()> {
        self.store.close().await;
        self.raw.close().await;
        self.db.drop_schema().await
    }

    /// Imports an OpenAI account through a committed unit of work.
    pub async fn import(&self, external_id: &str, token: &str) -> anyhow::Result<ImportOutcome> {
        let mut tx = self.store.begin().await?;
        let outcome = tx.import_account(account_import(external_id, token)).await?;
        tx.commit(audit("account.import", "account")).await?;
        Ok(outcome)
    }
}

pub fn credential(token: &str) -> CredentialDocument {
    CredentialDocument::new(format!("{{\"access_token\":\"{token}\",\"refresh_token\":\"{token}-refresh\"}}"))
}

pub fn account_import(external_id: &str, token: &str) -> AccountImport {
    AccountImport {
        provider: ProviderKind::Openai,
        external_account_id: external_id.to_owned(),
        profile: AccountProfile { email: Some(format!("{external_id}@example.com")), plan_type: Some("plus".into()) },
        document: credential(token),
        facts: CredentialFacts::active(None, None),
        provider_data: ProviderData::default(),
    }
}

pub fn audit(action: &str, target_kind: &str) -> AuditEntry {
    AuditEntry::new(
        AuditActor { user_id: None, name: "test".to_owned() },
        action,
        target_kind,
        None,
        serde_json::json!({}),
    )
}

/// Now, at the microsecond precision PostgreSQL stores.
pub fn now() -> time::OffsetDateTime {
    let now = time::OffsetDateTime::now_utc();
    now.replace_nanosecond(now.nanosecond() / 1_000 * 1_000).unwrap_or(now)
}
