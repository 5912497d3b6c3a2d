//! Mapping the usage views' request rows (list and detail) to the admin types, for both dialects.

use time::OffsetDateTime;

use gateway_admin::usage::{RequestDetail, RequestSummary};
use gateway_core::domain::{AccountId, ClientKeyId, LatencySplits, RequestId};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::{closed, opt_u32_of};
use crate::row_columns::RowColumns;
use crate::rows::requests::{request_columns, request_from_row, usage};

/// One request for the detail view: the read model's columns and the names joined in; the same
/// text on both dialects.
pub(crate) const REQUEST_DETAIL: &str = concat!(
    "SELECT ",
    request_columns!(),
    ", k.name AS client_key_name, a.email AS account_email FROM model_requests m \
     LEFT JOIN client_api_keys k ON k.id = m.client_key_id LEFT JOIN provider_accounts a ON a.id = m.account_id \
     WHERE m.id = $1"
);

/// The last use of each account; the same text on both dialects.
pub(crate) const LAST_USED_BY_ACCOUNT: &str = "SELECT a.id, \
     (SELECT max(r.started_at) FROM model_requests r WHERE r.account_id = a.id) AS last_used FROM provider_accounts a";

/// `(id, last_used)` of the accounts used at least once.
pub(crate) fn last_used_from_rows<R: RowColumns>(rows: &[R]) -> Result<Vec<(AccountId, OffsetDateTime)>, StorageError> {
    let mut out = Vec::new();
    for row in rows {
        if let Some(at) = row.opt_ts("last_used")? {
            out.push((AccountId(row.col("id")?), at));
        }
    }
    Ok(out)
}

/// A row of the request list (each dialect's `request_summary_select!`).
pub(crate) fn summary_from_row(row: &impl RowColumns) -> Result<RequestSummary, StorageError> {
    Ok(RequestSummary {
        id: RequestId(row.col("id")?),
        started_at: row.ts("started_at")?,
        finished_at: row.opt_ts("finished_at")?,
        status: closed(row.col::<&str>("status")?, "model_requests.status")?,
        send_state: closed(row.col::<&str>("send_state")?, "model_requests.send_state")?,
        http_status: row.col::<Option<i16>>("http_status")?.and_then(|s| u16::try_from(s).ok()),
        error_code: row.col("error_code")?,
        client_key_id: row.col::<Option<i64>>("client_key_id")?.map(ClientKeyId),
        client_key_name: row.col("client_key_name")?,
        account_id: row.col::<Option<i64>>("account_id")?.map(AccountId),
        account_email: row.col("account_email")?,
        provider: row.col::<Option<&str>>("provider")?.map(|p| closed(p, "model_requests.provider")).transpose()?,
        requested_model: row.col("requested_model")?,
        upstream_model: row.col("upstream_model")?,
        operation: row.col("operation")?,
        transport: closed(row.col::<&str>("transport")?, "model_requests.transport")?,
        stream: row.col("stream")?,
        usage: usage(row)?,
        cost_nano_usd: row.col("cost_nano_usd")?,
        latency: LatencySplits {
            connect_ms: opt_u32_of(row.col("connect_ms")?, "connect_ms")?,
            headers_ms: opt_u32_of(row.col("headers_ms")?, "headers_ms")?,
            first_event_ms: opt_u32_of(row.col("first_event_ms")?, "first_event_ms")?,
            first_token_ms: opt_u32_of(row.col("first_token_ms")?, "first_token_ms")?,
            total_ms: opt_u32_of(row.col("total_ms")?, "total_ms")?,
        },
        attempt_count: u32::try_from(row.col::<i32>("attempt_count")?).unwrap_or(0),
        routing_scope: closed(row.col::<&str>("routing_scope")?, "model_requests.routing_scope")?,
    })
}

/// A row of [`REQUEST_DETAIL`].
pub(crate) fn detail_from_row(row: &impl RowColumns) -> Result<RequestDetail, StorageError> {
    Ok(RequestDetail {
        request: request_from_row(row)?,
        client_key_name: row.col("client_key_name")?,
        account_email: row.col("account_email")?,
    })
}
