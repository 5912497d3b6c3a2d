//! The login use cases over real PostgreSQL, Redis and the simulator: a flow completes once and
//! only for its owner; stale, tampered and refused callbacks; re-authorisation keeps the
//! account's profile and scheduling facts and replaces the credential by compare-and-swap.

use std::sync::Arc;

use gateway_admin::audit::AuditActor;
use gateway_admin::oauth::{CallbackRejected, DeviceLoginPoll, OAuthError, OAuthLogins, OAuthOwner};
use gateway_core::domain::{AccountId, ProviderKind};
use gateway_core::oauth_login::{OAuthFailure, OAuthLogin};
use gateway_core::ports::{CredentialStore, CredentialWrite};
use gateway_store::crypto::{Keyring, MasterKey};
use gateway_store::postgres::PgStore;
use gateway_store::redis::{RedisCoordination, RedisSettings};
use provider_openai::OpenAiProvider;
use provider_openai::credential::OpenAiCredential;
use secrecy::ExposeSecret;
use test_support::{TestDatabase, redis_url, unique_prefix};
use upstream_sim::{AccountSpec, SimConfig, SimHandle, Simulator};

const OPENAI: ProviderKind = ProviderKind::Openai;

struct World {
    sim: SimHandle,
    store: Arc<PgStore>,
    logins: OAuthLogins,
    _db: TestDatabase,
}

impl World {
    async fn start(accounts: &[&str]) -> Self {
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let sim = Simulator::start(SimConfig::default()).await.expect("simulator");
        for id in accounts {
            sim.add_account(AccountSpec::openai(*id)).expect("account");
        }
        let db = TestDatabase::create().await.expect("database");
        let key = MasterKey::generate("k1").expect("key");
        let keyring = Keyring::from_config(key.to_config_value().expose_secret(), &[]).expect("keyring");
        let store =
            Arc::new(gateway_store::postgres::connect(db.url(), 4).await.expect("connect").with_keyring(keyring));
        store.migrate().await.expect("migrate");
        let redis = RedisSettings::new(redis_url(), unique_prefix("oauth").replace(':', "-"));
        let coordination = Arc::new(RedisCoordination::new(redis).expect("redis"));
        let settings = provider_openai::OpenAiSettings {
            backend_url: sim.chatgpt_base_url(),
            auth_url: sim.oauth_issuer_url(),
            allow_http_loopback: true,
            ..provider_openai::OpenAiSettings::default()
        };
        let provider = OpenAiProvider::new(&settings, store.clone()).expect("provider");
        let logins = OAuthLogins::new(
            vec![Arc::new(provider.oauth()) as Arc<dyn OAuthLogin>],
            coordination,
            store.clone(),
            store.clone(),
        );
        Self { sim, store, logins, _db: db }
    }

    async fn raw(&self) -> sqlx::PgPool {
        self._db.pool().await.expect("pool")
    }
}

fn owner(name: &str) -> OAuthOwner {
    OAuthOwner(format!("admin:{name}"))
}

fn actor() -> AuditActor {
    AuditActor { user_id: None, name: "test".to_owned() }
}

async fn consent(authorize_url: &str) -> String {
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
    let response = client.get(authorize_url).send().await.expect("authorize");
    assert_eq!(response.status(), 302);
    response.headers()["location"].to_str().expect("location").to_owned()
}

/// A browser login by `who` up to the callback address.
async fn callback(world: &World, target: Option<AccountId>, who: &OAuthOwner, hint: Option<&str>) -> String {
    let started = world.logins.start_login(OPENAI, target, who).await.expect("start");
    let url = match hint {
        Some(hint) => format!("{}&login_hint={hint}", started.authorize_url),
        None => started.authorize_url,
    };
    consent(&url).await
}

#[tokio::test]
async fn a_callback_completes_once_and_only_for_its_owner() {
    let world = World::start(&["acct-1"]).await;
    let alice = owner("alice");
    let back = callback(&world, None, &alice, None).await;

    let foreign = world.logins.complete_login(OPENAI, &back, &owner("mallory"), actor()).await;
    assert!(matches!(foreign, Err(OAuthError::NotYourFlow)), "{foreign:?}");
    // The foreign attempt changed nothing: the owner still completes, with only the query.
    let query = back.split_once('?').expect("query").1;
    let done = world.logins.complete_login(OPENAI, query, &alice, actor()).await.expect("completed");
    assert!(done.created && !done.reauthorized);
    assert_eq!((done.external_account_id.as_str(), done.credential_state.as_str()), ("acct-1", "active"));

    let replay = world.logins.complete_login(OPENAI, &back, &alice, actor()).await;
    assert!(matches!(replay, Err(OAuthError::UnknownFlow)), "{replay:?}");
    let audit: Vec<String> = sqlx::query_scalar("SELECT action FROM admin_audit_events ORDER BY id")
        .fetch_all(&world.raw().await)
        .await
        .expect("audit");
    assert_eq!(audit, ["account.oauth_login"]);
}

#[tokio::test]
async fn tampered_bare_and_refused_callbacks_are_refused() {
    let world = World::start(&["acct-1"]).await;
    let alice = owner("alice");
    let back = callback(&world, None, &alice, None).await;
    let tampered = back.replace("state=", "state=x");
    assert!(matches!(
        world.logins.complete_login(OPENAI, &tampered, &alice, actor()).await,
        Err(OAuthError::UnknownFlow)
    ));
    let code = back.split("code=").nth(1).and_then(|s| s.split('&').next()).expect("code");
    let bare = world.logins.complete_login(OPENAI, code, &alice, actor()).await;
    assert!(matches!(bare, Err(OAuthError::Callback(CallbackRejected::NoQuery))), "{bare:?}");

    // A refused consent for the flow's state ends the flow.
    let state = back.split("state=").nth(1).expect("state");
    let denied =
        format!("http://localhost:1455/auth/callback?error=access_denied&error_description=nope&state={state}");
    let refused = world.logins.complete_login(OPENAI, &denied, &alice, actor()).await;
    assert!(matches!(refused, Err(OAuthError::Upstream(OAuthFailure::Denied(_)))), "{refused:?}");
    assert!(matches!(world.logins.complete_login(OPENAI, &back, &alice, actor()).await, Err(OAuthError::UnknownFlow)));
    let accounts: i64 = sqlx::query_scalar("SELECT count(*) FROM provider_accounts")
        .fetch_one(&world.raw().await)
        .await
        .expect("count");
    assert_eq!(accounts, 0);
}

#[tokio::test]
async fn reauthorisation_keeps_the_account_and_swaps_the_credential_on_the_current_revision() {
    let world = World::start(&["acct-1"]).await;
    let alice = owner("alice");
    let first = callback(&world, None, &alice, None).await;
    let account = world.logins.complete_login(OPENAI, &first, &alice, actor()).await.expect("login").account_id;
    let pool = world.raw().await;
    sqlx::query(
        "UPDATE provider_accounts SET weight = 7, concurrency_cap = 2, credential_state = 'invalid', \
                 credential_reason = 'refresh_token_reused', next_refresh_at = NULL WHERE id = $1",
    )
    .bind(account.0)
    .execute(&pool)
    .await
    .expect("admin edits and a dead credential");
    let installation = {
        let stored = world.store.read_credential(account).await.expect("read");
        let gateway_core::domain::CredentialSlot::Available(doc) = stored.slot else { panic!("readable") };
        OpenAiCredential::decode(&doc).expect("doc").installation_id.expect("installation id")
    };

    let started = world.logins.start_login(OPENAI, Some(account), &alice).await.expect("start re-authorisation");
    let back = consent(&started.authorize_url).await;
    // The credential moves while the admin is in the browser (a refresh elsewhere).
    let stored = world.store.read_credential(account).await.expect("read");
    let gateway_core::domain::CredentialSlot::Available(document) = stored.slot else { panic!("readable") };
    let facts = gateway_core::domain::CredentialFacts {
        state: gateway_core::domain::CredentialState::Invalid,
        reason: Some("refresh_token_reused".to_owned()),
        ..gateway_core::domain::CredentialFacts::active(None, None)
    };
    world
        .store
        .write_credential(account, stored.revision, CredentialWrite { document, facts, profile: None })
        .await
        .expect("moved");

    let done = world.logins.complete_login(OPENAI, &back, &alice, actor()).await.expect("re-authorised");
    assert_eq!((done.account_id, done.created, done.reauthorized), (account, false, true));
    let (weight, cap, state, revision, email): (i16, Option<i32>, String, i64, Option<String>) = sqlx::query_as(
        "SELECT weight, concurrency_cap, credential_state, credential_revision, email FROM provider_accounts WHERE id = $1",
    )
    .bind(account.0)
    .fetch_one(&pool)
    .await
    .expect("row");
    assert_eq!((weight, cap, state.as_str(), revision), (7, Some(2), "active", 3));
    assert_eq!(email.as_deref(), Some("acct-1@sim.test"));
    let stored = world.store.read_credential(account).await.expect("read");
    let gateway_core::domain::CredentialSlot::Available(doc) = stored.slot else { panic!("readable") };
    assert_eq!(OpenAiCredential::decode(&doc).expect("doc").installation_id.as_deref(), Some(installation.as_str()));
}

#[tokio::test]
async fn reauthorising_with_another_upstream_account_is_refused() {
    let world = World::start(&["acct-1", "acct-2"]).await;
    let alice = owner("alice");
    let first = callback(&world, None, &alice, Some("acct-1")).await;
    let account = world.logins.complete_login(OPENAI, &first, &alice, actor()).await.expect("login").account_id;
    let back = callback(&world, Some(account), &alice, Some("acct-2")).await;
    let refused = world.logins.complete_login(OPENAI, &back, &alice, actor()).await;
    assert!(matches!(refused, Err(OAuthError::WrongAccount)), "{refused:?}");
    let revision: i64 = sqlx::query_scalar("SELECT credential_revision FROM provider_accounts WHERE id = $1")
        .bind(account.0)
        .fetch_one(&world.raw().await)
        .await
        .expect("revision");
    assert_eq!(revision, 1, "the account's credential is untouched");
}

#[tokio::test]
async fn a_device_login_completes_once_for_its_owner() {
    let world = World::start(&["acct-1"]).await;
    let alice = owner("alice");
    let started = world.logins.start_device_login(OPENAI, None, &alice).await.expect("device code");
    let pending = world.logins.poll_device_login(OPENAI, &started.flow_id, &alice, actor()).await.expect("poll");
    assert!(matches!(pending, DeviceLoginPoll::Pending { .. }));
    let foreign = world.logins.poll_device_login(OPENAI, &started.flow_id, &owner("mallory"), actor()).await;
    assert!(matches!(foreign, Err(OAuthError::NotYourFlow)), "{foreign:?}");
    world.sim.approve_device(Some(&started.user_code), "acct-1").expect("approve");
    let DeviceLoginPoll::Completed(done) =
        world.logins.poll_device_login(OPENAI, &started.flow_id, &alice, actor()).await.expect("poll")
    else {
        panic!("approved");
    };
    assert!(done.created);
    assert_eq!(done.external_account_id, "acct-1");
    let again = world.logins.poll_device_login(OPENAI, &started.flow_id, &alice, actor()).await;
    assert!(matches!(again, Err(OAuthError::UnknownFlow)), "{again:?}");
}
