//! One engine over the fakes: a scripted provider per kind, the coordination fake, an
//! in-memory request log fed by the real observation flusher, and helpers that drive
//! `Engine::handle` and read back what happened.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;
use gateway_core::accounting::PriceTable;
use gateway_core::alerts::AlertSink;
use gateway_core::coordination::HeldSlots;
use gateway_core::domain::{AccountId, BootId, ClientKeyLimits, KeyScope, ProviderKind, RequestId, Transport};
use gateway_core::engine::{Delivery, Engine, EngineSettings, InboundRequest, Reply};
use gateway_core::observation::{ObservationSinks, observation_queue};
use gateway_core::ports::SnapshotFacts;
use gateway_core::provider::{Operation, Provider, ProviderSet};
use gateway_core::snapshot::{RuntimeSnapshot, SnapshotHolder};
use gateway_core::telemetry::Telemetry;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::coordination::FakeCoordination;
use super::log::MemoryLog;
use super::provider::ScriptedProvider;
use crate::fixtures;

pub const KEY: &str = "sk-engine-test";

pub struct World {
    pub engine: Arc<Engine>,
    pub openai: Arc<ScriptedProvider>,
    pub xai: Arc<ScriptedProvider>,
    pub coordination: Arc<FakeCoordination>,
    pub log: Arc<MemoryLog>,
    stop: CancellationToken,
    tasks: JoinSet<()>,
}

/// What a test may change before the engine starts.
pub struct Setup {
    pub facts: SnapshotFacts,
    pub settings: EngineSettings,
    pub queue_capacity: usize,
    /// Bytes the observation queue may hold.
    pub queue_bytes: usize,
    /// Disabled unless a test records metrics.
    pub telemetry: Telemetry,
    /// Disabled unless a test reads alerts.
    pub alerts: AlertSink,
}

impl World {
    /// OpenAI accounts `openai`, xAI accounts `xai`, one key with every account in scope.
    pub fn new(openai: &[i64], xai: &[i64]) -> Self {
        Self::with(openai, xai, |_| {})
    }

    pub fn with(openai: &[i64], xai: &[i64], configure: impl FnOnce(&mut Setup)) -> Self {
        let accounts = openai
            .iter()
            .map(|id| fixtures::account(*id, ProviderKind::Openai))
            .chain(xai.iter().map(|id| fixtures::account(*id, ProviderKind::Xai)))
            .collect();
        let key = fixtures::key(1, KEY, KeyScope::AllAccounts);
        let mut setup = Setup {
            facts: fixtures::facts(accounts, Vec::new(), vec![key]),
            settings: EngineSettings::default(),
            queue_capacity: 1024,
            queue_bytes: 1 << 24,
            telemetry: Telemetry::disabled(),
            alerts: AlertSink::disabled(),
        };
        configure(&mut setup);
        let coordination = Arc::new(FakeCoordination::new());
        let log = Arc::new(MemoryLog::default());
        let (queue, receiver) = observation_queue(setup.queue_capacity, setup.queue_bytes);
        let openai = ScriptedProvider::new(ProviderKind::Openai);
        let xai = ScriptedProvider::new(ProviderKind::Xai);
        openai.watch(queue.stats().clone());
        xai.watch(queue.stats().clone());
        let providers: Vec<Arc<dyn Provider>> = vec![openai.clone(), xai.clone()];
        let held = HeldSlots::new(coordination.clone(), BootId::random());
        let engine = Arc::new(Engine {
            snapshots: SnapshotHolder::new(RuntimeSnapshot::build(setup.facts)),
            providers: ProviderSet::new(providers),
            slots: coordination.clone(),
            held,
            circuits: coordination.clone(),
            pins: coordination.clone(),
            observations: queue,
            prices: Arc::new(PriceTable::default()),
            settings: setup.settings,
            affinity_hints: Default::default(),
            fault_memory: Default::default(),
            pools: Default::default(),
            telemetry: setup.telemetry,
            alerts: setup.alerts,
        });
        let stop = CancellationToken::new();
        let mut tasks = JoinSet::new();
        let sinks = ObservationSinks { requests: log.clone(), ops: log.clone(), quota: log.clone() };
        tasks.spawn(receiver.run(sinks, 64, Duration::ZERO, stop.clone(), Duration::from_secs(1)));
        Self { engine, openai, xai, coordination, log, stop, tasks }
    }

    pub fn provider(&self, kind: ProviderKind) -> &Arc<ScriptedProvider> {
        match kind {
            ProviderKind::Openai => &self.openai,
            ProviderKind::Xai => &self.xai,
        }
    }

    /// A client request over HTTP with the test key.
    pub async fn send(&self, body: &str) -> Reply {
        self.send_with(body, Some(KEY), Vec::new()).await
    }

    pub async fn send_with(&self, body: &str, key: Option<&str>, headers: Vec<(String, Bytes)>) -> Reply {
        self.engine
            .handle(InboundRequest {
                operation: Operation::ResponsesCreate,
                transport: Transport::Http,
                api_key: key.map(str::to_owned),
                headers,
                body: Bytes::from(body.to_owned()),
                session: None,
            })
            .await
    }

    /// Waits (without advancing time) until `condition` holds.
    pub async fn eventually(&self, what: &str, condition: impl Fn() -> bool) {
        for _ in 0..100_000 {
            if condition() {
                return;
            }
            tokio::task::yield_now().await;
        }
        panic!("never happened: {what}");
    }

    /// Waits until the request's row is terminal and every slot is released.
    pub async fn settled(&self, id: RequestId) -> super::log::Row {
        self.eventually("the row is terminal", || self.log.is_finished(id)).await;
        self.eventually("every slot is released", || self.engine.held.is_empty()).await;
        self.log.row(id).expect("row")
    }

    /// Which accounts `kind`'s provider was called with, in order.
    pub fn called(&self, kind: ProviderKind) -> Vec<AccountId> {
        self.provider(kind).calls().iter().map(|c| c.account).collect()
    }

    pub fn all_calls(&self) -> usize {
        self.openai.calls().len() + self.xai.calls().len()
    }

    pub async fn stop(mut self) {
        self.stop.cancel();
        while self.tasks.join_next().await.is_some() {}
    }
}

pub const STREAM: &str = r#"{"model":"gpt-test","stream":true,"input":"hi"}"#;
pub const JSON: &str = r#"{"model":"gpt-test","input":"hi"}"#;

/// The parts of a reply a test looks at.
pub enum Answer {
    Stream { id: RequestId, body: Box<Delivery> },
    Json { id: Option<RequestId>, status: u16, body: serde_json::Value },
}

impl Answer {
    pub fn of(reply: Reply) -> Self {
        match reply {
            Reply::Stream { request_id, body, .. } => Answer::Stream { id: request_id, body },
            Reply::Json { request_id, status, body, .. } => {
                Answer::Json { id: request_id, status, body: serde_json::from_slice(&body).expect("JSON body") }
            }
        }
    }

    pub fn id(&self) -> RequestId {
        match self {
            Answer::Stream { id, .. } => *id,
            Answer::Json { id, .. } => id.expect("a request id"),
        }
    }

    /// The status and the stable error code (`None` for a success).
    pub fn error(&self) -> Option<(u16, String)> {
        match self {
            Answer::Json { status, body, .. } if *status >= 400 => {
                Some((*status, body["error"]["code"].as_str().unwrap_or_default().to_owned()))
            }
            _ => None,
        }
    }

    pub fn expect_error(&self) -> (u16, String) {
        self.error().expect("an error answer")
    }
}

/// The next chunk the client would receive.
pub async fn next_chunk(delivery: &mut Delivery) -> Option<Bytes> {
    std::future::poll_fn(|cx| std::pin::Pin::new(&mut *delivery).poll_next(cx))
        .await
        .map(|chunk: Result<Bytes, Infallible>| chunk.expect("infallible"))
}

/// Every chunk until the stream ends, as text.
pub async fn drain(mut delivery: Box<Delivery>) -> String {
    let mut text = String::new();
    while let Some(chunk) = next_chunk(&mut delivery).await {
        text.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
    }
    text
}

pub fn limits(configure: impl Fn(&mut ClientKeyLimits)) -> impl FnOnce(&mut Setup) {
    move |setup| {
        for key in &mut setup.facts.client_keys {
            configure(&mut key.limits);
        }
    }
}

pub fn tier_policy(policy: gateway_core::domain::ServiceTierPolicy) -> impl FnOnce(&mut Setup) {
    move |setup| {
        for key in &mut setup.facts.client_keys {
            key.service_tier_policy = policy;
        }
    }
}
