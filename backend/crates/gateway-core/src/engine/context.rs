//! The request context: one value per client request that owns what the request arrived with
//! and what the engine decided about it. The plan phase builds it; every later phase reads it,
//! and the provider's [`UpstreamCall`] borrows from it.

use std::sync::Arc;
use std::time::Duration;

use gateway_protocol::request::RequestBody;

use super::InboundRequest;
use super::route_plan::RoutePlan;
use crate::coordination::SessionSignal;
use crate::domain::{AccountId, RequestId};
use crate::provider::{UpstreamCall, UpstreamRoute};
use crate::snapshot::{AccountEntry, KeyEntry, RuntimeSnapshot};

pub struct RequestContext {
    /// The request as the API layer handed it over (body, headers, WebSocket session).
    pub inbound: InboundRequest,
    /// Frozen for the whole request (never re-read mid-request).
    pub snapshot: Arc<RuntimeSnapshot>,
    pub key: Arc<KeyEntry>,
    /// The top level of the body as byte ranges.
    pub view: RequestBody,
    /// The model the client asked for.
    pub model: String,
    /// Whether the client asked for a stream (`stream: true`).
    pub stream: bool,
    pub plan: RoutePlan,
    pub route: UpstreamRoute,
    pub session: Option<SessionSignal>,
    /// A continuation runs only on the account that owns the previous response.
    pub only_account: Option<AccountId>,
}

impl RequestContext {
    /// Whether the client receives events: asked for a stream, or on a client WebSocket (which
    /// always receives events, whatever `stream` says).
    pub fn streams(&self) -> bool {
        self.stream || self.inbound.session.is_some()
    }

    /// The provider call of one attempt: this request on one account (invariant 5).
    pub fn upstream_call<'a>(
        &'a self,
        request: RequestId,
        attempt: u32,
        account: &'a AccountEntry,
        header_timeout: Duration,
    ) -> UpstreamCall<'a> {
        UpstreamCall {
            request,
            attempt,
            operation: self.inbound.operation,
            client_key: self.key.record.id,
            account,
            body: &self.inbound.body,
            view: &self.view,
            upstream_model: &self.plan.upstream_model,
            client_stream: self.stream,
            client_headers: &self.inbound.headers,
            header_timeout,
            route: &self.route,
            traceparent: None,
        }
    }
}
