//! The alerts the attempt phases raise: an account the upstream calls deactivated, and a
//! request no account of its key's pool could take. Raised on the failure path only.

use time::OffsetDateTime;

use crate::alerts::{Alert, AlertKind};
use crate::domain::{AccountId, ProviderKind};
use crate::engine::{Engine, RequestContext};
use crate::fault::Fault;
use crate::provider::AttemptFailure;

pub(super) fn account_failed(engine: &Engine, provider: ProviderKind, account: AccountId, failure: &AttemptFailure) {
    if failure.fault != Fault::AccountDeactivated || !engine.alerts.is_enabled() {
        return;
    }
    engine.alerts.raise(Alert {
        kind: AlertKind::AccountBanned,
        occurred_at: OffsetDateTime::now_utc(),
        provider: Some(provider),
        account_id: Some(account),
        client_key_id: None,
        reason: failure.fault.as_str().to_owned(),
        message: format!("The upstream reports account {account} as deactivated; it is skipped until re-authorised."),
    });
}

pub(super) fn pool_empty(engine: &Engine, ctx: &RequestContext) {
    if !engine.alerts.is_enabled() {
        return;
    }
    let key = ctx.key.record.id;
    engine.alerts.raise(Alert {
        kind: AlertKind::PoolEmpty,
        occurred_at: OffsetDateTime::now_utc(),
        provider: None,
        account_id: None,
        client_key_id: Some(key),
        reason: "no_available_account".to_owned(),
        message: format!("No account of client key {key}'s pool could take a request."),
    });
}
