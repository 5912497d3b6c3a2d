//! The evaluated rules over a real SQLite store: each fires once when its condition starts to
//! hold, stays quiet while it holds and below its threshold, and fires again after it cleared.

use std::sync::Arc;

use gateway_admin::alert_settings::AlertRule;
use gateway_admin::alerting::rules::{RuleEvaluator, RuleSources};
use gateway_admin::audit::{AuditActor, AuditEntry};
use gateway_admin::backup::{BackupProgress, BackupTrigger};
use gateway_admin::ports::{AccountImport, BackupJobs, UnitOfWork};
use gateway_core::alerts::{AlertKind, AlertSink, alert_queue};
use gateway_core::domain::{
    AccountId, AccountProfile, CredentialDocument, CredentialFacts, ProviderData, ProviderKind, QuotaFacts,
    QuotaRevision, QuotaState, RequestId, RequestStart, RequestStatus, RequestUpdate, RoutingSnapshot, SendState,
    Transport,
};
use gateway_core::ports::{QuotaStore, RequestLog};
use gateway_store::crypto::{Keyring, MasterKey};
use gateway_store::sqlite::SqliteStore;
use secrecy::ExposeSecret;
use time::OffsetDateTime;

struct Store {
    store: SqliteStore,
    dir: std::path::PathBuf,
}

impl Store {
    async fn open() -> Store {
        let dir = std::env::temp_dir().join(format!("sb-rules-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).expect("dir");
        let key = MasterKey::generate("k1").expect("key").to_config_value().expose_secret().to_owned();
        let store = gateway_store::sqlite::open(&dir.join("db.sqlite"), 2)
            .await
            .expect("open")
            .with_keyring(Keyring::from_config(&key, &[]).expect("keyring"));
        store.migrate().await.expect("migrate");
        Store { store, dir }
    }

    fn evaluator(&self) -> (RuleEvaluator, gateway_core::alerts::AlertReceiver) {
        let (sink, receiver): (AlertSink, _) = alert_queue(16);
        let s = Arc::new(self.store.clone());
        let sources = RuleSources { settings: s.clone(), accounts: s.clone(), usage: s.clone(), backups: s };
        (RuleEvaluator::new(sources, sink), receiver)
    }

    async fn commit_rule(&self, rule: AlertRule) {
        let mut tx = self.store.begin().await.expect("begin");
        tx.update_alert_rule(&rule).await.expect("rule");
        tx.commit(audit()).await.expect("commit");
    }

    async fn import(&self, external: &str) -> AccountId {
        let mut tx = self.store.begin().await.expect("begin");
        let import = AccountImport {
            provider: ProviderKind::Openai,
            external_account_id: external.to_owned(),
            profile: AccountProfile::default(),
            document: CredentialDocument::new(r#"{"access_token":"a","refresh_token":"r"}"#.to_owned()),
            facts: CredentialFacts::active(None, None),
            provider_data: ProviderData::default(),
        };
        let outcome = tx.import_account(import).await.expect("import");
        tx.commit(audit()).await.expect("commit");
        outcome.account_id
    }

    async fn finish(self) {
        self.store.close().await;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn audit() -> AuditEntry {
    AuditEntry::new(AuditActor { user_id: None, name: "test".into() }, "test", "test", None, serde_json::json!({}))
}

fn now() -> OffsetDateTime {
    let now = OffsetDateTime::now_utc();
    now.replace_nanosecond(now.nanosecond() / 1_000 * 1_000).unwrap_or(now)
}

/// `failed` of `total` requests that ended a minute before `at`.
async fn requests(store: &SqliteStore, at: OffsetDateTime, total: u128, failed: u128, offset: u128) {
    let started_at = at - time::Duration::minutes(1);
    let starts: Vec<RequestStart> = (0..total)
        .map(|i| RequestStart {
            id: RequestId(uuid::Uuid::from_u128(offset + i + 1)),
            client_key_id: None,
            requested_model: "gpt-5".to_owned(),
            operation: "responses.create".to_owned(),
            transport: Transport::Http,
            stream: false,
            routing: RoutingSnapshot::All,
            started_at,
            deadline_at: started_at + time::Duration::hours(1),
            runner: None,
        })
        .collect();
    store.record_starts(&starts).await.expect("starts");
    let updates: Vec<RequestUpdate> = starts
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let status = if (i as u128) < failed { RequestStatus::Failed } else { RequestStatus::Completed };
            let mut u = RequestUpdate::new(s.id, status, SendState::Sent);
            u.finished_at = Some(started_at + time::Duration::seconds(1));
            u.outcome.http_status = Some(if status == RequestStatus::Completed { 200 } else { 502 });
            u
        })
        .collect();
    store.record_updates(&updates).await.expect("updates");
}

fn error_rate(threshold_percent: f64, min_requests: u32) -> AlertRule {
    AlertRule { kind: AlertKind::ErrorRate, enabled: true, threshold_percent, window_seconds: 300, min_requests }
}

#[tokio::test]
async fn error_rate_fires_above_its_threshold_once_and_not_below_it() {
    let t = Store::open().await;
    let at = now();
    t.commit_rule(error_rate(30.0, 5)).await;
    let (mut evaluator, mut receiver) = t.evaluator();
    // 1 of 5 failed: 20 %, below 30 %.
    requests(&t.store, at, 5, 1, 0).await;
    assert!(evaluator.evaluate(at).await.expect("evaluate").is_empty());
    // 3 more failed: 4 of 8 = 50 %.
    requests(&t.store, at, 3, 3, 100).await;
    let raised = evaluator.evaluate(at).await.expect("evaluate");
    assert_eq!(raised.iter().map(|a| a.kind).collect::<Vec<_>>(), vec![AlertKind::ErrorRate]);
    assert!(raised[0].message.contains("50.0 %"), "{}", raised[0].message);
    assert_eq!(receiver.receiver.try_recv().expect("raised into the sink").kind, AlertKind::ErrorRate);
    assert!(evaluator.evaluate(at).await.expect("evaluate").is_empty(), "held while it holds");
    // Outside the window the share is gone: cleared, and a later rise fires again.
    let later = at + time::Duration::minutes(10);
    assert!(evaluator.evaluate(later).await.expect("evaluate").is_empty());
    requests(&t.store, later, 2, 2, 200).await;
    assert!(evaluator.evaluate(later).await.expect("evaluate").is_empty(), "2 requests: under min_requests");
    requests(&t.store, later, 4, 4, 300).await;
    assert_eq!(evaluator.evaluate(later).await.expect("evaluate").len(), 1);
    // A disabled rule is not evaluated.
    t.commit_rule(AlertRule { enabled: false, ..error_rate(1.0, 1) }).await;
    let (mut fresh, _receiver) = t.evaluator();
    assert!(fresh.evaluate(later).await.expect("evaluate").is_empty());
    t.finish().await;
}

#[tokio::test]
async fn quota_exhausted_fires_when_every_usable_account_of_a_provider_is_exhausted() {
    let t = Store::open().await;
    let at = now();
    let a = t.import("acct-a").await;
    let b = t.import("acct-b").await;
    let (mut evaluator, _receiver) = t.evaluator();
    let exhausted = QuotaFacts { state: QuotaState::Exhausted, windows: Vec::new(), observed_at: Some(at) };
    let revision = t.store.write_quota(a, QuotaRevision(0), exhausted.clone()).await.expect("quota a");
    assert!(evaluator.evaluate(at).await.expect("evaluate").is_empty(), "acct-b still has quota");
    t.store.write_quota(b, QuotaRevision(0), exhausted.clone()).await.expect("quota b");
    let raised = evaluator.evaluate(at).await.expect("evaluate");
    assert_eq!(raised.len(), 1);
    assert_eq!((raised[0].kind, raised[0].provider), (AlertKind::QuotaExhausted, Some(ProviderKind::Openai)));
    assert!(evaluator.evaluate(at).await.expect("evaluate").is_empty(), "held while it holds");
    let allowed = QuotaFacts { state: QuotaState::Allowed, windows: Vec::new(), observed_at: Some(at) };
    t.store.write_quota(a, revision, allowed).await.expect("reset");
    assert!(evaluator.evaluate(at).await.expect("evaluate").is_empty());
    t.finish().await;
}

#[tokio::test]
async fn backup_failing_fires_for_a_failed_scheduled_backup_only() {
    let t = Store::open().await;
    let at = now();
    let (mut evaluator, _receiver) = t.evaluator();
    let run = |trigger, fail: bool| {
        let store = t.store.clone();
        async move {
            let record = store.enqueue_backup(trigger, None).await.expect("enqueue");
            store.claim_queued_backup(at).await.expect("claim");
            let progress = if fail {
                BackupProgress::Failed { error_code: "pg_dump".into(), error_message: "exit 1".into() }
            } else {
                store
                    .advance_backup(record.id, BackupProgress::Uploading { object_key: "k".into() }, at)
                    .await
                    .expect("up");
                BackupProgress::Completed { object_key: "k".into(), size_bytes: 1, sha256: [0; 32] }
            };
            store.advance_backup(record.id, progress, at).await.expect("advance");
        }
    };
    run(BackupTrigger::Manual, true).await;
    assert!(evaluator.evaluate(at).await.expect("evaluate").is_empty(), "a manual backup is not the schedule");
    run(BackupTrigger::Scheduled, false).await;
    assert!(evaluator.evaluate(at).await.expect("evaluate").is_empty());
    run(BackupTrigger::Scheduled, true).await;
    let raised = evaluator.evaluate(at).await.expect("evaluate");
    assert_eq!(
        raised.iter().map(|a| (a.kind, a.reason.as_str())).collect::<Vec<_>>(),
        [(AlertKind::BackupFailing, "pg_dump")]
    );
    assert!(evaluator.evaluate(at).await.expect("evaluate").is_empty(), "one alert per failed backup");
    run(BackupTrigger::Scheduled, true).await;
    assert_eq!(evaluator.evaluate(at).await.expect("evaluate").len(), 1, "the next failed backup alerts again");
    t.finish().await;
}
