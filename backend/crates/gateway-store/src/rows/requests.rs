//! Mapping `model_requests` rows to [`ModelRequestRecord`], for both dialects.

use gateway_core::domain::{
    AccountId, BootId, ClientKeyId, GroupId, GroupRef, LatencySplits, ModelRequestRecord, NanoUsd, ReplicaName,
    RequestId, RequestStart, RoutingSnapshot, Runner, TokenUsage,
};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::{closed, opt_u32_of, u64_of};
use crate::postgres::error_mapping::corrupt;
use crate::row_columns::RowColumns;

macro_rules! request_select {
    () => {
        "SELECT m.id, m.client_key_id, m.provider, m.account_id, m.requested_model, m.upstream_model, m.operation, \
         m.transport, m.stream, m.status, m.send_state, m.http_status, m.error_code, m.attempts, m.input_tokens, \
         m.cached_input_tokens, m.output_tokens, m.reasoning_tokens, m.total_tokens, m.cost_nano_usd, \
         m.service_tier, m.client_response_id, m.upstream_response_id, m.routing_scope, m.routing_groups, \
         m.started_at, m.deadline_at, m.downstream_committed_at, m.finished_at, m.connect_ms, m.headers_ms, \
         m.first_event_ms, m.first_token_ms, m.total_ms, m.replica_name, m.boot_id FROM model_requests m "
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
    let total: Option<i64> = row.col("total_tokens")?;
    let usage = match total {
        None => None,
        Some(total) => Some(TokenUsage {
            input_tokens: token(row, "input_tokens")?,
            cached_input_tokens: token(row, "cached_input_tokens")?,
            output_tokens: token(row, "output_tokens")?,
            reasoning_tokens: token(row, "reasoning_tokens")?,
            total_tokens: u64_of(total, "model_requests.total_tokens")?,
        }),
    };
    let http_status: Option<i16> = row.col("http_status")?;
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
        upstream_model: row.col("upstream_model")?,
        http_status: http_status.and_then(|s| u16::try_from(s).ok()),
        error_code: row.col("error_code")?,
        attempts: row.json("attempts")?,
        usage,
        cost: row.col::<Option<i64>>("cost_nano_usd")?.map(NanoUsd),
        service_tier: row.col("service_tier")?,
        client_response_id: row.col("client_response_id")?,
        upstream_response_id: row.col("upstream_response_id")?,
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

fn token(row: &impl RowColumns, column: &str) -> Result<u64, StorageError> {
    u64_of(row.col::<Option<i64>>(column)?.unwrap_or(0), column)
}
