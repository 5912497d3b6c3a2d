//! Sessions follow their admin (`auth::standing`) over the in-process session store and a
//! mutable user table: disabled, deleted and re-passworded admins lose every session; a stale
//! roster delays a refusal by at most its age and never refuses a valid session.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use gateway_admin::admin_user::{AdminUserId, AdminUserRecord, TotpSecret};
use gateway_admin::auth::device_cookie::{DeviceCookieKey, DeviceCookies};
use gateway_admin::auth::standing::credential_stamp;
use gateway_admin::auth::{
    AdminStandings, AuthPolicy, ClientOrigin, LoginAttempt, PasswordGuard, authenticate_session, login,
};
use gateway_admin::passwords::hash_password;
use gateway_admin::ports::{AdminSessions, AdminUsers};
use gateway_core::ports::StorageError;
use gateway_store::memory::MemoryCoordination;
use time::OffsetDateTime;

/// A user table an operator can edit, counting reads.
#[derive(Default)]
struct Table {
    rows: Mutex<Vec<AdminUserRecord>>,
    reads: Mutex<u32>,
}

impl Table {
    fn edit(&self, change: impl FnOnce(&mut Vec<AdminUserRecord>)) {
        change(&mut self.rows.lock().expect("rows"));
    }

    fn reads(&self) -> u32 {
        *self.reads.lock().expect("reads")
    }
}

#[async_trait]
impl AdminUsers for Table {
    async fn count_admin_users(&self) -> Result<u64, StorageError> {
        Ok(self.rows.lock().map(|r| r.len() as u64).unwrap_or(0))
    }
    async fn find_admin_by_username(&self, username: &str) -> Result<Option<AdminUserRecord>, StorageError> {
        Ok(self.rows.lock().ok().and_then(|r| r.iter().find(|u| u.username.eq_ignore_ascii_case(username)).cloned()))
    }
    async fn find_admin_by_api_key(&self, _hash: &[u8; 32]) -> Result<Option<AdminUserRecord>, StorageError> {
        Ok(None)
    }
    async fn get_admin_user(&self, id: AdminUserId) -> Result<AdminUserRecord, StorageError> {
        let rows = self.rows.lock().map(|r| r.clone()).unwrap_or_default();
        rows.into_iter().find(|u| u.id == id).ok_or_else(|| StorageError::not_found("admin user", id))
    }
    async fn list_admin_users(&self) -> Result<Vec<AdminUserRecord>, StorageError> {
        *self.reads.lock().expect("reads") += 1;
        Ok(self.rows.lock().map(|r| r.clone()).unwrap_or_default())
    }
    async fn admin_totp_secret(&self, _id: AdminUserId) -> Result<Option<TotpSecret>, StorageError> {
        Ok(None)
    }
    async fn record_admin_login(&self, _id: AdminUserId, _at: OffsetDateTime) -> Result<(), StorageError> {
        Ok(())
    }
}

async fn admin(id: i64, name: &str) -> AdminUserRecord {
    AdminUserRecord {
        id: AdminUserId(id),
        username: name.to_owned(),
        password_hash: Some(hash_password("right-password").await.expect("hash")),
        enabled: true,
        totp_enabled: false,
        api_key_prefix: None,
        api_key_created_at: None,
        last_login_at: None,
        created_at: OffsetDateTime::now_utc(),
    }
}

struct World {
    table: Arc<Table>,
    store: Arc<MemoryCoordination>,
    guard: PasswordGuard,
    standings: AdminStandings,
    policy: AuthPolicy,
}

impl World {
    async fn new(roster_max_age: Duration) -> Self {
        let table = Arc::new(Table::default());
        let (one, two) = (admin(1, "admin").await, admin(2, "ops").await);
        table.edit(|rows| *rows = vec![one, two]);
        let policy = AuthPolicy::default();
        let store = Arc::new(MemoryCoordination::new());
        let devices = DeviceCookies::new(DeviceCookieKey::random(), policy.device_cookie_lifetime);
        let guard = PasswordGuard::new(store.clone(), devices, &policy);
        let standings = AdminStandings::new(table.clone(), roster_max_age);
        Self { table, store, guard, standings, policy }
    }

    async fn login(&self, username: &str) -> String {
        let attempt = LoginAttempt {
            username: username.to_owned(),
            password: "right-password".to_owned(),
            totp: None,
            origin: ClientOrigin::default(),
            user_agent: None,
        };
        let now = OffsetDateTime::now_utc();
        login(self.table.as_ref(), self.store.as_ref(), &self.guard, &self.policy, attempt, now)
            .await
            .expect("login")
            .token
    }

    async fn live(&self, token: &str) -> bool {
        let now = OffsetDateTime::now_utc();
        authenticate_session(self.store.as_ref(), &self.standings, &self.policy, token, now)
            .await
            .expect("check")
            .is_some()
    }

    async fn sessions_of(&self, id: i64) -> usize {
        self.store.list_user_sessions(AdminUserId(id), OffsetDateTime::now_utc()).await.expect("list").len()
    }
}

#[tokio::test]
async fn a_disabled_or_deleted_admin_loses_every_session() {
    // A roster of age zero: every check reads the table (the age is tested below).
    let world = World::new(Duration::ZERO).await;
    let (first, second, other) = (world.login("admin").await, world.login("admin").await, world.login("ops").await);
    assert!(world.live(&first).await && world.live(&other).await);
    world.table.edit(|rows| rows[0].enabled = false);
    assert!(!world.live(&first).await);
    assert_eq!(world.sessions_of(1).await, 0, "every session of the admin ended at once");
    assert!(!world.live(&second).await);
    world.table.edit(|rows| rows[0].enabled = true);
    assert!(!world.live(&second).await, "enabling again does not bring sessions back");
    assert!(world.live(&other).await, "other admins keep theirs");
    world.table.edit(|rows| rows.retain(|u| u.id != AdminUserId(2)));
    assert!(!world.live(&other).await, "a deleted admin's session ends");
    assert_eq!(world.sessions_of(2).await, 0);
}

#[tokio::test]
async fn a_new_password_ends_the_sessions_from_before_it() {
    let world = World::new(Duration::ZERO).await;
    let (first, second) = (world.login("admin").await, world.login("admin").await);
    assert!(world.live(&first).await);
    let reset = hash_password("set-by-operator").await.expect("hash");
    assert_ne!(
        credential_stamp(Some(&reset)),
        credential_stamp(world.table.rows.lock().expect("rows")[0].password_hash.as_ref())
    );
    world.table.edit(|rows| rows[0].password_hash = Some(reset.clone()));
    assert!(!world.live(&first).await);
    assert_eq!(world.sessions_of(1).await, 0, "the other session from before the change ended too");
    assert!(!world.live(&second).await);
    world.table.edit(|rows| rows[0].password_hash = Some(reset));
    let attempt = LoginAttempt {
        username: "admin".to_owned(),
        password: "set-by-operator".to_owned(),
        totp: None,
        origin: ClientOrigin::default(),
        user_agent: None,
    };
    let now = OffsetDateTime::now_utc();
    let fresh = login(world.table.as_ref(), world.store.as_ref(), &world.guard, &world.policy, attempt, now).await;
    assert!(world.live(&fresh.expect("login").token).await, "a session after the change lives");
}

#[tokio::test]
async fn the_roster_is_read_once_while_fresh_and_again_once_older_than_its_age() {
    let world = World::new(Duration::from_secs(3600)).await;
    let token = world.login("admin").await;
    for _ in 0..20 {
        assert!(world.live(&token).await);
    }
    assert_eq!(world.table.reads(), 1, "one read admits many requests");
    // A stale roster never refuses: an admin it does not know yet is looked up again.
    let newcomer = admin(3, "newcomer").await;
    world.table.edit(|rows| rows.push(newcomer));
    let newcomer = world.login("newcomer").await;
    assert!(world.live(&newcomer).await, "admitted after a fresh read");
    assert_eq!(world.table.reads(), 2);
    world.table.edit(|rows| rows[0].enabled = false);
    assert!(world.live(&token).await, "a fresh roster admits: the refusal waits for its age");
    world.standings.forget();
    assert!(!world.live(&token).await, "a forgotten roster is read again");

    // With a short age the disabled admin is refused once the roster is older than it.
    let world = World::new(Duration::from_millis(100)).await;
    let token = world.login("admin").await;
    assert!(world.live(&token).await);
    world.table.edit(|rows| rows[0].enabled = false);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while world.live(&token).await {
        assert!(std::time::Instant::now() < deadline, "refused once the roster aged");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
