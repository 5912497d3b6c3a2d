//! ES256 signing of xAI ID tokens (PROTOCOL H.9, H.12 item 4): one P-256 key per simulator
//! process, published as the issuer's JWKS (`kid` [`KEY_ID`]). Also the Grok CLI `auth.json`
//! of a token set (PROTOCOL G.2), for tests that import xAI accounts.

use std::sync::OnceLock;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use crate::tokens::{TokenSet, jwt_claims};

pub const KEY_ID: &str = "upstream-sim-es256";

struct Key {
    encoding: EncodingKey,
    x: String,
    y: String,
}

fn key() -> &'static Key {
    static KEY: OnceLock<Key> = OnceLock::new();
    KEY.get_or_init(|| {
        let pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).expect("P-256 key");
        let raw = pair.public_key_raw();
        // Uncompressed point: 0x04 || x (32 bytes) || y (32 bytes).
        let (x, y) = (URL_SAFE_NO_PAD.encode(&raw[1..33]), URL_SAFE_NO_PAD.encode(&raw[33..65]));
        Key { encoding: EncodingKey::from_ec_der(&pair.serialize_der()), x, y }
    })
}

/// The issuer's key set.
pub fn jwks() -> Value {
    let key = key();
    json!({"keys": [{"kty": "EC", "crv": "P-256", "x": key.x, "y": key.y, "kid": KEY_ID, "alg": "ES256", "use": "sig"}]})
}

/// `claims` as an ES256 JWT signed with the issuer's key.
pub fn sign_id_token(claims: &Value) -> String {
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some(KEY_ID.to_owned());
    jsonwebtoken::encode(&header, claims, &key().encoding).expect("ES256 signing")
}

impl TokenSet {
    /// The Grok CLI `~/.grok/auth.json` holding these tokens (keyed `"<issuer>::<client id>"`).
    pub fn grok_auth_json(&self) -> Value {
        let claims = jwt_claims(&self.id_token).unwrap_or_default();
        let text = |name: &str| claims.get(name).cloned().unwrap_or(Value::Null);
        let issuer = claims.get("iss").and_then(Value::as_str).unwrap_or("https://auth.x.ai");
        let client = claims.get("aud").and_then(Value::as_str).unwrap_or_default();
        json!({
            format!("{issuer}::{client}"): {
                "key": self.access_token,
                "auth_mode": "oidc",
                "refresh_token": self.refresh_token,
                "expires_at": self.expires_at,
                "create_time": crate::ids::rfc3339(crate::ids::now_unix()),
                "user_id": text("sub"),
                "email": text("email"),
                "team_id": text("team_id"),
                "oidc_issuer": issuer,
                "oidc_client_id": client,
            }
        })
    }
}
