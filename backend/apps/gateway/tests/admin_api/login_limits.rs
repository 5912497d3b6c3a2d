//! The login limits under attack, on the real binary: concurrent guesses are counted before the
//! password is checked, password hashing is bounded (peak memory), a distributed guesser does
//! not lock the owner out of a browser that signed in before (device cookies), and every
//! password step-up counts against the same limits.

use reqwest::StatusCode;
use serde_json::json;

use super::{Admin, Answer, PASSWORD, gateway, set_cookie_header};
use crate::gateway::Gateway;

/// `VmHWM` (peak resident set) and `VmRSS` of a process, in KiB.
fn memory_kib(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .expect("status field")
    };
    (field("VmHWM:"), field("VmRSS:"))
}

/// `n` wrong logins sent at once from one client; the answers in arrival order.
async fn concurrent_wrong_logins(g: &Gateway, usernames: impl Fn(usize) -> String, n: usize) -> Vec<Answer> {
    let anonymous = Admin::anonymous(g);
    let mut burst = tokio::task::JoinSet::new();
    for i in 0..n {
        let (client, username) = (anonymous.clone(), usernames(i));
        burst.spawn(async move {
            client.post("/auth/login", json!({"username": username, "password": "wrong-password-1"})).await
        });
    }
    burst.join_all().await
}

fn count(answers: &[Answer], status: StatusCode) -> usize {
    answers.iter().filter(|a| a.status == status).count()
}

#[tokio::test]
async fn concurrent_wrong_logins_are_counted_before_the_password_is_checked() {
    // Hashing bound above the burst: only the address limit decides.
    let g = gateway(
        vec![],
        &[("SWITCHBOARD_ADMIN_LOGIN_MAX_FAILURES_PER_IP", "20"), ("SWITCHBOARD_ADMIN_PASSWORD_HASH_CONCURRENCY", "40")],
    )
    .await;
    let pid = g.pid().expect("gateway pid");
    let (peak_before, _) = memory_kib(pid);
    let answers = concurrent_wrong_logins(&g, |i| format!("guess-{i}"), 40).await;
    let (unauthorized, limited) =
        (count(&answers, StatusCode::UNAUTHORIZED), count(&answers, StatusCode::TOO_MANY_REQUESTS));
    let (peak_after, _) = memory_kib(pid);
    eprintln!("hashing bound 40: {unauthorized} x 401, {limited} x 429; VmHWM {peak_before} -> {peak_after} KiB");
    assert_eq!((unauthorized, limited), (20, 20), "40 concurrent guesses count 40: 20 checked, 20 refused");
    assert!(answers.iter().filter(|a| a.status == 429).all(|a| a.code() == "rate_limited"));
    // The address is at its limit: even the right password is refused now.
    let anonymous = Admin::anonymous(&g);
    let right = anonymous.post("/auth/login", json!({"username": "admin", "password": PASSWORD})).await;
    assert_eq!(right.status, 429, "{}", right.text);
}

#[tokio::test]
async fn forty_concurrent_wrong_logins_keep_peak_memory_bounded() {
    // Defaults: 20 failures per address, 2 hashes at a time.
    let g = gateway(vec![], &[]).await;
    let pid = g.pid().expect("gateway pid");
    // One login first, so the decoy hash and the allocator's steady state exist before measuring.
    Admin::login(&g).await;
    let (peak_before, rss_before) = memory_kib(pid);
    let answers = concurrent_wrong_logins(&g, |i| format!("guess-{i}"), 40).await;
    let (peak_after, rss_after) = memory_kib(pid);
    let (unauthorized, limited) =
        (count(&answers, StatusCode::UNAUTHORIZED), count(&answers, StatusCode::TOO_MANY_REQUESTS));
    eprintln!(
        "40 concurrent wrong logins: {unauthorized} x 401, {limited} x 429; VmHWM {peak_before} -> {peak_after} KiB, \
         VmRSS {rss_before} -> {rss_after} KiB"
    );
    assert_eq!(unauthorized + limited, 40, "every answer is 401 or 429");
    assert!((1..=20).contains(&unauthorized), "at most the address limit is checked: {unauthorized}");
    // Unbounded, 40 argon2 verifications (19 MiB each) at once raise the peak by ~800 MiB.
    let growth_mib = peak_after.saturating_sub(peak_before) / 1024;
    assert!(growth_mib < 150, "peak memory grew by {growth_mib} MiB");
    // The logins refused beyond the hashing bound were not counted: the address still has
    // exactly `20 - unauthorized` checked failures left, then it is refused.
    let anonymous = Admin::anonymous(&g);
    for i in unauthorized..20 {
        let a = anonymous
            .post("/auth/login", json!({"username": format!("late-{i}"), "password": "wrong-password-1"}))
            .await;
        assert_eq!(a.status, 401, "failure {} of 20: {}", i + 1, a.text);
    }
    let over = anonymous.post("/auth/login", json!({"username": "late-x", "password": "wrong-password-1"})).await;
    assert_eq!(over.status, 429, "{}", over.text);
}

/// A browser behind the (trusted, loopback) proxy at `address`.
fn browser(g: &Gateway, address: &str) -> Admin {
    let mut admin = Admin::anonymous(g);
    admin.forwarded_for = Some(address.to_owned());
    admin
}

#[tokio::test]
async fn a_distributed_guesser_does_not_lock_the_owner_out_of_a_known_browser() {
    let g = gateway(vec![], &[("SWITCHBOARD_ADMIN_TRUSTED_PROXY", "true")]).await;
    let mut owner = browser(&g, "198.51.100.7");
    let first = owner.sign_in("admin", PASSWORD).await;
    assert_eq!(first.status, 200);
    let device = owner.device.clone().expect("a login sets the device cookie");
    let header = set_cookie_header(&first, "sb_admin_device").expect("Set-Cookie");
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/api/admin", "Max-Age="] {
        assert!(header.contains(flag), "device cookie lacks {flag}: {header}");
    }
    owner.cookie = None;

    // Ten guesses from ten addresses: the per-address limits never trigger, the username's
    // limit for browsers without a device cookie does (5).
    let mut answers = Vec::new();
    for n in 0..10 {
        let attacker = browser(&g, &format!("203.0.113.{}", 10 + n));
        answers.push(attacker.post("/auth/login", json!({"username": "admin", "password": "wrong-password-1"})).await);
    }
    let statuses: Vec<u16> = answers.iter().map(|a| a.status.as_u16()).collect();
    assert_eq!(statuses, [401, 401, 401, 401, 401, 429, 429, 429, 429, 429]);
    // A new browser with the right password is refused too...
    let mut stranger = browser(&g, "192.0.2.44");
    assert_eq!(stranger.sign_in("admin", PASSWORD).await.status, 429);
    // ...and so is a forged or tampered device cookie...
    let mut forged = browser(&g, "192.0.2.45");
    forged.device = Some(format!("{}x", &device[..device.len() - 1]));
    assert_eq!(forged.sign_in("admin", PASSWORD).await.status, 429);
    // ...but the owner's browser gets in.
    let signed_in = owner.sign_in("admin", PASSWORD).await;
    assert_eq!(signed_in.status, 200, "{}", signed_in.text);
    assert_eq!(owner.get("/accounts").await.status, 200);

    // The device cookie has its own count: five wrong guesses sent with it lock that cookie
    // (wherever it is sent from), not the others.
    let mut copied = browser(&g, "198.51.100.8");
    copied.device = owner.device.clone();
    for _ in 0..5 {
        let wrong = copied.post("/auth/login", json!({"username": "admin", "password": "wrong-password-2"})).await;
        assert_eq!(wrong.status, 401, "{}", wrong.text);
    }
    assert_eq!(copied.sign_in("admin", PASSWORD).await.status, 429, "this device cookie is locked out");
    let mut older = browser(&g, "198.51.100.7");
    older.device = Some(device);
    assert_eq!(older.sign_in("admin", PASSWORD).await.status, 200, "the first device cookie still passes");
}

#[tokio::test]
async fn step_up_password_checks_count_against_the_login_limits() {
    let g = gateway(vec![], &[]).await;
    let owner = Admin::login(&g).await;
    // A stolen session cookie, used without the owner's device cookie.
    let mut thief = Admin::login(&g).await;
    thief.device = None;
    // Five wrong re-entries over every kind of step-up: each counts like a failed login.
    let wrong = "wrong-password-3";
    let refused = [
        thief.post("/auth/api-key", json!({"password": wrong})).await,
        thief.post("/accounts/export", json!({"confirm": true, "password": wrong})).await,
        thief.post("/auth/password", json!({"currentPassword": wrong, "newPassword": "a-new-password-99"})).await,
        thief.post("/auth/totp/enroll", json!({"password": wrong})).await,
        thief.post("/auth/api-key", json!({"password": wrong})).await,
    ];
    let statuses: Vec<u16> = refused.iter().map(|a| a.status.as_u16()).collect();
    assert_eq!(statuses, [403, 403, 422, 403, 403], "{:?}", refused.iter().map(|a| &a.text).collect::<Vec<_>>());
    // At the limit the right password is refused before it is checked, for every step-up...
    for (path, body) in [
        ("/auth/api-key", json!({"password": PASSWORD})),
        ("/accounts/export", json!({"confirm": true, "password": PASSWORD})),
        ("/auth/password", json!({"currentPassword": PASSWORD, "newPassword": "a-new-password-99"})),
        ("/auth/totp/enroll", json!({"password": PASSWORD})),
    ] {
        let limited = thief.post(path, body).await;
        assert_eq!(limited.status, 429, "{path}: {}", limited.text);
        assert_eq!(limited.code(), "rate_limited");
    }
    // ...and for a login from any browser without a device cookie...
    let anonymous = Admin::anonymous(&g);
    assert_eq!(anonymous.post("/auth/login", json!({"username": "admin", "password": PASSWORD})).await.status, 429);
    // ...while the owner's browser still confirms with its password.
    let created = owner.post("/auth/api-key", json!({"password": PASSWORD})).await;
    assert_eq!(created.status, 201, "{}", created.text);
}
