//! TOTP for admins on the real binary: enroll (password step-up, secret shown once), confirm
//! (other sessions revoked), login needs a fresh code, a code is accepted once, disable needs
//! password and code, wrong codes count against the login limits; the secret is sealed at rest.

use std::collections::HashSet;

use gateway_admin::auth::totp::{STEP_SECONDS, code_at, step_at};
use serde_json::{Value, json};

use super::{Admin, Answer, PASSWORD, gateway, last_audit};

/// RFC 4648 base32 (no padding) back to bytes.
pub fn decode_base32(text: &str) -> Vec<u8> {
    const ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let (mut out, mut buffer, mut bits) = (Vec::new(), 0u32, 0u32);
    for c in text.chars() {
        let value = u32::try_from(ALPHABET.find(c).expect("base32 digit")).expect("small");
        buffer = (buffer << 5) | value;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((buffer >> bits) & 0xff).expect("byte"));
        }
    }
    out
}

/// An authenticator: a code of a step inside the server's window that was not used yet (the
/// next step first: it stays valid longest, across a step boundary).
pub struct Authenticator {
    pub secret: Vec<u8>,
    used: HashSet<i64>,
}

impl Authenticator {
    pub fn new(secret: Vec<u8>) -> Self {
        Self { secret, used: HashSet::new() }
    }

    pub fn code(&mut self) -> String {
        let now = time::OffsetDateTime::now_utc().unix_timestamp();
        let current = step_at(now);
        let step = [current + 1, current, current - 1].into_iter().find(|s| !self.used.contains(s)).expect("a step");
        self.used.insert(step);
        code_at(&self.secret, step * STEP_SECONDS)
    }

    /// A code that is certainly wrong now (two steps away, outside the window).
    pub fn stale_code(&self) -> String {
        code_at(&self.secret, time::OffsetDateTime::now_utc().unix_timestamp() - 3 * STEP_SECONDS)
    }
}

fn login_body(password: &str, totp: Option<&str>) -> Value {
    match totp {
        Some(code) => json!({"username": "admin", "password": password, "totp": code}),
        None => json!({"username": "admin", "password": password}),
    }
}

fn status_code(answer: &Answer) -> (u16, String) {
    (answer.status.as_u16(), answer.code())
}

/// Enrolls and confirms TOTP for `admin`; returns its authenticator and the enroll answer.
pub async fn enable_totp(admin: &Admin, password: &str) -> (Authenticator, Value) {
    let enrolled = admin.post("/auth/totp/enroll", json!({"password": password})).await;
    assert_eq!(enrolled.status, 200, "{}", enrolled.text);
    let enrolled = enrolled.json();
    let secret = enrolled["secret"].as_str().expect("secret").to_owned();
    let uri = enrolled["otpauthUri"].as_str().expect("uri");
    assert!(uri.starts_with("otpauth://totp/Switchboard:admin?secret="), "{uri}");
    assert!(uri.contains(&secret) && uri.contains("digits=6") && uri.contains("period=30"));
    let mut authenticator = Authenticator::new(decode_base32(&secret));
    let confirmed = admin.post("/auth/totp/confirm", json!({"code": authenticator.code()})).await;
    assert_eq!(confirmed.status, 200, "{}", confirmed.text);
    assert_eq!(confirmed.json()["totpEnabled"], true);
    (authenticator, enrolled)
}

#[tokio::test]
async fn totp_enrolls_confirms_guards_login_once_per_code_and_disables_with_password_and_code() {
    // Room for the six deliberate failures below (a success takes back only its own attempt).
    let g = gateway(vec![], &[("SWITCHBOARD_ADMIN_LOGIN_MAX_FAILURES_PER_USER", "10")]).await;
    let admin = Admin::login(&g).await;
    let other_session = Admin::login(&g).await;
    let anonymous = Admin::anonymous(&g);

    let no_step_up = admin.post("/auth/totp/enroll", json!({"password": "not-the-password"})).await;
    assert_eq!(status_code(&no_step_up), (403, "forbidden".to_owned()));
    let nothing_pending = admin.post("/auth/totp/confirm", json!({"code": "123456"})).await;
    assert_eq!(nothing_pending.status, 409);

    let enrolled = admin.post("/auth/totp/enroll", json!({"password": PASSWORD})).await;
    assert_eq!(enrolled.status, 200, "{}", enrolled.text);
    let secret_text = enrolled.json()["secret"].as_str().expect("secret").to_owned();
    let mut authenticator = Authenticator::new(decode_base32(&secret_text));
    assert_eq!(authenticator.secret.len(), 20);
    assert_eq!(last_audit(&g.pool().await).await.0, "admin_user.totp_enroll");
    // Pending: login still works with the password alone; the secret is never shown again.
    let session = admin.get("/auth/session").await;
    assert_eq!(session.json()["user"]["totpEnabled"], false);
    assert!(!session.text.contains(&secret_text));
    assert_eq!(anonymous.post("/auth/login", login_body(PASSWORD, None)).await.status, 200);

    let wrong = admin.post("/auth/totp/confirm", json!({"code": authenticator.stale_code()})).await;
    assert_eq!(status_code(&wrong), (422, "invalid_input".to_owned()), "{}", wrong.text);
    assert_eq!(wrong.json()["error"]["fields"][0]["field"], "code");
    let not_digits = admin.post("/auth/totp/confirm", json!({"code": "abcdef"})).await;
    assert_eq!(not_digits.status, 422);
    let confirmed = admin.post("/auth/totp/confirm", json!({"code": authenticator.code()})).await;
    assert_eq!(confirmed.status, 200, "{}", confirmed.text);
    assert!(confirmed.json()["revokedSessions"].as_u64().is_some_and(|n| n >= 1));
    assert_eq!(other_session.get("/auth/session").await.status, 401, "other sessions were revoked");
    assert_eq!(admin.ok("/auth/session").await["user"]["totpEnabled"], true, "this session stays");
    assert_eq!(last_audit(&g.pool().await).await.0, "admin_user.totp_enable");
    let again = admin.post("/auth/totp/enroll", json!({"password": PASSWORD})).await;
    assert_eq!(again.status, 409, "no re-enrollment while enabled");

    // Sealed at rest: neither the bytes nor their text forms are in the row.
    let (ciphertext, key_id): (Vec<u8>, String) =
        sqlx::query_as("SELECT totp_secret_ciphertext, totp_key_id FROM admin_users WHERE username = 'admin'")
            .fetch_one(&g.pool().await)
            .await
            .expect("row");
    assert!(!key_id.is_empty());
    let stored = String::from_utf8_lossy(&ciphertext).to_string();
    assert!(!stored.contains(&secret_text) && !ciphertext.windows(20).any(|w| w == authenticator.secret.as_slice()));

    let no_code = anonymous.post("/auth/login", login_body(PASSWORD, None)).await;
    assert_eq!(status_code(&no_code), (401, "totp_required".to_owned()));
    let wrong_password = anonymous.post("/auth/login", login_body("wrong-password-1", Some("123456"))).await;
    assert_eq!(wrong_password.code(), "invalid_credentials");
    let stale = anonymous.post("/auth/login", login_body(PASSWORD, Some(&authenticator.stale_code()))).await;
    assert_eq!(status_code(&stale), (401, "totp_invalid".to_owned()));
    let code = authenticator.code();
    let logged_in = anonymous.post("/auth/login", login_body(PASSWORD, Some(&code))).await;
    assert_eq!(logged_in.status, 200, "{}", logged_in.text);
    let replay = anonymous.post("/auth/login", login_body(PASSWORD, Some(&code))).await;
    assert_eq!(status_code(&replay), (401, "totp_invalid".to_owned()), "a code logs in once");

    let bad_password =
        admin.post("/auth/totp/disable", json!({"password": "not-the-password", "code": "123456"})).await;
    assert_eq!(bad_password.status, 403);
    let bad_code =
        admin.post("/auth/totp/disable", json!({"password": PASSWORD, "code": authenticator.stale_code()})).await;
    assert_eq!(status_code(&bad_code), (422, "invalid_input".to_owned()));
    let disabled = admin.post("/auth/totp/disable", json!({"password": PASSWORD, "code": authenticator.code()})).await;
    assert_eq!(disabled.status, 204, "{}", disabled.text);
    assert_eq!(last_audit(&g.pool().await).await.0, "admin_user.totp_disable");
    assert_eq!(anonymous.post("/auth/login", login_body(PASSWORD, None)).await.status, 200, "password alone again");
    let cleared: Option<Vec<u8>> =
        sqlx::query_scalar("SELECT totp_secret_ciphertext FROM admin_users WHERE username = 'admin'")
            .fetch_one(&g.pool().await)
            .await
            .expect("row");
    assert!(cleared.is_none(), "the secret is gone");
}

#[tokio::test]
async fn wrong_totp_codes_are_rate_limited_like_wrong_passwords() {
    let g = gateway(vec![], &[("SWITCHBOARD_ADMIN_LOGIN_MAX_FAILURES_PER_USER", "3")]).await;
    let admin = Admin::login(&g).await;
    let (mut authenticator, _) = enable_totp(&admin, PASSWORD).await;
    let anonymous = Admin::anonymous(&g);
    for _ in 0..3 {
        let wrong = anonymous.post("/auth/login", login_body(PASSWORD, Some(&authenticator.stale_code()))).await;
        assert_eq!(status_code(&wrong), (401, "totp_invalid".to_owned()));
    }
    let limited = anonymous.post("/auth/login", login_body(PASSWORD, Some(&authenticator.code()))).await;
    assert_eq!(status_code(&limited), (429, "rate_limited".to_owned()), "{}", limited.text);
    assert!(limited.headers.get("retry-after").is_some());
    // Disabling is behind the same limits: the session used without the device cookie of its
    // login (an untrusted client of `admin`) is refused...
    let mut without_device = admin.clone();
    without_device.device = None;
    // (Refused before anything is checked: any code will do.)
    let disable = without_device
        .post("/auth/totp/disable", json!({"password": PASSWORD, "code": authenticator.stale_code()}))
        .await;
    assert_eq!(status_code(&disable), (429, "rate_limited".to_owned()));
    // ...while the browser that signed in (its own device count) is not.
    let disable = admin.post("/auth/totp/disable", json!({"password": PASSWORD, "code": authenticator.code()})).await;
    assert_eq!(disable.status, 204, "{}", disable.text);
}
