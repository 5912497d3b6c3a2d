//! Calls that go over an upstream WebSocket: client WebSocket sessions and continuations of a
//! response that a live upstream socket holds. Falls back to HTTP SSE on the same account when
//! the handshake fails (426, network), before anything is committed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use gateway_core::domain::{SendState, Transport as ClientTransport};
use gateway_core::fault::Fault;
use gateway_core::provider::{AttemptFailure, UpstreamCall, UpstreamEvent, UpstreamReply, UpstreamRoute};
use gateway_protocol::request::RequestBody;

use crate::credential::OpenAiCredential;
use crate::transport::Transport;
use crate::websocket::{
    HandshakeFailure, PooledSocket, PrewarmMemory, SocketPool, WsEndpoint, exchange, ws_frame_body,
};

pub struct SocketRoute {
    pub pool: SocketPool,
    pub prewarms: PrewarmMemory,
    pub endpoint: WsEndpoint,
    pub first_frame_timeout: Duration,
    pub idle_timeout: Duration,
}

impl SocketRoute {
    pub async fn execute(
        &self,
        call: &UpstreamCall<'_>,
        credential: &OpenAiCredential,
        http: &Transport,
    ) -> Result<UpstreamReply, AttemptFailure> {
        let account = call.account.id();
        let (conversation, target) = match call.route {
            UpstreamRoute::Socket { conversation } => (Some(*conversation), None),
            UpstreamRoute::Continue { response_id, conversation } => (*conversation, Some(response_id.as_str())),
            UpstreamRoute::Http => return http.send(call, credential).await,
        };
        let previous = call.view.string(call.body, "previous_response_id").ok().flatten();
        if let Some(previous) = previous.as_deref().filter(|p| self.prewarms.knows(call.client_key, p)) {
            // The previous response was our own synthetic prewarm: replay it over HTTP.
            return self.replay_prewarm(call, credential, http, previous).await;
        }
        let started = Instant::now();
        let mut fresh = false;
        let pooled = match target {
            Some(response_id) => match self.pool.for_response(account, response_id) {
                Some(socket) => socket,
                None => return Err(lost()),
            },
            None => match conversation.and_then(|c| self.pool.for_conversation(account, c)) {
                Some(socket) => socket,
                None => {
                    fresh = true;
                    match self.open(call, credential, http, conversation).await {
                        Ok(Some(socket)) => socket,
                        Ok(None) => return self.fall_back(call, credential, http, previous.is_some()).await,
                        Err(failure) => return Err(failure),
                    }
                }
            },
        };
        pooled.bind(conversation);
        let frame = ws_frame_body(call, &http.identity(call, credential));
        let result = match exchange(pooled.clone(), frame.clone(), self.first_frame_timeout, self.idle_timeout).await {
            Err(crate::websocket::exchange::ExchangeFailure::Stale) if previous.is_none() && !fresh => {
                // A pooled socket died while idle (or hit its age limit): one fresh socket.
                let Some(socket) = self.open(call, credential, http, conversation).await? else {
                    return self.fall_back(call, credential, http, false).await;
                };
                exchange(socket, frame, self.first_frame_timeout, self.idle_timeout).await
            }
            other => other,
        };
        match result {
            Ok((frames, quota)) => Ok(UpstreamReply {
                frames,
                quota,
                served_model: None,
                forward_headers: Vec::new(),
                connect_time: None,
                headers_time: started.elapsed(),
                transport: ClientTransport::Websocket,
            }),
            // Even a fresh socket could not take the frame (the upstream dropped it mid-send, as
            // servers do with a frame above their limit): HTTP SSE on the same account, like a
            // refused handshake. Neither the account nor the provider is blamed for it.
            Err(crate::websocket::exchange::ExchangeFailure::Stale) => {
                tracing::info!(account = %account, "the upstream socket did not take the frame; using HTTP SSE");
                self.fall_back(call, credential, http, previous.is_some()).await
            }
            Err(crate::websocket::exchange::ExchangeFailure::Failed(failure)) => Err(failure),
        }
    }

    /// A new socket in the pool; `Ok(None)` means "use HTTP" (handshake refused, pool full).
    async fn open(
        &self,
        call: &UpstreamCall<'_>,
        credential: &OpenAiCredential,
        http: &Transport,
        conversation: Option<u64>,
    ) -> Result<Option<Arc<PooledSocket>>, AttemptFailure> {
        let account_id = credential.account_id.as_deref().unwrap_or(&call.account.record.external_account_id);
        let identity = http.identity(call, credential);
        let proxy = crate::egress::proxy_of(call.account)?;
        let connecting = crate::websocket::connect::connect(
            &self.endpoint,
            call.account,
            credential,
            account_id,
            &identity,
            call.client_headers,
            call.traceparent,
            proxy.as_ref(),
        );
        match connecting.await {
            Ok(socket) => Ok(self.pool.insert(call.account.id(), conversation, socket)),
            Err(HandshakeFailure::FallBack(reason)) => {
                tracing::info!(account = %call.account.id(), %reason, "upstream WebSocket refused; using HTTP SSE");
                Ok(None)
            }
            Err(HandshakeFailure::Refused(failure)) => Err(*failure),
        }
    }

    /// HTTP SSE on the same account. A prewarm is answered locally; a turn that depends on an
    /// upstream socket's state cannot be served over HTTP.
    async fn fall_back(
        &self,
        call: &UpstreamCall<'_>,
        credential: &OpenAiCredential,
        http: &Transport,
        continuation: bool,
    ) -> Result<UpstreamReply, AttemptFailure> {
        if continuation {
            return Err(lost());
        }
        if call.view.boolean(call.body, "generate").ok().flatten() == Some(false) {
            let frames = self.prewarms.answer(call.client_key, call.body, call.view, call.upstream_model);
            return Ok(synthetic(frames));
        }
        http.send(call, credential).await
    }

    async fn replay_prewarm(
        &self,
        call: &UpstreamCall<'_>,
        credential: &OpenAiCredential,
        http: &Transport,
        previous: &str,
    ) -> Result<UpstreamReply, AttemptFailure> {
        let kept = self.prewarms.kept(call.client_key, previous).ok_or_else(lost)?;
        let merged = crate::websocket::prewarm::merge(&kept, call.body, call.view).ok_or_else(lost)?;
        let view = RequestBody::parse(&merged).map_err(|_| lost())?;
        let identity = http.identity(call, credential);
        let body = Transport::backend_body(&merged, &view, call.upstream_model, &identity);
        http.send_body(call, credential, body, None).await
    }
}

fn lost() -> AttemptFailure {
    AttemptFailure::new(
        Fault::PreviousResponseNotFound,
        SendState::NotSent,
        "no live upstream socket holds the previous response",
    )
}

fn synthetic(frames: Vec<gateway_protocol::SseFrame>) -> UpstreamReply {
    let stream = futures_util::stream::iter(frames.into_iter().map(|f| Ok(UpstreamEvent::Frame(f)))).boxed();
    UpstreamReply {
        frames: stream,
        quota: None,
        served_model: None,
        forward_headers: Vec::new(),
        connect_time: None,
        headers_time: Duration::ZERO,
        transport: ClientTransport::Http,
    }
}
