//! `GET /api/admin/events`: one Server-Sent Events stream for live changes.
//!
//! Events (each `data` is JSON):
//! - `hello` `{configRevision}` — once, at connect;
//! - `config_revision` `{configRevision}` — a replica committed a configuration change (Redis
//!   change notification); `resync` `{}` — notifications may have been missed: refetch;
//! - `account` `{id, state, stateReason, stateUntil, enabled, inFlight, quotaState,
//!   quotaWindows}` — an account's live facts changed (polled every `live_poll`; the first poll
//!   sends every account);
//! - `account_removed` `{id}`;
//! - `ops_event` — a new ops event (same shape as the ops list items);
//! - `request` — a usage record that started since the stream connected, when first seen and
//!   when its status changes (same shape as the usage record list items; [`requests`]);
//! - `backup` — a backup record (same shape as the backup list items) that appeared or changed
//!   among the newest ten, `backup_removed` `{id}` — one was deleted ([`backups`]);
//! - `error` `{code, message}` — one poll failed; the stream continues.
//!
//! Keep-alive comments every 15 s. No `Last-Event-ID` resume yet: a client reconnects and
//! refetches what it shows. Before every poll the stream checks that its session is still live
//! and its admin still admitted (`gateway_admin::auth::still_signed_in`, without extending the
//! session); when not, the stream ends (a reconnect then gets 401).

mod backups;
mod requests;

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::time::Duration;

use axum::Extension;
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use gateway_admin::auth::AdminPrincipal;
use gateway_admin::services::observability::LiveStart;
use gateway_core::coordination::{ChangeEvent, ChangeSubscription};
use gateway_core::snapshot::resolve_account_state;
use serde_json::{Value, json};
use time::OffsetDateTime;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::admin::AdminApi;
use crate::admin::account_view::state_parts;
use crate::admin::envelope::{ApiResult, ErrorBody};
use crate::admin::ops_routes::OpsEventItem;

pub fn routes() -> OpenApiRouter<AdminApi> {
    OpenApiRouter::new().routes(routes!(events))
}

struct LiveState {
    api: AdminApi,
    principal: AdminPrincipal,
    subscription: Option<ChangeSubscription>,
    tick: tokio::time::Interval,
    accounts: HashMap<i64, Value>,
    last_ops_id: i64,
    requests: requests::RequestWatch,
    backups: backups::BackupWatch,
    pending: VecDeque<Event>,
}

fn event(name: &str, data: &Value) -> Event {
    Event::default().event(name).data(data.to_string())
}

impl LiveState {
    /// A failed check (Redis or PostgreSQL down) ends the stream too: it fails closed.
    async fn signed_in(&self) -> bool {
        self.api.services.auth.still_signed_in(&self.principal, OffsetDateTime::now_utc()).await.unwrap_or(false)
    }

    async fn poll(&mut self) {
        if let Err((code, message)) = self.poll_accounts().await {
            self.pending.push_back(event("error", &json!({"code": code, "message": message})));
        }
        if let Err((code, message)) = self.poll_ops().await {
            self.pending.push_back(event("error", &json!({"code": code, "message": message})));
        }
        match self.requests.poll(&self.api.services.observability).await {
            Ok(records) => self.pending.extend(records.iter().map(|r| event("request", r))),
            Err(e) => self.pending.push_back(event("error", &json!({"code": e.code(), "message": e.public_message()}))),
        }
        match self.backups.poll(&self.api.services.observability).await {
            Ok(changes) => self.pending.extend(changes.iter().map(|(name, data)| event(name, data))),
            Err(e) => self.pending.push_back(event("error", &json!({"code": e.code(), "message": e.public_message()}))),
        }
    }

    async fn poll_accounts(&mut self) -> Result<(), (String, String)> {
        let fail = |e: gateway_admin::AdminError| (e.code().to_owned(), e.public_message());
        let accounts = self.api.services.accounts.live().await.map_err(fail)?;
        let now = OffsetDateTime::now_utc();
        let mut seen = HashMap::with_capacity(accounts.len());
        for live in &accounts {
            let account = &live.record;
            let (state, reason, until) = state_parts(&resolve_account_state(account, live.cooldown, now));
            let facts = json!({
                "id": account.id.0,
                "state": state,
                "stateReason": reason,
                "stateUntil": until.and_then(|u| u.format(&time::format_description::well_known::Rfc3339).ok()),
                "enabled": account.scheduling.enabled,
                "inFlight": live.in_flight,
                "quotaState": account.quota.state.as_str(),
                "quotaWindows": crate::admin::account_view::QuotaWindowView::list(&account.quota.windows),
            });
            if self.accounts.get(&account.id.0) != Some(&facts) {
                self.pending.push_back(event("account", &facts));
            }
            seen.insert(account.id.0, facts);
        }
        for id in self.accounts.keys().filter(|id| !seen.contains_key(id)) {
            self.pending.push_back(event("account_removed", &json!({"id": id})));
        }
        self.accounts = seen;
        Ok(())
    }

    async fn poll_ops(&mut self) -> Result<(), (String, String)> {
        let rows = self
            .api
            .services
            .observability
            .ops_events_after(self.last_ops_id, 100)
            .await
            .map_err(|e| (e.code().to_owned(), e.public_message()))?;
        for row in &rows {
            self.last_ops_id = self.last_ops_id.max(row.id);
            let item = serde_json::to_value(OpsEventItem::from(row)).unwrap_or_default();
            self.pending.push_back(event("ops_event", &item));
        }
        Ok(())
    }

    async fn next_event(mut self) -> Option<(Result<Event, Infallible>, Self)> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                return Some((Ok(event), self));
            }
            let change = async {
                match self.subscription.as_mut() {
                    Some(subscription) => subscription.next().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                change = change => match change {
                    Some(ChangeEvent::ConfigRevision(revision)) => {
                        self.pending.push_back(event("config_revision", &json!({"configRevision": revision})));
                    }
                    Some(ChangeEvent::Resync) => self.pending.push_back(event("resync", &json!({}))),
                    None => self.subscription = None,
                },
                _ = self.tick.tick() => {
                    if !self.signed_in().await {
                        return None;
                    }
                    self.poll().await;
                }
            }
        }
    }
}

/// The live stream (`text/event-stream`); see the module documentation for the events.
#[utoipa::path(get, path = "/api/admin/events", tag = "live",
    responses(
        (status = 200, description = "Server-Sent Events: hello, config_revision, resync, account, account_removed, ops_event, request, backup, backup_removed, error", content_type = "text/event-stream"),
        (status = "4XX", body = ErrorBody)))]
pub async fn events(
    State(api): State<AdminApi>,
    Extension(principal): Extension<AdminPrincipal>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    // Without Redis the stream still polls; it only misses the faster revision notifications.
    let LiveStart { revision, last_ops_id, subscription } = api.services.observability.live_start().await?;
    let mut tick = tokio::time::interval(api.config.live_poll.max(Duration::from_millis(200)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut pending = VecDeque::new();
    pending.push_back(event("hello", &json!({"configRevision": revision.0})));
    let requests = requests::RequestWatch::new(OffsetDateTime::now_utc());
    let backups = backups::BackupWatch::default();
    let state = LiveState {
        api,
        principal,
        subscription,
        tick,
        accounts: HashMap::new(),
        last_ops_id,
        requests,
        backups,
        pending,
    };
    let stream = futures_util::stream::unfold(state, LiveState::next_event);
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}
