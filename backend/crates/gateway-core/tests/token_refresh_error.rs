//! The one mapping of a provider's refresh-token failure into the refresher's and the import
//! exchange's terms.

use gateway_core::credential_import::ExchangeFailure;
use gateway_core::credential_refresh::{RenewFailure, RenewedCredential, TokenRefreshError};
use gateway_core::domain::{CredentialDocument, CredentialState};

fn banned_when_deactivated(code: &str) -> CredentialState {
    if code == "account_deactivated" { CredentialState::Banned } else { CredentialState::Invalid }
}

#[test]
fn a_permanent_refusal_takes_the_providers_terminal_state() {
    let refused = |code: &str| TokenRefreshError::Permanent { code: code.to_owned() };
    assert_eq!(
        refused("invalid_grant").into_renew_failure(banned_when_deactivated),
        RenewFailure::Permanent { state: CredentialState::Invalid, reason: "invalid_grant".to_owned() }
    );
    assert_eq!(
        refused("account_deactivated").into_renew_failure(banned_when_deactivated),
        RenewFailure::Permanent { state: CredentialState::Banned, reason: "account_deactivated".to_owned() }
    );
    assert_eq!(
        TokenRefreshError::Transient("token endpoint 503".to_owned()).into_renew_failure(banned_when_deactivated),
        RenewFailure::Transient("token endpoint 503".to_owned())
    );
    assert_eq!(
        TokenRefreshError::NoRefreshToken.into_renew_failure(|_| CredentialState::Invalid),
        RenewFailure::NoRefreshToken
    );
}

#[test]
fn an_import_exchange_reports_a_stable_code_and_no_message() {
    let code = |error: TokenRefreshError| ExchangeFailure::from(error).code;
    assert_eq!(code(TokenRefreshError::Permanent { code: "refresh_token_reused".to_owned() }), "refresh_token_reused");
    assert_eq!(code(TokenRefreshError::Transient("connect to 10.0.0.7 refused".to_owned())), "upstream_unavailable");
    assert_eq!(code(TokenRefreshError::NoRefreshToken), "no_refresh_token");
}

#[test]
fn a_renewed_credential_reads_its_expiry_in_unix_seconds() {
    let document = CredentialDocument::new("{}".to_owned());
    let renewed = RenewedCredential::expiring_at(document.clone(), Some(1_700_000_000));
    assert_eq!(renewed.access_token_expires_at.map(|t| t.unix_timestamp()), Some(1_700_000_000));
    assert_eq!(RenewedCredential::expiring_at(document, None).access_token_expires_at, None);
}

#[test]
fn a_refresh_seed_holds_its_token_and_an_unverified_id_is_stable() {
    use gateway_core::credential_import::{RefreshSeed, unverified_external_id};
    use secrecy::{ExposeSecret, SecretString};
    let token = SecretString::from("rt-seed-1".to_owned());
    let seed = RefreshSeed::from_refresh_token(&token);
    assert_eq!(seed.refresh_token().map(|t| t.expose_secret().to_owned()), Some("rt-seed-1".to_owned()));
    assert!(!format!("{seed:?}").contains("rt-seed-1"), "Debug is redacted");
    assert_eq!(RefreshSeed(CredentialDocument::new("{}".to_owned())).refresh_token().map(|_| ()), None);
    let access = SecretString::from("at-1".to_owned());
    let id = unverified_external_id(Some(&token), &access);
    assert_eq!(
        id,
        unverified_external_id(Some(&token), &SecretString::from("at-2".to_owned())),
        "the refresh token decides"
    );
    assert!(id.starts_with("unverified-") && id.len() == "unverified-".len() + 16, "{id}");
    assert_ne!(id, unverified_external_id(None, &access), "without one, the access token");
}
