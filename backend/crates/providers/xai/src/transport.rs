//! HTTP SSE to `{inference}/responses` over the shared upstream client, and the stream of
//! re-synthesised Responses events (`events.rs`).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use gateway_core::domain::SendState;
use gateway_core::fault::Fault;
use gateway_core::provider::{AttemptFailure, FrameStream, StreamFailure, UpstreamCall, UpstreamEvent, UpstreamReply};
use gateway_protocol::{ApiError, ErrorCode, SseFrame, SseFramer};
use gateway_transport::{Body, HttpClient, HttpRequest, HttpResponse};
use serde_json::Value;
use time::OffsetDateTime;

use crate::classify::{MAX_ERROR_BODY, classify, classify_transport, is_reasoning_decode_failure};
use crate::continuation::{self, Held, TranscriptRecorder, Transcripts};
use crate::credential::XaiCredential;
use crate::events::{Translated, Translator};
use crate::headers::{self, CallHeaders};
use crate::reasoning::strip_ciphertext;
use crate::replay::{Recorder, ReplayCache, ReplayKey};
use crate::request::{self, NormalizationError};
use crate::tools::ToolMap;
use crate::version_check::ClientVersion;

pub struct Transport {
    http: HttpClient,
    responses_url: http::Uri,
    /// `{api}/responses/compact` (api.x.ai, PROTOCOL H.6).
    pub(crate) compact_url: http::Uri,
    version: ClientVersion,
    agent_id: String,
    pub(crate) stream_idle_timeout: Duration,
    replay: Arc<ReplayCache>,
    /// Replay continuation (PROTOCOL H.3); `None` keeps no transcripts.
    transcripts: Option<Arc<Transcripts>>,
}

/// How a request continues an earlier response.
pub enum Continuing<'a> {
    /// Not a continuation.
    No,
    /// xAI holds `id` for this account; `held` is the gateway's transcript of it, if any (the
    /// replay fallback, and the start of this turn's own transcript).
    Native { id: &'a str, held: Option<Held> },
    /// The held transcript goes in front of the new input.
    Replay(Held),
}

impl Transport {
    pub fn new(
        http: HttpClient,
        urls: (&str, &str),
        version: ClientVersion,
        stream_idle_timeout: Duration,
    ) -> Result<Self, String> {
        let (inference_url, api_url) = urls;
        let uri = |url: String| {
            let parsed = url.parse::<http::Uri>().map_err(|_| format!("`{url}` is not a valid URL"))?;
            gateway_transport::Target::from_uri(&parsed).map_err(|_| format!("`{url}` is not usable"))?;
            Ok::<_, String>(parsed)
        };
        let responses_url = uri(format!("{}/responses", inference_url.trim_end_matches('/')))?;
        let compact_url = uri(format!("{}/responses/compact", api_url.trim_end_matches('/')))?;
        let agent_id = uuid::Uuid::new_v4().to_string();
        let replay = Arc::new(ReplayCache::default());
        Ok(Self { http, responses_url, compact_url, version, agent_id, stream_idle_timeout, replay, transcripts: None })
    }

    /// Keeps continuation transcripts in `transcripts` (replay continuation, PROTOCOL H.3).
    pub fn keep_transcripts(&mut self, transcripts: Arc<Transcripts>) {
        self.transcripts = Some(transcripts);
    }

    pub fn transcripts(&self) -> Option<&Arc<Transcripts>> {
        self.transcripts.as_ref()
    }

    /// The reasoning replay cache of this process (PROTOCOL H.7).
    pub fn replay(&self) -> &Arc<ReplayCache> {
        &self.replay
    }

    pub fn version(&self) -> &ClientVersion {
        &self.version
    }

    /// Sends `call` as `upstream_model` and returns at the response headers. A history whose
    /// reasoning ciphertext xAI cannot decrypt (another account's) is sent once more without it
    /// (PROTOCOL H.5), on the same account and credential. A native continuation that xAI no
    /// longer holds (404, or its reasoning not decrypted) is replayed from the held transcript
    /// on the same account, or is `ContinuationLost` without one, before anything reached the
    /// client.
    pub async fn send(
        &self,
        call: &UpstreamCall<'_>,
        credential: &XaiCredential,
        upstream_model: &str,
        continuing: Continuing<'_>,
    ) -> Result<UpstreamReply, AttemptFailure> {
        let scope = call.client_key.0.to_string();
        let mut prepared = request::prepare(call.body, upstream_model, &scope).map_err(normalization_failure)?;
        if prepared.compaction {
            prepared.body = crate::inband::body(&prepared.body).map_err(normalization_failure)?;
        }
        let serving = call.account.id();
        let fresh = prepared.body.clone();
        let mut body = match &continuing {
            Continuing::No => Ok(prepared.body.clone()),
            Continuing::Native { id, .. } => request::with_previous_response(&prepared.body, id),
            Continuing::Replay(held) => continuation::prepend(&prepared.body, held.for_account(serving)),
        }
        .map_err(normalization_failure)?;
        let native = matches!(continuing, Continuing::Native { .. });
        // Reasoning the client did not send back, from this account's previous turn (H.7); not
        // with a native continuation, where xAI holds the turn.
        let replay_key = prepared.session.clone().filter(|_| !native).map(|session| ReplayKey {
            model: upstream_model.to_owned(),
            session,
            account: serving,
        });
        if let Some(filled) = replay_key.as_ref().and_then(|key| self.replay.fill(key, &body)) {
            body = request::rewrite_history(filled, &prepared.tools);
        }
        // Held items that precede the body in this turn's transcript (`None`: keep none).
        let earlier = match &continuing {
            Continuing::Native { held, .. } => held.as_ref().map(|held| held.for_account(serving)),
            _ => Some(Vec::new()),
        };
        let version = self.version.current();
        let started = Instant::now();
        // A compaction goes without `prompt_cache_key`, so without the session headers too.
        let session = prepared.session.as_deref().filter(|_| !prepared.compaction);
        let head = Head { call, credential, model: upstream_model, session, version: &version };
        let sent = self.answer(&head, &continuing, &fresh, body, earlier).await?;
        let (body, earlier) = (sent.body, sent.earlier);
        let response = match sent.answer {
            Answer::Stream(response) => *response,
            Answer::Refused { status, body, retry_after, source } => {
                return Err(self.refused(status, &body, retry_after, source, &version));
            }
        };
        let idle = self.stream_idle_timeout;
        let stream = if prepared.compaction {
            let replay = replay_key.map(|key| (self.replay.clone(), key));
            crate::inband::frames(frames(response, idle, Recorders::default(), prepared.tools), replay)
        } else {
            let recorders = Recorders {
                replay: replay_key.map(|key| Recorder::new(self.replay.clone(), key)),
                transcript: self
                    .transcripts
                    .as_ref()
                    .zip(earlier)
                    .map(|(transcripts, earlier)| transcripts.recorder(call.client_key, serving, earlier, &body)),
            };
            frames(response, idle, recorders, prepared.tools)
        };
        Ok(UpstreamReply {
            frames: stream,
            quota: None,
            served_model: Some(upstream_model.to_owned()),
            forward_headers: Vec::new(),
            connect_time: None,
            headers_time: started.elapsed(),
            transport: gateway_core::domain::Transport::Http,
        })
    }

    /// Posts `body`; a native continuation xAI no longer holds is replayed from the held
    /// transcript (or is `ContinuationLost`), and a history whose ciphertext xAI cannot
    /// decrypt is sent once more without it.
    async fn answer(
        &self,
        head: &Head<'_, '_>,
        continuing: &Continuing<'_>,
        fresh: &[u8],
        mut body: Vec<u8>,
        mut earlier: Option<Vec<Value>>,
    ) -> Result<Sent, AttemptFailure> {
        let mut answer = self.post(&self.responses_url, head, body.clone(), STREAM).await?;
        if let Answer::Refused { status, body: refusal, .. } = &answer
            && let Continuing::Native { held, .. } = continuing
            && (*status == 404 || is_reasoning_decode_failure(*status, refusal))
        {
            let Some(held) = held else {
                return Err(AttemptFailure::new(
                    Fault::PreviousResponseNotFound,
                    SendState::NotSent,
                    "xAI no longer holds the response to continue",
                ));
            };
            tracing::info!("xAI no longer holds the response to continue; replaying the gateway's transcript");
            let items = held.for_account(head.call.account.id());
            body = continuation::prepend(fresh, items).map_err(normalization_failure)?;
            earlier = Some(Vec::new());
            answer = self.post(&self.responses_url, head, body.clone(), STREAM).await?;
        }
        if let Answer::Refused { status, body: refusal, .. } = &answer
            && is_reasoning_decode_failure(*status, refusal)
            && let Some(stripped) = strip_ciphertext(&body)
        {
            tracing::info!("xAI could not decrypt reasoning of the history; sending it once more without ciphertext");
            body = stripped;
            answer = self.post(&self.responses_url, head, body.clone(), STREAM).await?;
        }
        Ok(Sent { body, earlier, answer })
    }

    /// The failure of a refused call; a 426 asks for a version check.
    pub(crate) fn refused(
        &self,
        status: u16,
        body: &[u8],
        retry_after: Option<i64>,
        source: gateway_transport::ErrorSource,
        version: &str,
    ) -> AttemptFailure {
        let failure = classify(status, body, retry_after, source, OffsetDateTime::now_utc());
        if failure.fault == Fault::ClientVersionRejected {
            tracing::warn!(version = %version, "xAI rejected the Grok CLI version; asking for a version check");
            self.version.request_check();
        }
        failure
    }

    /// One POST of `body` to `uri` with the inference headers (a fresh `x-grok-req-id` each
    /// time) accepting `accept`.
    pub(crate) async fn post(
        &self,
        uri: &http::Uri,
        head: &Head<'_, '_>,
        body: Vec<u8>,
        accept: &'static str,
    ) -> Result<Answer, AttemptFailure> {
        let attempt_id = uuid::Uuid::new_v4().to_string();
        let request_id = head.call.request.to_string();
        let call_headers = CallHeaders {
            client_version: head.version,
            model: head.model,
            request_id: &request_id,
            attempt_id: &attempt_id,
            agent_id: &self.agent_id,
            session: head.session,
            traceparent: head.call.traceparent,
        };
        let mut headers = headers::inference(head.credential, &call_headers).map_err(|_| {
            AttemptFailure::new(
                Fault::CredentialMalformed,
                SendState::NotSent,
                "the stored access token is not a valid header value",
            )
        })?;
        headers.insert(http::header::ACCEPT, http::HeaderValue::from_static(accept));
        let request = HttpRequest {
            method: http::Method::POST,
            uri: uri.clone(),
            headers,
            body: Body::from_parts([bytes::Bytes::from(body)]),
        };
        let proxy = crate::egress::proxy_of(head.call.account)?;
        let response =
            match tokio::time::timeout(head.call.header_timeout, self.http.send(request, proxy.as_ref())).await {
                Err(_) => {
                    return Err(AttemptFailure::new(
                        Fault::UpstreamHeadTimeout,
                        SendState::Ambiguous,
                        "no upstream answer before the header timeout",
                    ));
                }
                Ok(Err(error)) => return Err(classify_transport(&error)),
                Ok(Ok(response)) => response,
            };
        let status = response.status.as_u16();
        if status == 200 {
            return Ok(Answer::Stream(Box::new(response)));
        }
        let retry_after = gateway_transport::retry_after(&response.headers, std::time::SystemTime::now())
            .and_then(|wait| i64::try_from(wait.as_secs()).ok());
        let headers = response.headers.clone();
        let body =
            tokio::time::timeout(Duration::from_secs(10), response.prefix(MAX_ERROR_BODY)).await.unwrap_or_default();
        let source = gateway_transport::error_source(&headers, &body);
        Ok(Answer::Refused { status, body, retry_after, source })
    }
}

const STREAM: &str = "text/event-stream";

/// What one call needs for its headers.
pub(crate) struct Head<'a, 'c> {
    pub(crate) call: &'a UpstreamCall<'c>,
    pub(crate) credential: &'a XaiCredential,
    pub(crate) model: &'a str,
    pub(crate) session: Option<&'a str>,
    pub(crate) version: &'a str,
}

/// What [`Transport::answer`] sent last and how it was answered.
struct Sent {
    body: Vec<u8>,
    /// Held items in front of `body` in the turn's transcript (`None`: keep no transcript).
    earlier: Option<Vec<Value>>,
    answer: Answer,
}

/// The upstream's answer at its headers.
pub(crate) enum Answer {
    Stream(Box<HttpResponse>),
    Refused { status: u16, body: Vec<u8>, retry_after: Option<i64>, source: gateway_transport::ErrorSource },
}

/// A body the proxy cannot take: the client's fault, nothing sent, no account touched.
pub(crate) fn normalization_failure(error: NormalizationError) -> AttemptFailure {
    let mut api = ApiError::new(ErrorCode::InvalidRequest, format!("Invalid request for xAI: {error}."));
    api.upstream_code = Some("invalid_request_normalization".to_owned());
    if let Some(param) = Some(error.field).filter(|f| *f != "body") {
        api = api.with_param(param);
    }
    AttemptFailure::rejected(api, SendState::NotSent, "invalid_request_normalization")
}

fn stream_failure(message: &str, idle_timeout: bool) -> StreamFailure {
    StreamFailure { message: message.to_owned(), idle_timeout }
}

/// What watches one stream: the reasoning replay cache (H.7) and the continuation transcript
/// (H.3).
#[derive(Default)]
pub struct Recorders {
    pub replay: Option<Recorder>,
    pub transcript: Option<TranscriptRecorder>,
}

/// The upstream body as clean Responses frames; a body that ends before the terminal event is
/// a stream failure. `recorders` see every frame passed on; a completed response's transcript
/// is kept before its terminal frame is passed on, so the client's next turn finds it. Calls of
/// tools `tools` renamed are given back their client shape.
pub fn frames(mut response: HttpResponse, idle: Duration, recorders: Recorders, tools: ToolMap) -> FrameStream {
    struct State {
        body: HttpResponse,
        framer: SseFramer,
        translator: Translator,
        recorders: Recorders,
        pending: VecDeque<SseFrame>,
        finished: bool,
    }
    let translator = Translator::with_tools(tools);
    let pending = VecDeque::new();
    response.release_headers();
    let state = State { body: response, framer: SseFramer::new(), translator, recorders, pending, finished: false };
    futures_util::stream::unfold(state, move |mut state| async move {
        loop {
            if let Some(frame) = state.pending.pop_front() {
                if let Some(recorder) = state.recorders.replay.as_mut() {
                    recorder.observe(&frame);
                }
                if let Some(recorder) = state.recorders.transcript.as_mut()
                    && let Some(completed) = recorder.observe(&frame)
                {
                    recorder.finish(completed).await;
                }
                return Some((Ok(UpstreamEvent::Frame(frame)), state));
            }
            if state.finished {
                return None;
            }
            match state.framer.next_frame() {
                Ok(Some(frame)) => match state.translator.translate(&frame) {
                    Translated::Frames(frames) => {
                        state.pending.extend(frames);
                        continue;
                    }
                    Translated::Dropped => continue,
                    Translated::Mismatch => {
                        state.finished = true;
                        let failure = stream_failure("the terminal event names another response", false);
                        return Some((Err(failure), state));
                    }
                },
                Ok(None) => {}
                Err(err) => {
                    state.finished = true;
                    return Some((Err(stream_failure(&err.to_string(), false)), state));
                }
            }
            if state.translator.finished() {
                return None;
            }
            match tokio::time::timeout(idle, state.body.chunk()).await {
                Err(_) => {
                    state.finished = true;
                    return Some((Err(stream_failure("the upstream stream went idle", true)), state));
                }
                Ok(Some(Ok(chunk))) => state.framer.push(&chunk),
                Ok(Some(Err(_))) => {
                    state.finished = true;
                    return Some((Err(stream_failure("the upstream stream broke", false)), state));
                }
                Ok(None) => {
                    state.finished = true;
                    if state.translator.finished() {
                        return None;
                    }
                    return Some((
                        Err(stream_failure("the upstream stream ended before its terminal event", false)),
                        state,
                    ));
                }
            }
        }
    })
    .boxed()
}
