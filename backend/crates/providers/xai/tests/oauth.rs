//! Both logins against the simulator's OIDC issuer over real sockets — its TLS listener, trusted
//! through `extra_ca_file` as in production (no plain-http allowance) — and the ID-token
//! checks: a bad signature, another issuer or audience, a wrong nonce, an expired token or
//! `alg: none` is refused.

use std::sync::Arc;

use gateway_core::domain::CredentialState;
use gateway_core::oauth_login::{DevicePoll, OAuthLogin};
use gateway_transport::{Connector, HttpClient, TlsRoots};
use provider_xai::credential::XaiCredential;
use provider_xai::oauth::discovery;
use provider_xai::oauth::id_token::{IdTokenError, verify};
use provider_xai::{XaiProvider, XaiSettings};
use secrecy::ExposeSecret;
use serde_json::{Value, json};
use upstream_sim::{AccountSpec, SimConfig, SimHandle, Simulator};

struct World {
    sim: SimHandle,
    provider: XaiProvider,
    _dir: std::path::PathBuf,
}

impl World {
    async fn start() -> Self {
        let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
        let sim = Simulator::start(SimConfig::default()).await.expect("simulator");
        sim.add_account(AccountSpec::xai("grok-a")).expect("account");
        let dir = std::env::temp_dir().join(format!("xai-oauth-{}-{}", std::process::id(), test_support::free_port()));
        std::fs::create_dir_all(&dir).expect("dir");
        let store = gateway_store::sqlite::open(&dir.join("db.sqlite"), 1).await.expect("sqlite");
        let ca = dir.join("sim-ca.pem");
        std::fs::write(&ca, sim.ca_pem()).expect("CA file");
        let settings = XaiSettings {
            inference_url: sim.tls_xai_base_url(),
            issuer_url: sim.tls_xai_issuer_url(),
            allow_http_loopback: false,
            extra_ca_file: Some(ca),
            ..XaiSettings::default()
        };
        let provider = XaiProvider::new(&settings, Arc::new(store)).expect("provider");
        Self { sim, provider, _dir: dir }
    }

    /// The token answers the issuer's userinfo: a usable account.
    async fn assert_usable(&self, access_token: &str) -> Value {
        let response = reqwest::Client::new()
            .get(format!("{}/oauth2/userinfo", self.sim.xai_issuer_url()))
            .bearer_auth(access_token)
            .send()
            .await
            .expect("userinfo");
        assert_eq!(response.status(), 200);
        response.json().await.expect("json")
    }

    /// A browser that trusts the simulator's test CA.
    fn browser(&self) -> reqwest::Client {
        let ca = reqwest::Certificate::from_pem(self.sim.ca_pem().as_bytes()).expect("CA");
        reqwest::Client::builder()
            .add_root_certificate(ca)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("client")
    }

    /// Every connection the provider opened was TLS with HTTP/2 agreed by ALPN.
    fn assert_all_tls_h2(&self) {
        let connections = self.sim.connections();
        let (tls, plain): (Vec<_>, Vec<_>) = connections.iter().partition(|c| c.tls);
        assert!(!tls.is_empty(), "{connections:?}");
        assert!(plain.is_empty(), "nothing on the plain listener: {connections:?}");
        assert!(tls.iter().filter(|c| c.alpn.is_some()).all(|c| c.alpn.as_deref() == Some("h2")), "{connections:?}");
    }
}

fn query(url: &str, name: &str) -> Option<String> {
    reqwest::Url::parse(url).ok()?.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
}

#[tokio::test]
async fn the_browser_login_with_a_pasted_callback_ends_in_a_usable_account() {
    let world = World::start().await;
    let oauth = world.provider.oauth();
    let start = oauth.begin_authorization().expect("start");
    assert_eq!(start.redirect_uri, "http://127.0.0.1:56121/callback");
    assert_eq!(query(&start.authorize_url, "code_challenge_method").as_deref(), Some("S256"));
    assert!(query(&start.authorize_url, "nonce").is_some_and(|n| n.len() >= 43));
    assert!(!format!("{:?}", start.payload).contains(start.payload.expose()), "the payload never prints");
    // The browser's consent: the issuer redirects to the loopback callback the admin pastes.
    assert!(start.authorize_url.starts_with(&world.sim.tls_xai_issuer_url()), "{}", start.authorize_url);
    let consent = world.browser().get(&start.authorize_url).send().await.expect("authorize");
    assert_eq!(consent.status(), 302);
    let callback = consent.headers()["location"].to_str().expect("location").to_owned();
    assert!(callback.starts_with("http://127.0.0.1:56121/callback?"), "{callback}");
    assert_eq!(query(&callback, "state").as_deref(), Some(start.state.as_str()));
    let code = query(&callback, "code").expect("code");
    let imported = oauth.complete_authorization(&start.payload, &code, None, None).await.expect("exchange");
    world.assert_all_tls_h2();
    assert_eq!(imported.external_account_id, "user-grok-a", "identity from the verified ID token");
    assert_eq!(imported.facts.state, CredentialState::Active);
    let credential = XaiCredential::decode(&imported.document).expect("document");
    assert!(credential.refresh_token.is_some() && credential.expires_at.is_some());
    let info = world.assert_usable(credential.access_token.expose_secret()).await;
    assert_eq!(info["sub"], json!("user-grok-a"));
    // The code is single use.
    assert!(oauth.complete_authorization(&start.payload, &code, None, None).await.is_err());
}

#[tokio::test]
async fn the_device_login_ends_in_a_usable_account() {
    let world = World::start().await;
    let oauth = world.provider.oauth();
    let start = oauth.begin_device(None).await.expect("device code");
    assert!(start.verification_url.contains(&start.user_code));
    assert!(matches!(oauth.poll_device(&start.payload, None, None).await.expect("poll"), DevicePoll::Pending));
    world.sim.approve_device(Some(&start.user_code), "grok-a").expect("approve");
    let DevicePoll::Approved(imported) = oauth.poll_device(&start.payload, None, None).await.expect("poll") else {
        panic!("approved expected");
    };
    assert_eq!(imported.external_account_id, "user-grok-a");
    world.assert_all_tls_h2();
    let credential = XaiCredential::decode(&imported.document).expect("document");
    world.assert_usable(credential.access_token.expose_secret()).await;
}

fn claims(world: &World, nonce: &str) -> Value {
    let now = time::OffsetDateTime::now_utc().unix_timestamp();
    json!({
        "iss": world.sim.xai_issuer_url(), "aud": provider_xai::settings::GROK_CLI_CLIENT_ID, "sub": "user-1",
        "email": "a@b.io", "nonce": nonce, "iat": now, "exp": now + 600,
    })
}

/// The same claims signed by a P-256 key that is not the issuer's, under the issuer's key id.
fn signed_by_another_key(claims: &Value) -> String {
    let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).expect("key");
    let key = jsonwebtoken::EncodingKey::from_ec_der(&pair.serialize_der());
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
    header.kid = Some(upstream_sim::XAI_KEY_ID.to_owned());
    jsonwebtoken::encode(&header, claims, &key).expect("sign")
}

#[tokio::test]
async fn id_tokens_are_verified_against_the_issuer_jwks() {
    let world = World::start().await;
    let http = HttpClient::new(Connector::new(TlsRoots::new(None).expect("roots"), std::time::Duration::from_secs(5)));
    let issuer = world.sim.xai_issuer_url();
    let endpoints = discovery::discover(&http, None, &issuer).await.expect("discovery");
    let keys = discovery::key_set(&http, None, &endpoints).await.expect("jwks");
    let client = provider_xai::settings::GROK_CLI_CLIENT_ID;
    let good = claims(&world, "n-1");
    let ok = verify(&upstream_sim::sign_xai_id_token(&good), &keys, &issuer, client, Some("n-1")).expect("valid");
    assert_eq!(ok.sub, "user-1");

    let forged = signed_by_another_key(&good);
    assert!(matches!(verify(&forged, &keys, &issuer, client, Some("n-1")), Err(IdTokenError::Invalid(_))));

    let with = |edit: &dyn Fn(&mut Value)| {
        let mut c = good.clone();
        edit(&mut c);
        upstream_sim::sign_xai_id_token(&c)
    };
    let wrong_issuer = with(&|c| c["iss"] = json!("https://evil.example"));
    assert!(verify(&wrong_issuer, &keys, &issuer, client, Some("n-1")).is_err(), "another issuer");
    let wrong_audience = with(&|c| c["aud"] = json!("someone-else"));
    assert!(verify(&wrong_audience, &keys, &issuer, client, Some("n-1")).is_err(), "another audience");
    let expired = with(&|c| c["exp"] = json!(time::OffsetDateTime::now_utc().unix_timestamp() - 1));
    assert!(verify(&expired, &keys, &issuer, client, Some("n-1")).is_err(), "expired, leeway 0");
    let signed = upstream_sim::sign_xai_id_token(&good);
    assert_eq!(verify(&signed, &keys, &issuer, client, Some("n-2")).err(), Some(IdTokenError::Nonce));
    let unsigned = format!("eyJhbGciOiJub25lIn0.{}.", signed.split('.').nth(1).expect("payload"));
    assert!(verify(&unsigned, &keys, &issuer, client, None).is_err(), "alg none");
}
