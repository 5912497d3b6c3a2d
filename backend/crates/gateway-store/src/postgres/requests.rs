//! [`RequestLog`]: the `model_requests` projection.
//!
//! Monotone rules, in SQL: an update of a `running` row applies everything but never lowers the
//! send-state watermark (ranked `not_sent < ambiguous < sent`); an update of a terminal row only
//! raises the watermark. The `model_requests_keep_monotone` trigger enforces the same for any
//! other writer.

use async_trait::async_trait;
use serde::Serialize;
use sqlx::types::Json;
use time::OffsetDateTime;

use gateway_core::domain::{
    BootId, ModelRequestRecord, ReplicaName, RequestId, RequestStart, RequestUpdate, RoutingSnapshot,
};
use gateway_core::ports::{RequestLog, StorageError};

use crate::postgres::PgStore;
use crate::postgres::column_values::int8;
use crate::postgres::error_mapping::storage_error;
use crate::rows::request_update::{UpdateColumns, fold};
use crate::rows::requests::{request_from_row, request_select};

/// One start as a JSON record for `jsonb_to_recordset`.
#[derive(Serialize)]
struct StartRecord<'a> {
    id: uuid::Uuid,
    client_key_id: Option<i64>,
    requested_model: &'a str,
    operation: &'a str,
    transport: &'static str,
    stream: bool,
    routing_scope: &'static str,
    routing_groups: serde_json::Value,
    #[serde(with = "time::serde::rfc3339")]
    started_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    deadline_at: OffsetDateTime,
    replica_name: Option<&'a str>,
    boot_id: Option<uuid::Uuid>,
}

impl<'a> StartRecord<'a> {
    fn of(start: &'a RequestStart) -> Self {
        let (routing_scope, routing_groups) = match &start.routing {
            RoutingSnapshot::All => ("all", serde_json::Value::Array(Vec::new())),
            RoutingSnapshot::Groups(groups) => (
                "groups",
                serde_json::Value::Array(
                    groups.iter().map(|g| serde_json::json!({ "id": g.id.0, "name": g.name })).collect(),
                ),
            ),
        };
        Self {
            id: start.id.0,
            client_key_id: start.client_key_id.map(|k| k.0),
            requested_model: &start.requested_model,
            operation: &start.operation,
            transport: start.transport.as_str(),
            stream: start.stream,
            routing_scope,
            routing_groups,
            started_at: start.started_at,
            deadline_at: start.deadline_at,
            replica_name: start.runner.as_ref().map(|runner| runner.replica.as_str()),
            boot_id: start.runner.as_ref().map(|runner| runner.boot.0),
        }
    }
}

const INSERT_STARTS: &str = "INSERT INTO model_requests (id, client_key_id, requested_model, operation, transport, \
     stream, routing_scope, routing_groups, started_at, deadline_at, replica_name, boot_id) \
     SELECT r.id, k.id, r.requested_model, r.operation, r.transport, r.stream, r.routing_scope, r.routing_groups, \
     r.started_at, r.deadline_at, r.replica_name, r.boot_id \
     FROM jsonb_to_recordset($1) AS r(id uuid, client_key_id bigint, requested_model text, operation text, \
     transport text, stream boolean, routing_scope text, routing_groups jsonb, started_at timestamptz, \
     deadline_at timestamptz, replica_name text, boot_id uuid) \
     LEFT JOIN client_api_keys k ON k.id = r.client_key_id \
     ON CONFLICT (id) DO NOTHING";

/// Every update of a batch in one statement, its records `rows::request_update::UpdateColumns`.
/// Rows still `running` take the update's values (`NULL` keeps the stored one); terminal rows
/// only see their watermark rise. The watermark never falls (ranked `not_sent < ambiguous <
/// sent`).
const APPLY_UPDATES: &str = "UPDATE model_requests m SET \
     send_state = CASE WHEN array_position(ARRAY['not_sent', 'ambiguous', 'sent']::text[], r.send_state) \
        > array_position(ARRAY['not_sent', 'ambiguous', 'sent']::text[], m.send_state) THEN r.send_state ELSE m.send_state END, \
     status = CASE WHEN m.status = 'running' THEN r.status ELSE m.status END, \
     provider = CASE WHEN m.status = 'running' THEN COALESCE(r.provider, m.provider) ELSE m.provider END, \
     account_id = CASE WHEN m.status = 'running' THEN COALESCE(a.id, m.account_id) ELSE m.account_id END, \
     upstream_model = CASE WHEN m.status = 'running' THEN COALESCE(r.upstream_model, m.upstream_model) ELSE m.upstream_model END, \
     http_status = CASE WHEN m.status = 'running' THEN COALESCE(r.http_status, m.http_status) ELSE m.http_status END, \
     error_code = CASE WHEN m.status = 'running' THEN COALESCE(r.error_code, m.error_code) ELSE m.error_code END, \
     attempts = CASE WHEN m.status = 'running' THEN COALESCE(r.attempts, m.attempts) ELSE m.attempts END, \
     input_tokens = CASE WHEN m.status = 'running' THEN COALESCE(r.input_tokens, m.input_tokens) ELSE m.input_tokens END, \
     cached_input_tokens = CASE WHEN m.status = 'running' THEN COALESCE(r.cached_input_tokens, m.cached_input_tokens) ELSE m.cached_input_tokens END, \
     output_tokens = CASE WHEN m.status = 'running' THEN COALESCE(r.output_tokens, m.output_tokens) ELSE m.output_tokens END, \
     reasoning_tokens = CASE WHEN m.status = 'running' THEN COALESCE(r.reasoning_tokens, m.reasoning_tokens) ELSE m.reasoning_tokens END, \
     total_tokens = CASE WHEN m.status = 'running' THEN COALESCE(r.total_tokens, m.total_tokens) ELSE m.total_tokens END, \
     cost_nano_usd = CASE WHEN m.status = 'running' THEN COALESCE(r.cost_nano_usd, m.cost_nano_usd) ELSE m.cost_nano_usd END, \
     service_tier = CASE WHEN m.status = 'running' THEN COALESCE(r.service_tier, m.service_tier) ELSE m.service_tier END, \
     client_response_id = CASE WHEN m.status = 'running' THEN COALESCE(decode(r.client_response_id, 'hex'), m.client_response_id) ELSE m.client_response_id END, \
     upstream_response_id = CASE WHEN m.status = 'running' THEN COALESCE(decode(r.upstream_response_id, 'hex'), m.upstream_response_id) ELSE m.upstream_response_id END, \
     downstream_committed_at = CASE WHEN m.status = 'running' THEN COALESCE(m.downstream_committed_at, r.downstream_committed_at) ELSE m.downstream_committed_at END, \
     finished_at = CASE WHEN m.status <> 'running' THEN m.finished_at WHEN r.status = 'running' THEN NULL ELSE COALESCE(r.finished_at, now()) END, \
     connect_ms = CASE WHEN m.status = 'running' THEN COALESCE(r.connect_ms, m.connect_ms) ELSE m.connect_ms END, \
     headers_ms = CASE WHEN m.status = 'running' THEN COALESCE(r.headers_ms, m.headers_ms) ELSE m.headers_ms END, \
     first_event_ms = CASE WHEN m.status = 'running' THEN COALESCE(r.first_event_ms, m.first_event_ms) ELSE m.first_event_ms END, \
     first_token_ms = CASE WHEN m.status = 'running' THEN COALESCE(r.first_token_ms, m.first_token_ms) ELSE m.first_token_ms END, \
     total_ms = CASE WHEN m.status = 'running' THEN COALESCE(r.total_ms, m.total_ms) ELSE m.total_ms END \
     FROM jsonb_to_recordset($1) AS r(id uuid, status text, send_state text, provider text, account_id bigint, \
       upstream_model text, http_status smallint, error_code text, attempts jsonb, input_tokens bigint, \
       cached_input_tokens bigint, output_tokens bigint, reasoning_tokens bigint, total_tokens bigint, \
       cost_nano_usd bigint, service_tier text, client_response_id text, upstream_response_id text, \
       downstream_committed_at timestamptz, finished_at timestamptz, connect_ms integer, headers_ms integer, \
       first_event_ms integer, first_token_ms integer, total_ms integer) \
     LEFT JOIN provider_accounts a ON a.id = r.account_id \
     WHERE m.id = r.id \
       AND (m.status = 'running' OR array_position(ARRAY['not_sent', 'ambiguous', 'sent']::text[], r.send_state) \
            > array_position(ARRAY['not_sent', 'ambiguous', 'sent']::text[], m.send_state))";

/// Starts whose request also ended within the batch, inserted as finished rows.
const INSERT_FULL: &str = "INSERT INTO model_requests (id, client_key_id, requested_model, operation, transport, \
     stream, routing_scope, routing_groups, started_at, deadline_at, replica_name, boot_id, status, send_state, \
     provider, account_id, \
     upstream_model, http_status, error_code, attempts, input_tokens, cached_input_tokens, output_tokens, \
     reasoning_tokens, total_tokens, cost_nano_usd, service_tier, client_response_id, upstream_response_id, \
     downstream_committed_at, finished_at, connect_ms, headers_ms, first_event_ms, first_token_ms, total_ms) \
     SELECT r.id, k.id, r.requested_model, r.operation, r.transport, r.stream, r.routing_scope, r.routing_groups, \
     r.started_at, r.deadline_at, r.replica_name, r.boot_id, r.status, r.send_state, r.provider, a.id, \
     r.upstream_model, r.http_status, \
     r.error_code, COALESCE(r.attempts, '[]'::jsonb), r.input_tokens, r.cached_input_tokens, r.output_tokens, \
     r.reasoning_tokens, r.total_tokens, r.cost_nano_usd, r.service_tier, decode(r.client_response_id, 'hex'), \
     decode(r.upstream_response_id, 'hex'), r.downstream_committed_at, \
     CASE WHEN r.status = 'running' THEN NULL ELSE COALESCE(r.finished_at, now()) END, \
     r.connect_ms, r.headers_ms, r.first_event_ms, r.first_token_ms, r.total_ms \
     FROM jsonb_to_recordset($1) AS r(id uuid, client_key_id bigint, requested_model text, operation text, \
       transport text, stream boolean, routing_scope text, routing_groups jsonb, started_at timestamptz, \
       deadline_at timestamptz, replica_name text, boot_id uuid, status text, send_state text, provider text, \
       account_id bigint, \
       upstream_model text, http_status smallint, error_code text, attempts jsonb, input_tokens bigint, \
       cached_input_tokens bigint, output_tokens bigint, reasoning_tokens bigint, total_tokens bigint, \
       cost_nano_usd bigint, service_tier text, client_response_id text, upstream_response_id text, \
       downstream_committed_at timestamptz, finished_at timestamptz, connect_ms integer, headers_ms integer, \
       first_event_ms integer, first_token_ms integer, total_ms integer) \
     LEFT JOIN client_api_keys k ON k.id = r.client_key_id \
     LEFT JOIN provider_accounts a ON a.id = r.account_id \
     ON CONFLICT (id) DO NOTHING RETURNING id";

/// A start merged with its folded update, as one JSON record. Both halves carry the same `id`;
/// `jsonb` keeps the last of duplicate keys, so the record reads as one.
#[derive(Serialize)]
struct FullRecord<'a> {
    #[serde(flatten)]
    start: StartRecord<'a>,
    #[serde(flatten)]
    columns: UpdateColumns<'a>,
}

fn full_record<'a>(start: &'a RequestStart, update: Option<&'a RequestUpdate>) -> Result<FullRecord<'a>, StorageError> {
    let columns = match update {
        Some(update) => UpdateColumns::of(update)?,
        None => UpdateColumns::running(start.id),
    };
    Ok(FullRecord { start: StartRecord::of(start), columns })
}

#[async_trait]
impl RequestLog for PgStore {
    async fn record_starts(&self, starts: &[RequestStart]) -> Result<u64, StorageError> {
        if starts.is_empty() {
            return Ok(0);
        }
        let records: Vec<StartRecord<'_>> = starts.iter().map(StartRecord::of).collect();
        let done = sqlx::query(INSERT_STARTS).bind(Json(&records)).execute(self.pool()).await.map_err(storage_error)?;
        Ok(done.rows_affected())
    }

    async fn record_updates(&self, updates: &[RequestUpdate]) -> Result<u64, StorageError> {
        if updates.is_empty() {
            return Ok(0);
        }
        let folded = fold(updates);
        let records = folded.iter().map(UpdateColumns::of).collect::<Result<Vec<_>, _>>()?;
        let done = sqlx::query(APPLY_UPDATES).bind(Json(&records)).execute(self.pool()).await.map_err(storage_error)?;
        Ok(done.rows_affected())
    }

    async fn record_batch(
        &self,
        starts: &[RequestStart],
        updates: &[RequestUpdate],
    ) -> Result<(u64, u64), StorageError> {
        let folded = fold(updates);
        let mut by_id: std::collections::HashMap<RequestId, &RequestUpdate> =
            folded.iter().map(|u| (u.id, u)).collect();
        let mut inserted_ids: std::collections::HashSet<uuid::Uuid> = std::collections::HashSet::new();
        if !starts.is_empty() {
            let records = starts
                .iter()
                .map(|start| full_record(start, by_id.get(&start.id).copied()))
                .collect::<Result<Vec<_>, _>>()?;
            let ids: Vec<uuid::Uuid> = sqlx::query_scalar(INSERT_FULL)
                .bind(Json(&records))
                .fetch_all(self.pool())
                .await
                .map_err(storage_error)?;
            inserted_ids.extend(ids);
        }
        // Updates whose row was inserted just now are already in it; the rest update rows
        // written by earlier batches (or starts that were already stored).
        by_id.retain(|id, _| !inserted_ids.contains(&id.0));
        let rest: Vec<RequestUpdate> = folded.iter().filter(|u| by_id.contains_key(&u.id)).cloned().collect();
        let updated = if rest.is_empty() { 0 } else { self.record_updates(&rest).await? };
        Ok((inserted_ids.len() as u64, updated))
    }

    async fn recover_stale(&self, now: OffsetDateTime, limit: u32) -> Result<Vec<RequestId>, StorageError> {
        let ids: Vec<uuid::Uuid> = sqlx::query_scalar(
            "UPDATE model_requests SET status = 'incomplete', error_code = 'stale_recovered', finished_at = $1 \
             WHERE id IN (SELECT id FROM model_requests WHERE status = 'running' AND deadline_at < $1 \
                          ORDER BY deadline_at LIMIT $2 FOR UPDATE SKIP LOCKED) \
             RETURNING id",
        )
        .bind(now)
        .bind(int8(u64::from(limit), "limit")?)
        .fetch_all(self.pool())
        .await
        .map_err(storage_error)?;
        Ok(ids.into_iter().map(RequestId).collect())
    }

    async fn running_boots(&self, limit: u32) -> Result<Vec<BootId>, StorageError> {
        let boots: Vec<uuid::Uuid> = sqlx::query_scalar(
            "SELECT DISTINCT boot_id FROM model_requests WHERE status = 'running' AND boot_id IS NOT NULL LIMIT $1",
        )
        .bind(int8(u64::from(limit), "limit")?)
        .fetch_all(self.pool())
        .await
        .map_err(storage_error)?;
        Ok(boots.into_iter().map(BootId).collect())
    }

    async fn recover_boot(
        &self,
        boot: BootId,
        now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<RequestId>, StorageError> {
        let ids: Vec<uuid::Uuid> = sqlx::query_scalar(
            "UPDATE model_requests SET status = 'incomplete', error_code = 'replica_lost', finished_at = $2 \
             WHERE id IN (SELECT id FROM model_requests WHERE status = 'running' AND boot_id = $1 \
                          LIMIT $3 FOR UPDATE SKIP LOCKED) \
             RETURNING id",
        )
        .bind(boot.0)
        .bind(now)
        .bind(int8(u64::from(limit), "limit")?)
        .fetch_all(self.pool())
        .await
        .map_err(storage_error)?;
        Ok(ids.into_iter().map(RequestId).collect())
    }

    async fn running_boots_of(&self, replica: &ReplicaName, limit: u32) -> Result<Vec<BootId>, StorageError> {
        let boots: Vec<uuid::Uuid> = sqlx::query_scalar(
            "SELECT DISTINCT boot_id FROM model_requests \
             WHERE status = 'running' AND replica_name = $1 AND boot_id IS NOT NULL LIMIT $2",
        )
        .bind(replica.as_str())
        .bind(int8(u64::from(limit), "limit")?)
        .fetch_all(self.pool())
        .await
        .map_err(storage_error)?;
        Ok(boots.into_iter().map(BootId).collect())
    }

    async fn recover_restarted_boot(
        &self,
        replica: &ReplicaName,
        boot: BootId,
        now: OffsetDateTime,
        limit: u32,
    ) -> Result<Vec<RequestId>, StorageError> {
        let ids: Vec<uuid::Uuid> = sqlx::query_scalar(
            "UPDATE model_requests SET status = 'incomplete', error_code = 'replica_restarted', finished_at = $3 \
             WHERE id IN (SELECT id FROM model_requests \
                          WHERE status = 'running' AND boot_id = $1 AND replica_name = $2 \
                          LIMIT $4 FOR UPDATE SKIP LOCKED) \
             RETURNING id",
        )
        .bind(boot.0)
        .bind(replica.as_str())
        .bind(now)
        .bind(int8(u64::from(limit), "limit")?)
        .fetch_all(self.pool())
        .await
        .map_err(storage_error)?;
        Ok(ids.into_iter().map(RequestId).collect())
    }

    async fn delete_requests_before(&self, cutoff: OffsetDateTime, limit: u32) -> Result<u64, StorageError> {
        let done = sqlx::query(
            "DELETE FROM model_requests WHERE id IN (SELECT id FROM model_requests \
             WHERE started_at < $1 AND status <> 'running' ORDER BY started_at LIMIT $2 FOR UPDATE SKIP LOCKED)",
        )
        .bind(cutoff)
        .bind(int8(u64::from(limit), "limit")?)
        .execute(self.pool())
        .await
        .map_err(storage_error)?;
        Ok(done.rows_affected())
    }

    async fn get_request(&self, id: RequestId) -> Result<ModelRequestRecord, StorageError> {
        let row = sqlx::query(concat!(request_select!(), "WHERE m.id = $1"))
            .bind(id.0)
            .fetch_optional(self.pool())
            .await
            .map_err(storage_error)?
            .ok_or_else(|| StorageError::not_found("request", id))?;
        request_from_row(&row)
    }
}
