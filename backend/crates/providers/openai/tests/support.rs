//! One test world: the simulator as upstream, a migrated PostgreSQL schema, a Redis prefix, and
//! builders for the provider, refreshers and snapshots over them.

use std::sync::Arc;
use std::time::Duration;

use gateway_admin::account_import::import_accounts;
use gateway_admin::audit::AuditActor;
use gateway_core::coordination::ReplicaId;
use gateway_core::credential_refresh::{CredentialRefresher, RefreshPorts, RefreshSettings};
use gateway_core::domain::AccountId;
use gateway_core::ports::{CredentialStore, SnapshotSource};
use gateway_core::snapshot::{RuntimeSnapshot, SnapshotHolder};
use gateway_store::crypto::{Keyring, MasterKey};
use gateway_store::postgres::PgStore;
use gateway_store::redis::{RedisCoordination, RedisSettings};
use provider_openai::{OpenAiProvider, OpenAiSettings};
use secrecy::ExposeSecret;
use test_support::{TestDatabase, redis_url, unique_prefix};
use upstream_sim::{AccountSpec, SimConfig, SimHandle, Simulator, TokenSet};

pub struct World {
    pub sim: SimHandle,
    pub store: Arc<PgStore>,
    pub db: TestDatabase,
    pub redis_prefix: String,
}

pub fn install_crypto() {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
}

impl World {
    /// The simulator and an empty migrated store.
    pub async fn start() -> Self {
        install_crypto();
        let sim = Simulator::start(SimConfig::default()).await.expect("simulator starts");
        let db = TestDatabase::create().await.expect("test database");
        let key = MasterKey::generate("k1").expect("key");
        let keyring = Keyring::from_config(key.to_config_value().expose_secret(), &[]).expect("keyring");
        let store = gateway_store::postgres::connect(db.url(), 8).await.expect("connect").with_keyring(keyring);
        store.migrate().await.expect("migrate");
        Self { sim, store: Arc::new(store), db, redis_prefix: unique_prefix("openai").replace(':', "-") }
    }

    pub fn settings(&self) -> OpenAiSettings {
        OpenAiSettings {
            backend_url: self.sim.chatgpt_base_url(),
            auth_url: self.sim.oauth_issuer_url(),
            allow_http_loopback: true,
            refresh_timeout: Duration::from_secs(5),
            ..OpenAiSettings::default()
        }
    }

    pub fn provider(&self) -> OpenAiProvider {
        OpenAiProvider::new(&self.settings(), self.store.clone()).expect("provider")
    }

    /// A Redis adapter on this world's prefix (every call shares the keys: "replicas").
    pub fn redis(&self) -> Arc<RedisCoordination> {
        Arc::new(RedisCoordination::new(RedisSettings::new(redis_url(), self.redis_prefix.clone())).expect("redis"))
    }

    /// Adds `spec` to the simulator and imports its `auth.json`.
    pub async fn account(&self, spec: AccountSpec) -> (AccountId, TokenSet) {
        let tokens = self.sim.add_account(spec).expect("simulator account");
        let id = self.import(&serde_json::to_vec(&tokens.codex_auth_json()).expect("json")).await;
        (id, tokens)
    }

    pub async fn import(&self, input: &[u8]) -> AccountId {
        let actor = AuditActor { user_id: None, name: "test".to_owned() };
        let report =
            import_accounts(self.store.as_ref(), &self.provider(), actor, input).await.expect("import succeeds");
        *report.created.first().or(report.updated.first()).expect("one account")
    }

    pub async fn snapshots(&self) -> SnapshotHolder {
        let facts = self.store.load_snapshot_facts().await.expect("snapshot facts");
        SnapshotHolder::new(RuntimeSnapshot::build(facts))
    }

    /// A refresher as one replica would build it, over `credentials` (the store, or a wrapper).
    pub async fn refresher(&self, credentials: Arc<dyn CredentialStore>) -> Arc<CredentialRefresher> {
        let ports = RefreshPorts { accounts: self.store.clone(), credentials, leases: self.redis() };
        let settings = RefreshSettings { wait_poll: Duration::from_millis(20), ..RefreshSettings::default() };
        Arc::new(CredentialRefresher::new(
            ports,
            ReplicaId::random(),
            vec![Arc::new(self.provider().renewer())],
            self.snapshots().await,
            settings,
        ))
    }

    /// Refresh-token exchanges the simulator saw.
    pub fn token_calls(&self) -> usize {
        self.sim
            .requests()
            .iter()
            .filter(|r| {
                r.path.ends_with("/oauth/token")
                    && r.json().and_then(|b| b.get("grant_type").and_then(|g| g.as_str()).map(str::to_owned)).as_deref()
                        == Some("refresh_token")
            })
            .count()
    }

    pub async fn raw(&self) -> sqlx::PgPool {
        self.db.pool().await.expect("pool")
    }
}
