//! The dispatcher over a scripted transport, in paused time: retries wait the backoff, a 4xx
//! ends the delivery, every attempt is recorded, repeats of one alert are held back, and the
//! stored rules are re-read at most every `SETTINGS_MAX_AGE` (the last good read kept while the
//! store does not answer).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use gateway_admin::alert_settings::{AlertRule, AlertWebhookId, StoredWebhook};
use gateway_admin::alerting::signature::verify;
use gateway_admin::alerting::subscriptions::SETTINGS_MAX_AGE;
use gateway_admin::alerting::{AlertDispatcher, DeliveryPolicy, Webhook};
use gateway_admin::ports::{AlertSettings, StorageError};
use gateway_core::alerts::{Alert, AlertKind, AlertSink, WebhookError, WebhookRequest, WebhookTransport, alert_queue};
use gateway_core::domain::{AccountId, ProviderKind};
use gateway_core::observation::{ObservationQueue, observation_queue};
use time::OffsetDateTime;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

const SECRET: &str = "whsec-0123456789abcdef";

/// Answers from a script (then 200) and keeps what it was sent, with the (paused) time.
#[derive(Default)]
struct Receiver {
    answers: Mutex<Vec<Result<u16, WebhookError>>>,
    seen: Mutex<Vec<(Instant, WebhookRequest)>>,
}

#[async_trait]
impl WebhookTransport for Receiver {
    async fn post(&self, request: WebhookRequest) -> Result<u16, WebhookError> {
        self.seen.lock().expect("lock").push((Instant::now(), request));
        let mut answers = self.answers.lock().expect("lock");
        if answers.is_empty() { Ok(200) } else { answers.remove(0) }
    }
}

impl Receiver {
    fn scripted(answers: Vec<Result<u16, WebhookError>>) -> Arc<Self> {
        Arc::new(Self { answers: Mutex::new(answers), seen: Mutex::default() })
    }

    fn seen(&self) -> Vec<(Instant, WebhookRequest)> {
        self.seen.lock().expect("lock").clone()
    }
}

fn banned(account: i64) -> Alert {
    Alert {
        kind: AlertKind::AccountBanned,
        occurred_at: OffsetDateTime::now_utc(),
        provider: Some(ProviderKind::Openai),
        account_id: Some(AccountId(account)),
        client_key_id: None,
        reason: "account_deactivated".to_owned(),
        message: "banned".to_owned(),
    }
}

fn webhook(kinds: Vec<AlertKind>) -> Webhook {
    Webhook {
        name: "ops".to_owned(),
        url: "https://203.0.113.10/hook".to_owned(),
        secret: SECRET.to_owned().into(),
        kinds,
    }
}

struct Running {
    sink: AlertSink,
    records: ObservationQueue,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
    _observations: gateway_core::observation::ObservationReceiver,
}

fn start(receiver: Arc<Receiver>, webhooks: Vec<Webhook>) -> Running {
    start_with(receiver, webhooks, None)
}

fn start_with(receiver: Arc<Receiver>, webhooks: Vec<Webhook>, stored: Option<Arc<dyn AlertSettings>>) -> Running {
    let (sink, alerts) = alert_queue(16);
    let (records, observations) = observation_queue(64, 1 << 20);
    let policy = DeliveryPolicy {
        max_attempts: 3,
        initial_backoff: Duration::from_secs(1),
        max_backoff: Duration::from_secs(60),
        timeout: Duration::from_secs(5),
    };
    let mut dispatcher = AlertDispatcher::new(webhooks, receiver, policy, records.clone(), Duration::from_secs(600));
    if let Some(stored) = stored {
        dispatcher = dispatcher.with_stored(stored);
    }
    let stop = CancellationToken::new();
    let task = tokio::spawn(dispatcher.run(alerts, stop.clone()));
    Running { sink, records, stop, task, _observations: observations }
}

async fn until(what: &str, condition: impl Fn() -> bool) {
    for _ in 0..10_000 {
        if condition() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("timed out waiting for {what}");
}

#[tokio::test(start_paused = true)]
async fn a_500_is_retried_after_the_backoff_and_every_attempt_is_recorded() {
    let receiver = Receiver::scripted(vec![Ok(500), Err(WebhookError::Timeout)]);
    let running = start(receiver.clone(), vec![webhook(vec![])]);
    assert!(running.sink.raise(banned(7)));
    until("three attempts", || receiver.seen().len() == 3).await;
    let seen = receiver.seen();
    assert_eq!(seen[1].0 - seen[0].0, Duration::from_secs(1), "first backoff");
    assert_eq!(seen[2].0 - seen[1].0, Duration::from_secs(2), "doubled");
    for (_, request) in &seen {
        let signature = request.headers.iter().find(|(n, _)| n == "x-switchboard-signature").expect("signed");
        assert!(verify(SECRET, &signature.1, &request.body));
        let body: serde_json::Value = serde_json::from_slice(&request.body).expect("json");
        assert_eq!(body["kind"], "account_banned");
        assert_eq!(body["accountId"], 7);
    }
    let ids: Vec<_> =
        seen.iter().map(|(_, r)| r.headers.iter().find(|(n, _)| n == "x-switchboard-delivery").cloned()).collect();
    assert!(ids.windows(2).all(|w| w[0] == w[1]), "one delivery id across retries");
    until("three records", || running.records.stats().enqueued.load(Ordering::Relaxed) == 3).await;
    tokio::time::sleep(Duration::from_secs(300)).await;
    assert_eq!(receiver.seen().len(), 3, "delivered on the third attempt: no more");
    running.stop.cancel();
    running.task.await.expect("dispatcher stops");
}

#[tokio::test(start_paused = true)]
async fn a_refusal_ends_the_delivery_and_attempts_stop_at_the_maximum() {
    let refused = Receiver::scripted(vec![Ok(404)]);
    let running = start(refused.clone(), vec![webhook(vec![])]);
    running.sink.raise(banned(1));
    until("one attempt", || refused.seen().len() == 1).await;
    tokio::time::sleep(Duration::from_secs(120)).await;
    assert_eq!(refused.seen().len(), 1, "a 404 is not retried");
    running.stop.cancel();
    running.task.await.expect("stops");

    let down = Receiver::scripted(vec![Ok(503), Ok(503), Ok(503), Ok(503)]);
    let running = start(down.clone(), vec![webhook(vec![])]);
    running.sink.raise(banned(1));
    tokio::time::sleep(Duration::from_secs(120)).await;
    assert_eq!(down.seen().len(), 3, "max_attempts");
    assert_eq!(running.records.stats().enqueued.load(Ordering::Relaxed), 3);
    running.stop.cancel();
    running.task.await.expect("stops");
}

#[tokio::test(start_paused = true)]
async fn repeats_are_held_back_and_webhooks_get_only_their_kinds() {
    let receiver = Receiver::scripted(vec![]);
    let running = start(receiver.clone(), vec![webhook(vec![AlertKind::AccountBanned])]);
    running.sink.raise(banned(1));
    running.sink.raise(banned(1));
    running.sink.raise(banned(2));
    running.sink.raise(Alert { kind: AlertKind::PoolEmpty, ..banned(3) });
    tokio::time::sleep(Duration::from_secs(5)).await;
    let accounts: Vec<_> = receiver
        .seen()
        .iter()
        .map(|(_, r)| serde_json::from_slice::<serde_json::Value>(&r.body).expect("json")["accountId"].clone())
        .collect();
    assert_eq!(accounts, vec![serde_json::json!(1), serde_json::json!(2)]);
    tokio::time::sleep(Duration::from_secs(601)).await;
    running.sink.raise(banned(1));
    until("the repeat after the window", || receiver.seen().len() == 3).await;
    running.stop.cancel();
    running.task.await.expect("stops");
}

/// The stored alert settings as the dispatcher reads them: no stored webhooks, the
/// `account_banned` rule switched on or off, a store that stops answering, and a read count.
#[derive(Default)]
struct Stored {
    banned_disabled: AtomicBool,
    down: AtomicBool,
    rule_reads: AtomicUsize,
}

impl Stored {
    fn answer<T>(&self, value: T) -> Result<T, StorageError> {
        if self.down.load(Ordering::SeqCst) { Err(StorageError::Unavailable("down".to_owned())) } else { Ok(value) }
    }
}

#[async_trait]
impl AlertSettings for Stored {
    async fn list_alert_webhooks(&self) -> Result<Vec<StoredWebhook>, StorageError> {
        self.answer(Vec::new())
    }
    async fn get_alert_webhook(&self, id: AlertWebhookId) -> Result<StoredWebhook, StorageError> {
        Err(StorageError::NotFound { entity: "alert webhook", id: id.0.to_string() })
    }
    async fn alert_webhook_target(&self, id: AlertWebhookId) -> Result<Webhook, StorageError> {
        Err(StorageError::NotFound { entity: "alert webhook", id: id.0.to_string() })
    }
    async fn enabled_alert_webhooks(&self) -> Result<Vec<Webhook>, StorageError> {
        self.answer(Vec::new())
    }
    async fn list_alert_rules(&self) -> Result<Vec<AlertRule>, StorageError> {
        self.rule_reads.fetch_add(1, Ordering::SeqCst);
        let enabled = !self.banned_disabled.load(Ordering::SeqCst);
        self.answer(vec![AlertRule { enabled, ..AlertRule::default_for(AlertKind::AccountBanned) }])
    }
}

#[tokio::test(start_paused = true)]
async fn stored_rules_are_reread_at_most_every_max_age_and_kept_while_the_store_is_down() {
    let receiver = Receiver::scripted(vec![]);
    let stored = Arc::new(Stored::default());
    let running = start_with(receiver.clone(), vec![webhook(vec![])], Some(stored.clone()));
    let after_max_age = SETTINGS_MAX_AGE + Duration::from_secs(1);
    running.sink.raise(banned(1));
    until("the first alert", || receiver.seen().len() == 1).await;
    assert_eq!(stored.rule_reads.load(Ordering::SeqCst), 1);

    // Switched off in the store: the read younger than the max age still applies.
    stored.banned_disabled.store(true, Ordering::SeqCst);
    running.sink.raise(banned(2));
    until("the alert under the cached rule", || receiver.seen().len() == 2).await;
    assert_eq!(stored.rule_reads.load(Ordering::SeqCst), 1, "not re-read within the max age");

    tokio::time::sleep(after_max_age).await;
    running.sink.raise(banned(3));
    until("the re-read", || stored.rule_reads.load(Ordering::SeqCst) == 2).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(receiver.seen().len(), 2, "the re-read rule is off: nothing sent");

    // Switched on while the store does not answer: the last good read (off) is kept.
    stored.banned_disabled.store(false, Ordering::SeqCst);
    stored.down.store(true, Ordering::SeqCst);
    tokio::time::sleep(after_max_age).await;
    running.sink.raise(banned(4));
    until("the failed re-read", || stored.rule_reads.load(Ordering::SeqCst) == 3).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(receiver.seen().len(), 2, "the last good read still says off");

    // Answering again, past the max age of the failed attempt: the rule is on.
    stored.down.store(false, Ordering::SeqCst);
    tokio::time::sleep(after_max_age).await;
    running.sink.raise(banned(5));
    until("the alert under the re-read rule", || receiver.seen().len() == 3).await;
    assert_eq!(stored.rule_reads.load(Ordering::SeqCst), 4);
    running.stop.cancel();
    running.task.await.expect("stops");
}
