//! ID-token verification against the issuer's JWKS (PROTOCOL H.9): ES256 only, `kid`
//! required, leeway 0, required `sub/iss/aud/exp`, `iss` = the issuer, `aud` = the client id,
//! and the nonce of the flow when it had one. A token that fails any check is refused.

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use serde::Deserialize;

/// The claims a verified ID token yields.
#[derive(Debug, Clone, Deserialize)]
pub struct IdClaims {
    pub sub: String,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub nonce: Option<String>,
    #[serde(default)]
    pub team_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdTokenError {
    #[error("the ID token is not ES256 with a key id")]
    Algorithm,
    #[error("the issuer's key set has no key {0}")]
    UnknownKey(String),
    #[error("the ID token failed verification: {0}")]
    Invalid(String),
    #[error("the ID token's nonce does not match the login")]
    Nonce,
}

/// Verifies `token` with `keys`; `nonce` is the flow's (browser logins), `None` for device logins.
pub fn verify(
    token: &str,
    keys: &JwkSet,
    issuer: &str,
    client_id: &str,
    nonce: Option<&str>,
) -> Result<IdClaims, IdTokenError> {
    let header = decode_header(token).map_err(|e| IdTokenError::Invalid(e.to_string()))?;
    if header.alg != Algorithm::ES256 {
        return Err(IdTokenError::Algorithm);
    }
    let kid = header.kid.ok_or(IdTokenError::Algorithm)?;
    let jwk = keys.find(&kid).ok_or_else(|| IdTokenError::UnknownKey(kid.clone()))?;
    let key = DecodingKey::from_jwk(jwk).map_err(|e| IdTokenError::Invalid(e.to_string()))?;
    let mut validation = Validation::new(Algorithm::ES256);
    validation.leeway = 0;
    validation.set_required_spec_claims(&["sub", "iss", "aud", "exp"]);
    validation.set_issuer(&[issuer]);
    validation.set_audience(&[client_id]);
    let data = decode::<IdClaims>(token, &key, &validation).map_err(|e| IdTokenError::Invalid(e.to_string()))?;
    if let Some(expected) = nonce
        && data.claims.nonce.as_deref() != Some(expected)
    {
        return Err(IdTokenError::Nonce);
    }
    Ok(data.claims)
}
