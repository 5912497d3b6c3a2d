//! The values the client-key mutations bind, for both dialects: the limit columns (in the order
//! both dialects' statements list them) and the scope a group replacement reports.

use sqlx::query::Query;
use sqlx::{Database, Encode, Type};

use gateway_core::domain::{ClientKeyLimits, GroupId, KeyScope};
use gateway_core::ports::StorageError;

use crate::postgres::column_values::{opt_int4, opt_int8};

/// `max_concurrency, requests_per_minute, daily_token_budget, monthly_token_budget,
/// daily_cost_budget_nano_usd, monthly_cost_budget_nano_usd` as stored.
pub(crate) struct LimitColumns {
    max_concurrency: Option<i32>,
    requests_per_minute: Option<i32>,
    daily_token_budget: Option<i64>,
    monthly_token_budget: Option<i64>,
    daily_cost_budget: Option<i64>,
    monthly_cost_budget: Option<i64>,
}

pub(crate) fn limit_columns(l: &ClientKeyLimits) -> Result<LimitColumns, StorageError> {
    Ok(LimitColumns {
        max_concurrency: opt_int4(l.max_concurrency, "client_api_keys.max_concurrency")?,
        requests_per_minute: opt_int4(l.requests_per_minute, "client_api_keys.requests_per_minute")?,
        daily_token_budget: opt_int8(l.daily_token_budget, "client_api_keys.daily_token_budget")?,
        monthly_token_budget: opt_int8(l.monthly_token_budget, "client_api_keys.monthly_token_budget")?,
        daily_cost_budget: l.daily_cost_budget.map(|c| c.0),
        monthly_cost_budget: l.monthly_cost_budget.map(|c| c.0),
    })
}

/// Binds the six limit columns, in the order above, on either dialect.
pub(crate) fn bind_limits<'q, DB>(
    query: Query<'q, DB, <DB as Database>::Arguments>,
    limits: &LimitColumns,
) -> Query<'q, DB, <DB as Database>::Arguments>
where
    DB: Database,
    for<'t> Option<i32>: Encode<'t, DB> + Type<DB>,
    for<'t> Option<i64>: Encode<'t, DB> + Type<DB>,
{
    query
        .bind(limits.max_concurrency)
        .bind(limits.requests_per_minute)
        .bind(limits.daily_token_budget)
        .bind(limits.monthly_token_budget)
        .bind(limits.daily_cost_budget)
        .bind(limits.monthly_cost_budget)
}

/// The key's scope before a group replacement, from the group ids it deleted.
pub(crate) fn scope_before(deleted: Vec<i64>) -> KeyScope {
    let mut before: Vec<GroupId> = deleted.into_iter().map(GroupId).collect();
    before.sort();
    KeyScope::from_group_ids(before)
}
