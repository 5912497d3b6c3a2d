//! The login use case over the in-process session and throttle adapters and an in-memory user
//! table: idle and absolute expiry with a controlled clock, revocation, rate limits.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use gateway_admin::admin_user::{AdminUserId, AdminUserRecord, TotpSecret};
use gateway_admin::auth::device_cookie::{DeviceCookieKey, DeviceCookies};
use gateway_admin::auth::totp::code_at;
use gateway_admin::auth::{
    AdminStandings, AuthPolicy, ClientOrigin, LoginAttempt, PasswordGuard, authenticate_session, login, logout,
};
use gateway_admin::passwords::hash_password;
use gateway_admin::ports::{AdminSessions, AdminUsers};
use gateway_core::ports::StorageError;
use gateway_store::memory::MemoryCoordination;
use time::OffsetDateTime;

/// The user table and the (only) user's TOTP secret.
struct Users(Mutex<Vec<AdminUserRecord>>, Option<Vec<u8>>);

#[async_trait]
impl AdminUsers for Users {
    async fn count_admin_users(&self) -> Result<u64, StorageError> {
        Ok(self.0.lock().map(|u| u.len() as u64).unwrap_or(0))
    }
    async fn find_admin_by_username(&self, username: &str) -> Result<Option<AdminUserRecord>, StorageError> {
        Ok(self.0.lock().ok().and_then(|u| u.iter().find(|u| u.username.eq_ignore_ascii_case(username)).cloned()))
    }
    async fn find_admin_by_api_key(&self, _hash: &[u8; 32]) -> Result<Option<AdminUserRecord>, StorageError> {
        Ok(None)
    }
    async fn get_admin_user(&self, id: AdminUserId) -> Result<AdminUserRecord, StorageError> {
        self.0
            .lock()
            .ok()
            .and_then(|u| u.iter().find(|u| u.id == id).cloned())
            .ok_or_else(|| StorageError::not_found("admin user", id))
    }
    async fn list_admin_users(&self) -> Result<Vec<AdminUserRecord>, StorageError> {
        Ok(self.0.lock().map(|u| u.clone()).unwrap_or_default())
    }
    async fn admin_totp_secret(&self, _id: AdminUserId) -> Result<Option<TotpSecret>, StorageError> {
        Ok(self.1.clone().map(TotpSecret::new))
    }
    async fn record_admin_login(&self, _id: AdminUserId, _at: OffsetDateTime) -> Result<(), StorageError> {
        Ok(())
    }
}

async fn users() -> Users {
    Users(
        Mutex::new(vec![AdminUserRecord {
            id: AdminUserId(1),
            username: "admin".to_owned(),
            password_hash: Some(hash_password("right-password").await.expect("hash")),
            enabled: true,
            totp_enabled: false,
            api_key_prefix: None,
            api_key_created_at: None,
            last_login_at: None,
            created_at: OffsetDateTime::now_utc(),
        }]),
        None,
    )
}

/// The same admin with TOTP enabled under `secret`.
async fn users_with_totp(secret: &[u8]) -> Users {
    let users = users().await;
    let mut records = users.0.into_inner().expect("users");
    records[0].totp_enabled = true;
    Users(Mutex::new(records), Some(secret.to_vec()))
}

fn attempt(password: &str) -> LoginAttempt {
    LoginAttempt {
        username: "Admin".to_owned(),
        password: password.to_owned(),
        totp: None,
        origin: ClientOrigin { ip: Some("10.0.0.1".to_owned()), device_cookie: None },
        user_agent: None,
    }
}

fn policy() -> AuthPolicy {
    AuthPolicy {
        session_idle: Duration::from_secs(60),
        session_absolute: Duration::from_secs(300),
        max_failures_per_ip: 10,
        max_failures_per_user: 2,
        max_failures_per_device: 2,
        failure_window: Duration::from_secs(60),
        device_cookie_lifetime: Duration::from_secs(3600),
        hash_concurrency: 2,
    }
}

/// The in-process coordination adapter and a guard counting through it.
fn coordination(policy: &AuthPolicy) -> (Arc<MemoryCoordination>, PasswordGuard) {
    let store = Arc::new(MemoryCoordination::new());
    let devices = DeviceCookies::new(DeviceCookieKey::random(), policy.device_cookie_lifetime);
    let guard = PasswordGuard::new(store.clone(), devices, policy);
    (store, guard)
}

#[tokio::test]
async fn sessions_expire_when_idle_and_at_the_absolute_deadline_and_on_logout() {
    let (users, policy) = (Arc::new(users().await), policy());
    let (store, guard) = coordination(&policy);
    let standings = AdminStandings::new(users.clone(), Duration::from_secs(1));
    let (users, sessions) = (users.as_ref(), store.as_ref());
    let t0 = OffsetDateTime::now_utc();
    let outcome = login(users, sessions, &guard, &policy, attempt("right-password"), t0).await.expect("login");
    assert_eq!(outcome.session.username, "admin");
    let token = outcome.token.clone();
    // Touching within the idle window extends it, up to the absolute deadline.
    for step in 1..=4 {
        let now = t0 + time::Duration::seconds(50 * step);
        let session =
            authenticate_session(sessions, &standings, &policy, &token, now).await.expect("touch").expect("live");
        assert!(session.idle_expires_at <= session.absolute_expires_at);
    }
    let past_absolute = t0 + time::Duration::seconds(301);
    assert!(authenticate_session(sessions, &standings, &policy, &token, past_absolute).await.expect("touch").is_none());

    let t1 = OffsetDateTime::now_utc();
    let idle = login(users, sessions, &guard, &policy, attempt("right-password"), t1).await.expect("login");
    let late = t1 + time::Duration::seconds(61);
    assert!(authenticate_session(sessions, &standings, &policy, &idle.token, late).await.expect("touch").is_none());

    let out = login(users, sessions, &guard, &policy, attempt("right-password"), t1).await.expect("login");
    logout(sessions, &out.token).await.expect("logout");
    assert!(authenticate_session(sessions, &standings, &policy, &out.token, t1).await.expect("touch").is_none());
    assert!(store.list_user_sessions(AdminUserId(1), t1).await.expect("list").is_empty());
}

#[tokio::test]
async fn failures_are_limited_per_username_and_a_success_takes_only_its_own_attempt_back() {
    let (users, policy) = (users().await, policy());
    let (store, guard) = coordination(&policy);
    let now = OffsetDateTime::now_utc();
    let wrong = login(&users, store.as_ref(), &guard, &policy, attempt("wrong"), now).await.err().expect("refused");
    assert_eq!(wrong.code(), "invalid_credentials");
    let ok = login(&users, store.as_ref(), &guard, &policy, attempt("right-password"), now).await;
    assert!(ok.is_ok(), "one failure is below the limit");
    // The earlier failure still counts: one more reaches the limit of 2.
    let second = login(&users, store.as_ref(), &guard, &policy, attempt("wrong"), now).await.err().expect("refused");
    assert_eq!(second.code(), "invalid_credentials");
    let limited =
        login(&users, store.as_ref(), &guard, &policy, attempt("right-password"), now).await.err().expect("limited");
    assert_eq!(limited.code(), "rate_limited");
    assert_eq!(limited.http_status(), 429);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_wrong_logins_are_counted_before_the_password_is_checked() {
    let policy = AuthPolicy { hash_concurrency: 20, ..policy() };
    let users = Arc::new(users().await);
    let (store, guard) = coordination(&policy);
    let (guard, policy) = (Arc::new(guard), Arc::new(policy));
    let mut burst = tokio::task::JoinSet::new();
    for _ in 0..20 {
        let (users, store, guard, policy) = (users.clone(), store.clone(), guard.clone(), policy.clone());
        burst.spawn(async move {
            let now = OffsetDateTime::now_utc();
            login(users.as_ref(), store.as_ref(), &guard, &policy, attempt("wrong"), now).await.err().map(|e| e.code())
        });
    }
    let codes = burst.join_all().await;
    let checked = codes.iter().filter(|c| **c == Some("invalid_credentials")).count();
    let refused = codes.iter().filter(|c| **c == Some("rate_limited")).count();
    assert_eq!((checked, refused), (2, 18), "only the per-username limit of 2 reached the password check");
}

#[tokio::test]
async fn logins_beyond_the_hashing_bound_are_refused_at_once_and_not_counted() {
    let (users, policy) = (users().await, policy());
    let (store, guard) = coordination(&policy);
    let now = OffsetDateTime::now_utc();
    // Two hashes in flight elsewhere: the bound of 2 is full.
    let held = [guard.hashing().try_permit().expect("permit"), guard.hashing().try_permit().expect("permit")];
    let busy = tokio::time::timeout(
        Duration::from_secs(5),
        login(&users, store.as_ref(), &guard, &policy, attempt("right-password"), now),
    )
    .await
    .expect("refused at once, not queued")
    .err()
    .expect("busy");
    assert_eq!((busy.code(), busy.http_status()), ("rate_limited", 429));
    for _ in 0..5 {
        let again = login(&users, store.as_ref(), &guard, &policy, attempt("wrong"), now).await.err().expect("busy");
        assert_eq!(again.code(), "rate_limited");
    }
    drop(held);
    assert_eq!(guard.hashing().available(), 2, "a refused login holds no permit");
    // None of the refused attempts was counted: the per-username limit (2) is still whole.
    for _ in 0..2 {
        let wrong = login(&users, store.as_ref(), &guard, &policy, attempt("wrong"), now).await.err().expect("wrong");
        assert_eq!(wrong.code(), "invalid_credentials");
    }
    let limited = login(&users, store.as_ref(), &guard, &policy, attempt("wrong"), now).await.err().expect("limited");
    assert_eq!(limited.code(), "rate_limited");
}

fn with_code(password: &str, code: &str) -> LoginAttempt {
    LoginAttempt { totp: Some(code.to_owned()), ..attempt(password) }
}

#[tokio::test]
async fn with_totp_the_password_alone_is_not_enough_and_a_code_logs_in_once() {
    let secret = b"12345678901234567890";
    // Room for the two failures below (a success takes back only its own attempt).
    let (users, policy) = (users_with_totp(secret).await, AuthPolicy { max_failures_per_user: 5, ..policy() });
    let (store, guard) = coordination(&policy);
    let now = OffsetDateTime::now_utc();
    // Asking for the code is the dashboard's first step: not counted as a failure.
    for _ in 0..3 {
        let refused =
            login(&users, store.as_ref(), &guard, &policy, attempt("right-password"), now).await.err().expect("code");
        assert_eq!((refused.code(), refused.http_status()), ("totp_required", 401));
    }
    // A wrong password with a code is still just a wrong password.
    let wrong =
        login(&users, store.as_ref(), &guard, &policy, with_code("wrong", "000000"), now).await.err().expect("refused");
    assert_eq!(wrong.code(), "invalid_credentials");
    let code = code_at(secret, now.unix_timestamp());
    let outcome = login(&users, store.as_ref(), &guard, &policy, with_code("right-password", &code), now).await;
    assert!(outcome.is_ok(), "the current code logs in");
    let replay = login(&users, store.as_ref(), &guard, &policy, with_code("right-password", &code), now).await.err();
    assert_eq!(replay.map(|e| e.code()), Some("totp_invalid"), "a code is accepted once");
    // The previous step's code is still accepted (clock drift), once.
    let earlier = code_at(secret, now.unix_timestamp() - 30);
    assert!(login(&users, store.as_ref(), &guard, &policy, with_code("right-password", &earlier), now).await.is_ok());
}

#[tokio::test]
async fn wrong_totp_codes_count_against_the_login_limits() {
    let secret = b"abcdefghijabcdefghij";
    let (users, policy) = (users_with_totp(secret).await, policy());
    let (store, guard) = coordination(&policy);
    let now = OffsetDateTime::now_utc();
    let stale = code_at(secret, now.unix_timestamp() - 120);
    for _ in 0..2 {
        let refused = login(&users, store.as_ref(), &guard, &policy, with_code("right-password", &stale), now)
            .await
            .err()
            .expect("wrong");
        assert_eq!((refused.code(), refused.http_status()), ("totp_invalid", 401));
    }
    let code = code_at(secret, now.unix_timestamp());
    let limited = login(&users, store.as_ref(), &guard, &policy, with_code("right-password", &code), now)
        .await
        .err()
        .expect("limited");
    assert_eq!(limited.code(), "rate_limited", "at the limit even the right code is refused");
}

/// An attempt from `ip` with `device` (a device cookie) or none.
fn from(password: &str, ip: &str, device: Option<&str>) -> LoginAttempt {
    let origin = ClientOrigin { ip: Some(ip.to_owned()), device_cookie: device.map(str::to_owned) };
    LoginAttempt { origin, ..attempt(password) }
}

#[tokio::test]
async fn a_device_cookie_keeps_its_own_count_while_untrusted_clients_are_locked_out() {
    let (users, policy) = (users().await, policy());
    let (store, guard) = coordination(&policy);
    let now = OffsetDateTime::now_utc();
    let owner = login(&users, store.as_ref(), &guard, &policy, from("right-password", "10.0.0.1", None), now)
        .await
        .expect("first login");
    let device = owner.device_cookie;
    // Guesses from three addresses without a device cookie: the untrusted limit (2) holds.
    let codes: Vec<_> = guesses_from_three_addresses(&users, &store, &guard, &policy, now).await;
    assert_eq!(codes, ["invalid_credentials", "invalid_credentials", "rate_limited"]);
    let stranger = login(&users, store.as_ref(), &guard, &policy, from("right-password", "10.9.9.9", None), now).await;
    assert_eq!(stranger.err().map(|e| e.code()), Some("rate_limited"), "untrusted clients are locked out");
    let back = login(&users, store.as_ref(), &guard, &policy, from("right-password", "10.0.0.1", Some(&device)), now)
        .await
        .expect("the owner's browser gets in");
    assert_ne!(back.device_cookie, device, "each login issues a new device cookie");

    // The new cookie's own failures lock that cookie only.
    let fresh = back.device_cookie;
    for _ in 0..2 {
        let wrong = login(&users, store.as_ref(), &guard, &policy, from("wrong", "10.0.0.1", Some(&fresh)), now).await;
        assert_eq!(wrong.err().map(|e| e.code()), Some("invalid_credentials"));
    }
    let locked = login(&users, store.as_ref(), &guard, &policy, from("right-password", "10.0.0.1", Some(&fresh)), now);
    assert_eq!(locked.await.err().map(|e| e.code()), Some("rate_limited"), "this device cookie is locked out");
    let older = login(&users, store.as_ref(), &guard, &policy, from("right-password", "10.0.0.1", Some(&device)), now);
    assert!(older.await.is_ok(), "another device cookie of the user still passes");
    // A device cookie is the user's: for another username it is an untrusted client.
    let other = login(
        &users,
        store.as_ref(),
        &guard,
        &policy,
        LoginAttempt { username: "ghost".to_owned(), ..from("x", "10.0.0.2", Some(&device)) },
        now,
    );
    assert_eq!(other.await.err().map(|e| e.code()), Some("invalid_credentials"));
}

async fn guesses_from_three_addresses(
    users: &Users,
    store: &Arc<MemoryCoordination>,
    guard: &PasswordGuard,
    policy: &AuthPolicy,
    now: OffsetDateTime,
) -> Vec<&'static str> {
    let mut codes = Vec::new();
    for ip in ["10.1.0.1", "10.2.0.1", "10.3.0.1"] {
        let refused = login(users, store.as_ref(), guard, policy, from("wrong", ip, None), now).await;
        codes.push(refused.err().map(|e| e.code()).unwrap_or("ok"));
    }
    codes
}
