//! Egress faults (a challenge, an edge block, a dead proxy): the path they blame is avoided —
//! by this request, and by new requests for as long as the account cools down — and an ops
//! event records each one.

use std::time::Instant;

use time::OffsetDateTime;

use super::{Attempts, RequestContext};
use crate::coordination::{AccountCandidate, AccountFeedback};
use crate::domain::{AccountId, OpsEvent, OpsLevel, ProviderKind};
use crate::engine::Engine;
use crate::engine::record::RequestRecord;
use crate::fault::table::EDGE_COOLDOWN_BASE;
use crate::observation::Observation;
use crate::provider::AttemptFailure;
use crate::snapshot::AccountEntry;

/// `account`'s path is avoided by the rest of this request, and by new requests while the
/// account cools down.
pub(super) fn avoid(engine: &Engine, state: &mut Attempts, account: &AccountEntry, feedback: Option<&AccountFeedback>) {
    let path = account.egress_path();
    if !state.avoid_paths.iter().any(|p| p == path) {
        state.avoid_paths.push(path.to_owned());
    }
    let lasting = match feedback {
        Some(AccountFeedback::Cooldown { duration, .. }) => *duration,
        _ => EDGE_COOLDOWN_BASE,
    };
    engine.fault_memory.avoid_path(path, Instant::now() + lasting);
}

/// `offered` without the candidates behind avoided paths, unless every candidate is behind one
/// (then all of them: an avoided path is a preference, not an exclusion).
pub(super) fn prefer_other_paths(
    engine: &Engine,
    ctx: &RequestContext,
    state: &Attempts,
    offered: Vec<AccountCandidate>,
) -> Vec<AccountCandidate> {
    let remembered = engine.fault_memory.avoided_paths(Instant::now());
    if state.avoid_paths.is_empty() && remembered.is_empty() {
        return offered;
    }
    let avoided = |candidate: &AccountCandidate| {
        ctx.snapshot.account(candidate.account).is_some_and(|account| {
            let path = account.egress_path();
            state.avoid_paths.iter().chain(&remembered).any(|p| p == path)
        })
    };
    if offered.iter().all(avoided) {
        return offered;
    }
    offered.into_iter().filter(|candidate| !avoided(candidate)).collect()
}

/// The ops event of `failure`'s row, if it has one.
pub(super) fn raise_ops_event(
    engine: &Engine,
    provider: ProviderKind,
    record: &RequestRecord,
    account: AccountId,
    failure: &AttemptFailure,
) {
    let row = failure.row();
    let Some(kind) = row.ops_event else { return };
    let details = serde_json::json!({
        "fault": row.code(),
        "blame": row.blame.as_str(),
        "httpStatus": failure.http_status,
    });
    engine.observations.push(Observation::Ops(Box::new(OpsEvent {
        occurred_at: OffsetDateTime::now_utc(),
        level: OpsLevel::Warn,
        kind: kind.to_owned(),
        provider: Some(provider),
        account_id: Some(account),
        request_id: Some(record.id),
        message: failure.message.clone(),
        details,
    })));
}
