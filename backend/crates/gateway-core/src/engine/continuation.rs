//! `previous_response_id`: which account and which upstream socket may continue a response.
//!
//! Order (SPEC §5, PROTOCOL H.3): native → replay. *Native*: the response's owner continues it
//! (an OpenAI upstream WebSocket that produced it, or an xAI response stored upstream and pinned
//! to its account). *Replay*: a provider that keeps transcripts itself
//! ([`Provider::replays_continuations`](crate::provider::Provider::replays_continuations), xAI)
//! continues the response on any of its eligible accounts; the engine routes the request there
//! as an ordinary HTTP call and the provider answers `ContinuationLost` when it holds no
//! transcript. Replay is chosen when the id is not pinned, or its owner no longer exists, is
//! disabled, or lies outside the key's scope. The OpenAI provider holds no portable transcript:
//! with `store:false` the state lives only on the owner's live socket, so when the owner cannot
//! continue it the client receives 400 `previous_response_not_found` and official clients
//! resend the full history. Another key's response id is indistinguishable from an unknown one
//! (fails closed: its pin is never used, and transcripts are keyed by the client key).

use gateway_protocol::ApiError;

use super::Engine;
use super::failover::previous_response_not_found;
use crate::coordination::{ContinuationPin, PinLookup, PinScope};
use crate::domain::{AccountId, ProviderKind};
use crate::provider::{ProviderSet, UpstreamRoute};
use crate::snapshot::{KeyEntry, RuntimeSnapshot};

/// A client WebSocket's own continuation state.
#[derive(Debug, Clone, Default)]
pub struct SocketSession {
    /// Identifies the client socket; its upstream socket is bound to it.
    pub conversation: u64,
    /// The last response this socket completed, and where it ran.
    pub last_response: Option<String>,
    pub bound: Option<(ProviderKind, AccountId)>,
}

/// Where a continuation must run.
#[derive(Debug, Clone)]
pub struct Continuation {
    /// The providers that may serve it (one for a native continuation).
    pub providers: Vec<ProviderKind>,
    /// The one account that may serve it (native); `None` for a replay.
    pub owner: Option<AccountId>,
    pub route: UpstreamRoute,
}

impl Continuation {
    fn native(provider: ProviderKind, owner: AccountId, route: UpstreamRoute) -> Self {
        Self { providers: vec![provider], owner: Some(owner), route }
    }
}

pub async fn resolve(
    engine: &Engine,
    snapshot: &RuntimeSnapshot,
    key: &KeyEntry,
    previous: &str,
    session: Option<&SocketSession>,
) -> Result<Continuation, ApiError> {
    if let Some(session) = session
        && session.last_response.as_deref() == Some(previous)
        && let Some((provider, owner)) = session.bound
    {
        // The socket's own last response: its bound upstream socket holds the state.
        return usable(snapshot, key, provider, owner).map(|()| {
            Continuation::native(provider, owner, UpstreamRoute::Socket { conversation: session.conversation })
        });
    }
    let pin = match engine.pins.lookup(previous.as_bytes(), key.record.id).await {
        Ok(PinLookup::Found(pin)) => pin,
        Ok(PinLookup::NotFound) => return replay(&engine.providers, None),
        Ok(PinLookup::NotYours) => return Err(previous_response_not_found()),
        Err(error) => return Err(super::attempts::coordination_error(error)),
    };
    if usable(snapshot, key, pin.provider, pin.account).is_err() {
        // The owner cannot serve: a provider holding a transcript continues on another account.
        return replay(&engine.providers, Some(pin.provider));
    }
    Ok(Continuation::native(
        pin.provider,
        pin.account,
        UpstreamRoute::Continue { response_id: previous.to_owned(), conversation: session.map(|s| s.conversation) },
    ))
}

/// A replay continuation by the providers that keep transcripts (only `provider`'s when the
/// response is known to come from it), else `previous_response_not_found`.
fn replay(providers: &ProviderSet, provider: Option<ProviderKind>) -> Result<Continuation, ApiError> {
    let providers: Vec<ProviderKind> = providers
        .iter()
        .filter(|p| p.replays_continuations() && provider.is_none_or(|only| p.kind() == only))
        .map(|p| p.kind())
        .collect();
    if providers.is_empty() {
        return Err(previous_response_not_found());
    }
    Ok(Continuation { providers, owner: None, route: UpstreamRoute::Http })
}

/// The owner must still exist, be enabled with a working credential and lie in the key's
/// current scope.
fn usable(
    snapshot: &RuntimeSnapshot,
    key: &KeyEntry,
    provider: ProviderKind,
    owner: AccountId,
) -> Result<(), ApiError> {
    let account = snapshot.account(owner).ok_or_else(previous_response_not_found)?;
    if account.provider() != provider || !account.is_schedulable() || !snapshot.in_scope(&key.scope, owner) {
        return Err(previous_response_not_found());
    }
    Ok(())
}

/// The pin written when a continuable response starts, before its id reaches the client.
pub fn pin_for(key: &KeyEntry, provider: ProviderKind, account: AccountId, response_id: &str) -> ContinuationPin {
    let scope = match &key.record.scope {
        crate::domain::KeyScope::AllAccounts => PinScope::All,
        crate::domain::KeyScope::Groups(ids) => {
            let mut ids = ids.clone();
            ids.sort_unstable();
            ids.dedup();
            PinScope::Groups(ids)
        }
    };
    ContinuationPin {
        client_key: key.record.id,
        scope,
        provider,
        account,
        upstream_response_id: Some(response_id.as_bytes().to_vec()),
    }
}
