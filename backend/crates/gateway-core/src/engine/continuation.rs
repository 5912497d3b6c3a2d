//! `previous_response_id`: which account and which upstream socket may continue a response.
//!
//! Order for OpenAI (SPEC §5): native → replay on the owner → replay any. With `store:false` the
//! state a continuation needs lives only on the upstream WebSocket that produced the response,
//! and the OpenAI provider holds no portable transcript, so only the native stage exists: the
//! owner's live socket continues it. When the owner cannot (the socket is gone, another replica
//! holds it, the owner is disabled, exhausted or out of the key's scope), the client receives
//! 400 `previous_response_not_found` and official clients resend the full history. Another
//! key's response id is indistinguishable from an unknown one (fails closed).

use gateway_protocol::ApiError;

use super::Engine;
use super::failover::previous_response_not_found;
use crate::coordination::{ContinuationPin, PinLookup, PinScope};
use crate::domain::{AccountId, ProviderKind};
use crate::provider::UpstreamRoute;
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
    pub provider: ProviderKind,
    pub owner: AccountId,
    pub route: UpstreamRoute,
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
        return usable(snapshot, key, provider, owner).map(|()| Continuation {
            provider,
            owner,
            route: UpstreamRoute::Socket { conversation: session.conversation },
        });
    }
    let pin = match engine.pins.lookup(previous.as_bytes(), key.record.id).await {
        Ok(PinLookup::Found(pin)) => pin,
        Ok(PinLookup::NotFound | PinLookup::NotYours) => return Err(previous_response_not_found()),
        Err(error) => return Err(super::attempts::coordination_error(error)),
    };
    usable(snapshot, key, pin.provider, pin.account)?;
    Ok(Continuation {
        provider: pin.provider,
        owner: pin.account,
        route: UpstreamRoute::Continue {
            response_id: previous.to_owned(),
            conversation: session.map(|s| s.conversation),
        },
    })
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
