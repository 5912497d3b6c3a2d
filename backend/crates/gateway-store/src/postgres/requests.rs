//! [`RequestLog`]: the `model_requests` projection.
//!
//! Monotone rules, in SQL: an update of a `running` row applies everything but never lowers the
//! send-state watermark (ranked `not_sent < ambiguous < sent`); an update of a terminal row only
//! raises the watermark. The `model_requests_keep_monotone` trigger enforces the same for any
//! other writer.

use async_trait::async_trait;
use serde::Serialize;
use time::OffsetDateTime;

use gateway_core::domain::{ModelRequestRecord, RequestId, RequestStart, RequestUpdate, RoutingSnapshot};
use gateway_core::ports::{RequestLog, StorageError};

use crate::postgres::PgStore;
use crate::postgres::column_values::{int8, opt_int4, opt_int8};
use crate::postgres::error_mapping::storage_error;
use crate::postgres::request_rows::{request_from_row, request_select};

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
        }
    }
}

const INSERT_STARTS: &str = "INSERT INTO model_requests (id, client_key_id, requested_model, operation, transport, \
     stream, routing_scope, routing_groups, started_at, deadline_at) \
     SELECT r.id, k.id, r.requested_model, r.operation, r.transport, r.stream, r.routing_scope, r.routing_groups, \
     r.started_at, r.deadline_at \
     FROM jsonb_to_recordset($1) AS r(id uuid, client_key_id bigint, requested_model text, operation text, \
     transport text, stream boolean, routing_scope text, routing_groups jsonb, started_at timestamptz, \
     deadline_at timestamptz) \
     LEFT JOIN client_api_keys k ON k.id = r.client_key_id \
     ON CONFLICT (id) DO NOTHING";

const UPDATE_RUNNING: &str = "UPDATE model_requests m SET \
     status = $2, \
     send_state = CASE WHEN array_position(ARRAY['not_sent', 'ambiguous', 'sent']::text[], $3::text) \
        > array_position(ARRAY['not_sent', 'ambiguous', 'sent']::text[], m.send_state) THEN $3 ELSE m.send_state END, \
     provider = COALESCE($4, m.provider), \
     account_id = COALESCE((SELECT a.id FROM provider_accounts a WHERE a.id = $5), m.account_id), \
     upstream_model = COALESCE($6, m.upstream_model), \
     http_status = COALESCE($7, m.http_status), \
     error_code = COALESCE($8, m.error_code), \
     attempts = COALESCE($9, m.attempts), \
     input_tokens = COALESCE($10, m.input_tokens), \
     cached_input_tokens = COALESCE($11, m.cached_input_tokens), \
     output_tokens = COALESCE($12, m.output_tokens), \
     reasoning_tokens = COALESCE($13, m.reasoning_tokens), \
     total_tokens = COALESCE($14, m.total_tokens), \
     cost_nano_usd = COALESCE($15, m.cost_nano_usd), \
     service_tier = COALESCE($16, m.service_tier), \
     client_response_id = COALESCE($17, m.client_response_id), \
     upstream_response_id = COALESCE($18, m.upstream_response_id), \
     downstream_committed_at = COALESCE(m.downstream_committed_at, $19), \
     finished_at = CASE WHEN $2 = 'running' THEN NULL ELSE COALESCE($20, now()) END, \
     connect_ms = COALESCE($21, m.connect_ms), \
     headers_ms = COALESCE($22, m.headers_ms), \
     first_event_ms = COALESCE($23, m.first_event_ms), \
     first_token_ms = COALESCE($24, m.first_token_ms), \
     total_ms = COALESCE($25, m.total_ms) \
     WHERE m.id = $1 AND m.status = 'running'";

const RAISE_WATERMARK: &str = "UPDATE model_requests SET send_state = $2 WHERE id = $1 \
     AND array_position(ARRAY['not_sent', 'ambiguous', 'sent']::text[], $2::text) \
       > array_position(ARRAY['not_sent', 'ambiguous', 'sent']::text[], send_state)";

#[async_trait]
impl RequestLog for PgStore {
    async fn record_starts(&self, starts: &[RequestStart]) -> Result<u64, StorageError> {
        if starts.is_empty() {
            return Ok(0);
        }
        let records: Vec<StartRecord<'_>> = starts.iter().map(StartRecord::of).collect();
        let batch = serde_json::to_value(&records).map_err(|e| StorageError::Internal(e.to_string()))?;
        let done = sqlx::query(INSERT_STARTS).bind(batch).execute(self.pool()).await.map_err(storage_error)?;
        Ok(done.rows_affected())
    }

    async fn record_updates(&self, updates: &[RequestUpdate]) -> Result<u64, StorageError> {
        let mut tx = self.pool().begin().await.map_err(storage_error)?;
        let mut changed = 0;
        for update in updates {
            let usage = update.usage.as_ref();
            let latency = &update.latency;
            let done = sqlx::query(UPDATE_RUNNING)
                .bind(update.id.0)
                .bind(update.status.as_str())
                .bind(update.send_state.as_str())
                .bind(update.provider.map(|p| p.as_str()))
                .bind(update.account_id.map(|a| a.0))
                .bind(update.upstream_model.as_deref())
                .bind(update.http_status.map(|s| i16::try_from(s).unwrap_or(i16::MAX)))
                .bind(update.error_code.as_deref())
                .bind(update.attempts.as_ref())
                .bind(opt_int8(usage.map(|u| u.input_tokens), "model_requests.input_tokens")?)
                .bind(opt_int8(usage.map(|u| u.cached_input_tokens), "model_requests.cached_input_tokens")?)
                .bind(opt_int8(usage.map(|u| u.output_tokens), "model_requests.output_tokens")?)
                .bind(opt_int8(usage.map(|u| u.reasoning_tokens), "model_requests.reasoning_tokens")?)
                .bind(opt_int8(usage.map(|u| u.total_tokens), "model_requests.total_tokens")?)
                .bind(update.cost.map(|c| c.0))
                .bind(update.service_tier.as_deref())
                .bind(update.client_response_id.as_deref())
                .bind(update.upstream_response_id.as_deref())
                .bind(update.downstream_committed_at)
                .bind(update.finished_at)
                .bind(opt_int4(latency.connect_ms, "model_requests.connect_ms")?)
                .bind(opt_int4(latency.headers_ms, "model_requests.headers_ms")?)
                .bind(opt_int4(latency.first_event_ms, "model_requests.first_event_ms")?)
                .bind(opt_int4(latency.first_token_ms, "model_requests.first_token_ms")?)
                .bind(opt_int4(latency.total_ms, "model_requests.total_ms")?)
                .execute(&mut *tx)
                .await
                .map_err(storage_error)?;
            if done.rows_affected() == 0 {
                let raised = sqlx::query(RAISE_WATERMARK)
                    .bind(update.id.0)
                    .bind(update.send_state.as_str())
                    .execute(&mut *tx)
                    .await
                    .map_err(storage_error)?;
                changed += raised.rows_affected();
            } else {
                changed += done.rows_affected();
            }
        }
        tx.commit().await.map_err(storage_error)?;
        Ok(changed)
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
