//! A scripted provider: each `execute` takes the next step of its script and records the call
//! as the provider saw it.

use std::collections::{HashSet, VecDeque};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use async_trait::async_trait;
use futures_core::Stream;
use gateway_core::domain::{AccountId, CredentialRevision, ProviderKind, SendState, Transport};
use gateway_core::fault::Fault;
use gateway_core::observation::ObservationStats;
use gateway_core::provider::{
    AttemptFailure, FrameStream, ModelInfo, Provider, StreamFailure, UpstreamCall, UpstreamEvent, UpstreamReply,
    UpstreamRoute,
};
use gateway_core::snapshot::AccountEntry;
use gateway_protocol::SseFrame;
use tokio::sync::mpsc;

pub type Item = Result<UpstreamEvent, StreamFailure>;

/// What one `execute` does.
pub enum Step {
    /// The upstream accepts; its stream yields these items, then ends.
    Answer(Vec<Item>),
    /// The upstream accepts; the test feeds the stream through the sender it kept.
    Feed(mpsc::UnboundedReceiver<Item>),
    /// The attempt fails.
    Fail(AttemptFailure),
    /// Nothing answers: the provider gives up after the call's header timeout, as real
    /// transports do, with an unclear outcome.
    Hang,
}

/// One call as the provider received it.
#[derive(Debug, Clone)]
pub struct SeenCall {
    pub attempt: u32,
    pub account: AccountId,
    pub credential_revision: CredentialRevision,
    pub route: UpstreamRoute,
    pub header_timeout: Duration,
    /// Observations enqueued when the call was made (the start and every progress update).
    pub enqueued_before: u64,
    /// The request body the engine handed over.
    pub body: bytes::Bytes,
}

pub struct ScriptedProvider {
    kind: ProviderKind,
    script: Mutex<VecDeque<Step>>,
    calls: Mutex<Vec<SeenCall>>,
    recoveries: Mutex<VecDeque<bool>>,
    recovered: Mutex<Vec<AccountId>>,
    /// (account, model) pairs the catalog does not serve.
    unsupported: Mutex<HashSet<(AccountId, String)>>,
    generation: AtomicU64,
    stats: Mutex<Option<Arc<ObservationStats>>>,
    transport: Transport,
}

impl ScriptedProvider {
    pub fn new(kind: ProviderKind) -> Arc<Self> {
        Arc::new(Self {
            kind,
            script: Mutex::new(VecDeque::new()),
            calls: Mutex::new(Vec::new()),
            recoveries: Mutex::new(VecDeque::new()),
            recovered: Mutex::new(Vec::new()),
            unsupported: Mutex::new(HashSet::new()),
            generation: AtomicU64::new(0),
            stats: Mutex::new(None),
            transport: Transport::Http,
        })
    }

    pub fn watch(&self, stats: Arc<ObservationStats>) {
        *self.stats.lock().expect("lock") = Some(stats);
    }

    pub fn then(&self, step: Step) -> &Self {
        self.script.lock().expect("lock").push_back(step);
        self
    }

    pub fn then_answer(&self) -> &Self {
        self.then(Step::Answer(completed_stream("resp_1")))
    }

    pub fn then_fail(&self, fault: Fault, send_state: SendState, status: Option<u16>) -> &Self {
        let mut failure = AttemptFailure::new(fault, send_state, "scripted failure");
        failure.http_status = status;
        self.then(Step::Fail(failure))
    }

    /// Fails with `failure` as it is (a deadline, a refusal).
    pub fn then_fail_with(&self, failure: AttemptFailure) -> &Self {
        self.then(Step::Fail(failure))
    }

    /// Answers of the next `recover_credential` calls (`true` = renewed).
    pub fn recoveries(&self, answers: &[bool]) {
        self.recoveries.lock().expect("lock").extend(answers.iter().copied());
    }

    pub fn calls(&self) -> Vec<SeenCall> {
        self.calls.lock().expect("lock").clone()
    }

    /// Changes the live catalog: `account` no longer serves `model` (a new generation).
    pub fn drop_model(&self, account: AccountId, model: &str) {
        self.unsupported.lock().expect("lock").insert((account, model.to_owned()));
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    pub fn recovered(&self) -> Vec<AccountId> {
        self.recovered.lock().expect("lock").clone()
    }
}

#[async_trait]
impl Provider for ScriptedProvider {
    fn kind(&self) -> ProviderKind {
        self.kind
    }

    fn supports_model(&self, account: &AccountEntry, model: &str) -> bool {
        !self.unsupported.lock().expect("lock").contains(&(account.id(), model.to_owned()))
    }

    fn catalog_generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    fn models(&self, _account: &AccountEntry) -> Vec<ModelInfo> {
        vec![ModelInfo { id: "gpt-test".to_owned(), owned_by: "test" }]
    }

    async fn execute(&self, call: UpstreamCall<'_>) -> Result<UpstreamReply, AttemptFailure> {
        let enqueued_before =
            self.stats.lock().expect("lock").as_ref().map_or(0, |stats| stats.enqueued.load(Ordering::Relaxed));
        self.calls.lock().expect("lock").push(SeenCall {
            attempt: call.attempt,
            account: call.account.id(),
            credential_revision: call.account.record.credential_revision,
            route: call.route.clone(),
            header_timeout: call.header_timeout,
            enqueued_before,
            body: call.body.clone(),
        });
        let step = self.script.lock().expect("lock").pop_front().expect("the script has a step for every call");
        let frames: FrameStream = match step {
            Step::Answer(items) => Box::pin(Items(items.into())),
            Step::Feed(receiver) => Box::pin(Fed(receiver)),
            Step::Fail(failure) => return Err(failure),
            Step::Hang => {
                tokio::time::sleep(call.header_timeout).await;
                return Err(AttemptFailure::new(Fault::UpstreamAmbiguous, SendState::Ambiguous, "no answer in time"));
            }
        };
        Ok(UpstreamReply {
            frames,
            quota: None,
            served_model: None,
            forward_headers: Vec::new(),
            connect_time: None,
            headers_time: Duration::from_millis(1),
            transport: self.transport,
        })
    }

    async fn recover_credential(&self, account: AccountId) -> Result<(), AttemptFailure> {
        self.recovered.lock().expect("lock").push(account);
        if self.recoveries.lock().expect("lock").pop_front().unwrap_or(true) {
            Ok(())
        } else {
            Err(AttemptFailure::new(Fault::UpstreamUnauthorized, SendState::NotSent, "refresh refused"))
        }
    }
}

struct Items(VecDeque<Item>);

impl Stream for Items {
    type Item = Item;
    fn poll_next(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Option<Item>> {
        Poll::Ready(self.0.pop_front())
    }
}

struct Fed(mpsc::UnboundedReceiver<Item>);

impl Stream for Fed {
    type Item = Item;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Item>> {
        self.0.poll_recv(cx)
    }
}

pub fn frame(kind: &str, data: &str) -> Item {
    Ok(UpstreamEvent::Frame(SseFrame::from_event(kind, data.as_bytes())))
}

pub fn created(id: &str) -> Item {
    frame(
        "response.created",
        &format!(
            r#"{{"type":"response.created","response":{{"id":"{id}","status":"in_progress","model":"gpt-test"}}}}"#
        ),
    )
}

pub fn delta(text: &str) -> Item {
    frame("response.output_text.delta", &format!(r#"{{"type":"response.output_text.delta","delta":"{text}"}}"#))
}

pub fn completed(id: &str) -> Item {
    frame(
        "response.completed",
        &format!(
            r#"{{"type":"response.completed","response":{{"id":"{id}","status":"completed","model":"gpt-test","output":[],"usage":{{"input_tokens":3,"output_tokens":2,"total_tokens":5}}}}}}"#
        ),
    )
}

pub fn broken(message: &str) -> Item {
    Err(StreamFailure { message: message.to_owned(), idle_timeout: false })
}

pub fn completed_stream(id: &str) -> Vec<Item> {
    vec![created(id), delta("hi"), completed(id)]
}
