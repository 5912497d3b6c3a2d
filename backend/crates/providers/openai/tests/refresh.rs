//! The refresh path end to end: single flight across replicas, rotated credentials held while
//! the database is down, failure classification and schedule.

mod failures;
mod held_writes;
mod single_flight;

use gateway_core::domain::AccountId;

use crate::support::World;

/// Makes `account` due now.
pub async fn make_due(world: &World, account: AccountId) {
    sqlx::query("UPDATE provider_accounts SET next_refresh_at = now() - interval '1 second' WHERE id = $1")
        .bind(account.0)
        .execute(&world.raw().await)
        .await
        .expect("due");
}

/// `(credential_revision, credential_state, credential_reason, refresh_failure_count,
/// next_refresh_at - now() in seconds, access_token_expires_at - now() in seconds)`.
pub async fn facts(world: &World, account: AccountId) -> (i64, String, Option<String>, i32, Option<f64>, Option<f64>) {
    sqlx::query_as(
        "SELECT credential_revision, credential_state, credential_reason, refresh_failure_count, \
         EXTRACT(EPOCH FROM next_refresh_at - now())::float8, EXTRACT(EPOCH FROM access_token_expires_at - now())::float8 \
         FROM provider_accounts WHERE id = $1",
    )
    .bind(account.0)
    .fetch_one(&world.raw().await)
    .await
    .expect("facts")
}
