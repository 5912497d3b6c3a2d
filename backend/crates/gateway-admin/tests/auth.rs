//! Passwords, tokens and the audit actor; device cookies and client addresses in `auth/`.

mod client_address;
mod device_cookie;

use gateway_admin::admin_user::AdminUserId;
use gateway_admin::auth::api_keys::generate_admin_api_key;
use gateway_admin::auth::{AdminPrincipal, AuthMethod, constant_time_eq, random_token, session_token_hash};
use gateway_admin::passwords::{PasswordHashing, check_password_policy, hash_password, verify_password};

#[tokio::test]
async fn passwords_hash_with_argon2id_and_verify() {
    let hash = hash_password("correct horse battery").await.expect("hash");
    assert!(hash.0.starts_with("$argon2id$"));
    assert!(!format!("{hash:?}").contains("argon2"), "Debug hides the hash");
    let permit = PasswordHashing::new(1).try_permit().expect("a free permit");
    assert!(verify_password(&permit, "correct horse battery", Some(&hash)).await);
    assert!(!verify_password(&permit, "wrong horse battery", Some(&hash)).await);
    assert!(!verify_password(&permit, "correct horse battery", None).await, "no user never verifies");
    let again = hash_password("correct horse battery").await.expect("hash");
    assert_ne!(hash.0, again.0, "a fresh salt each time");
}

#[test]
fn the_password_policy_names_the_field() {
    assert!(check_password_policy("newPassword", "0123456789").is_ok());
    let error = check_password_policy("newPassword", "short").expect_err("too short");
    assert_eq!(error.code(), "invalid_input");
    assert_eq!(error.fields()[0].field, "newPassword");
}

#[test]
fn tokens_are_random_and_stored_as_digests() {
    let a = random_token();
    let b = random_token();
    assert_ne!(a, b);
    assert_eq!(a.len(), 43, "32 bytes, base64url without padding");
    let hash = session_token_hash(&a);
    assert_eq!(hash.to_hex().len(), 64);
    assert_eq!(hash.public_id(), &hash.to_hex()[..16]);
    assert!(!format!("{hash:?}").contains(&hash.to_hex()), "Debug shows only the public id");
    assert!(constant_time_eq(b"same", b"same"));
    assert!(!constant_time_eq(b"same", b"diff"));
    assert!(!constant_time_eq(b"same", b"same-longer"));
    let key = generate_admin_api_key();
    assert!(key.expose().starts_with("sb-admin-"));
    assert_eq!(key.display_prefix().len(), 14);
    assert_eq!(format!("{key:?}"), "AdminApiKeySecret([REDACTED])");
}

#[test]
fn the_audit_actor_tells_api_keys_apart() {
    let session = AdminPrincipal {
        user_id: AdminUserId(3),
        username: "ops".to_owned(),
        method: AuthMethod::Session { session_id: "s".to_owned(), csrf_token: "c".to_owned() },
    };
    assert_eq!(session.actor().name, "ops");
    assert_eq!(session.actor().user_id, Some(AdminUserId(3)));
    let key = AdminPrincipal { method: AuthMethod::ApiKey, ..session };
    assert_eq!(key.actor().name, "ops (api key)");
}
