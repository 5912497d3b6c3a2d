//! Mapping `model_requests` rows to [`ModelRequestRecord`], the one read model, for both
//! dialects (the request log's `get_request` and the admin usage detail).

use gateway_core::domain::{
    AccountId, BootId, ClientKeyId, GroupId, GroupRef, LatencySplits, ModelRequestRecord, NanoUsd, ReplicaName,
    RequestId, RequestOutcome, RequestStart, RoutingSnapshot, Runner, TokenUsage,
};
use gateway_core::ports::StorageError;

use crate::attempt_json::attempts_from_json;
use crate::postgres::column_values::{closed, opt_u32_of, u64_of};
use crate::postgres::error_mapping::corrupt;
use crate::row_columns::RowColumns;

/// The columns [`request_from_row`] reads (`m` is `model_requests`).
macro_rules! request_columns {
    () => {
        "m.id, m.client_key_id, m.provider, m.account_id, m.requested_model, m.upstream_model, m.operation, \
         m.transport, m.stream, m.status, m.send_state, m.http_status, m.error_code, m.attempts, m.input_tokens, \
         m.cached_input_tokens, m.output_tokens, m.reasoning_tokens, m.total_tokens, m.cost_nano_usd, \
         m.service_tier, m.client_response_id, m.upstream_response_id, m.routing_scope, m.routing_groups, \
         m.started_at, m.deadline_at, m.downstream_committed_at, m.finished_at, m.connect_ms, m.headers_ms, \
         m.first_event_ms, m.first_token_ms, m.total_ms, m.replica_name, m.boot_id"
    };
}
pub(crate) use request_columns;

macro_rules! request_select {
    () => {
        concat!("SELECT ", $crate::rows::requests::request_columns!(), " FROM model_requests m ")
    };
}
pub(crate) use request_select;

pub(crate) fn request_from_row(row: &impl RowColumns) -> Result<ModelRequestRecord, StorageError> {
    let routing = match row.col::<&str>("routing_scope")? {
        "all" => RoutingSnapshot::All,
        _ => {
            let groups: Vec<GroupSnapshotEntry> = serde_json::from_value(row.json("routing_groups")?)
                .map_err(|e| corrupt("model_requests.routing_groups", e))?;
            RoutingSnapshot::Groups(groups.into_iter().map(|g| GroupRef { id: GroupId(g.id), name: g.name }).collect())
        }
    };
    Ok(ModelRequestRecord {
        start: RequestStart {
            id: RequestId(row.col("id")?),
            client_key_id: row.col::<Option<i64>>("client_key_id")?.map(ClientKeyId),
            requested_model: row.col("requested_model")?,
            operation: row.col("operation")?,
            transport: closed(row.col::<&str>("transport")?, "model_requests.transport")?,
            stream: row.col("stream")?,
            routing,
            started_at: row.ts("started_at")?,
            deadline_at: row.ts("deadline_at")?,
            runner: runner(row)?,
        },
        status: closed(row.col::<&str>("status")?, "model_requests.status")?,
        send_state: closed(row.col::<&str>("send_state")?, "model_requests.send_state")?,
        provider: row.col::<Option<&str>>("provider")?.map(|p| closed(p, "model_requests.provider")).transpose()?,
        account_id: row.col::<Option<i64>>("account_id")?.map(AccountId),
        attempts: attempts_from_json(row.json("attempts")?)?,
        outcome: outcome(row)?,
        downstream_committed_at: row.opt_ts("downstream_committed_at")?,
        finished_at: row.opt_ts("finished_at")?,
        latency: LatencySplits {
            connect_ms: opt_u32_of(row.col("connect_ms")?, "model_requests.connect_ms")?,
            headers_ms: opt_u32_of(row.col("headers_ms")?, "model_requests.headers_ms")?,
            first_event_ms: opt_u32_of(row.col("first_event_ms")?, "model_requests.first_event_ms")?,
            first_token_ms: opt_u32_of(row.col("first_token_ms")?, "model_requests.first_token_ms")?,
            total_ms: opt_u32_of(row.col("total_ms")?, "model_requests.total_ms")?,
        },
    })
}

/// The outcome columns.
fn outcome(row: &impl RowColumns) -> Result<RequestOutcome, StorageError> {
    let http_status: Option<i16> = row.col("http_status")?;
    Ok(RequestOutcome {
        http_status: http_status.and_then(|s| u16::try_from(s).ok()),
        error_code: row.col("error_code")?,
        usage: usage(row)?,
        cost: row.col::<Option<i64>>("cost_nano_usd")?.map(NanoUsd),
        service_tier: row.col("service_tier")?,
        upstream_model: row.col("upstream_model")?,
        client_response_id: row.col("client_response_id")?,
        upstream_response_id: row.col("upstream_response_id")?,
    })
}

#[derive(serde::Deserialize)]
struct GroupSnapshotEntry {
    id: i64,
    name: String,
}

fn runner(row: &impl RowColumns) -> Result<Option<Runner>, StorageError> {
    let name: Option<&str> = row.col("replica_name")?;
    let boot: Option<uuid::Uuid> = row.col("boot_id")?;
    match (name, boot) {
        (Some(name), Some(boot)) => {
            let replica = ReplicaName::parse(name).map_err(|e| corrupt("model_requests.replica_name", e))?;
            Ok(Some(Runner { replica, boot: BootId(boot) }))
        }
        _ => Ok(None),
    }
}

/// The token columns, when the row has a token total (the request list reads them too).
pub(crate) fn usage(row: &impl RowColumns) -> Result<Option<TokenUsage>, StorageError> {
    let Some(total) = row.col::<Option<i64>>("total_tokens")? else { return Ok(None) };
    Ok(Some(TokenUsage {
        input_tokens: token(row, "input_tokens")?,
        cached_input_tokens: token(row, "cached_input_tokens")?,
        output_tokens: token(row, "output_tokens")?,
        reasoning_tokens: token(row, "reasoning_tokens")?,
        total_tokens: u64_of(total, "model_requests.total_tokens")?,
    }))
}

fn token(row: &impl RowColumns, column: &str) -> Result<u64, StorageError> {
    u64_of(row.col::<Option<i64>>(column)?.unwrap_or(0), column)
}
