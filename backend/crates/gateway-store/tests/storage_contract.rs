//! The contract of the storage ports, written once and run against every storage adapter
//! (`postgres/contract.rs`, `sqlite/contract.rs` instantiate it with `storage_contract_suite!`).
//! One module per port; an adapter that behaves differently fails here.

pub mod accounts;
pub mod admin_transaction;
pub mod admin_users;
pub mod alert_settings;
pub mod backups;
pub mod client_keys;
pub mod cookie_jars;
pub mod credentials;
pub mod egress_proxies;
pub mod fixtures;
pub mod ops_events;
pub mod quota;
pub mod requests;
pub mod snapshot;
pub mod usage;

pub use accounts::*;
pub use admin_transaction::*;
pub use admin_users::*;
pub use alert_settings::*;
pub use backups::*;
pub use client_keys::*;
pub use cookie_jars::*;
pub use credentials::*;
pub use egress_proxies::*;
pub use ops_events::*;
pub use quota::*;
pub use requests::*;
pub use snapshot::*;
pub use usage::*;

/// One `#[tokio::test]` per contract function, each on a fresh store from `$factory()`.
macro_rules! storage_contract_tests {
    ($factory:path; $($name:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() -> anyhow::Result<()> {
                let harness = $factory().await?;
                $crate::storage_contract::$name(harness).await
            }
        )*
    };
}

/// The whole suite for one adapter.
macro_rules! storage_contract_suite {
    ($factory:path) => {
        $crate::storage_contract::storage_contract_tests!($factory;
            // CredentialStore
            concurrent_credential_writes_on_one_revision_exactly_one_wins,
            facts_only_writes_are_fenced_but_keep_the_revision,
            a_wrong_or_missing_key_fails_cleanly,
            // QuotaStore
            quota_writes_are_fenced_by_revision_and_observation_time,
            // UnitOfWork / AdminTransaction / AuditTrail / directories
            commit_bumps_the_revision_once_and_writes_the_audit_row,
            a_failing_audit_insert_rolls_back_the_mutation_and_the_revision,
            dropping_a_transaction_rolls_back,
            key_scope_changes_are_reported_and_bound_groups_cannot_be_deleted,
            the_audit_chain_verifies_and_details_are_redacted,
            the_service_tier_policy_round_trips_through_create_and_update,
            import_upsert_keeps_scheduling_facts_groups_and_quota,
            foreign_key_check_and_unique_violations_are_typed_errors,
            deleting_an_account_cascades_membership_and_nulls_request_references,
            egress_proxies_round_trip_sealed_and_clear,
            // CookieJarStore
            cookie_jars_are_sealed_replaced_and_go_with_their_account,
            // AdminUsers, AuditSearch
            admin_users_are_found_by_name_and_key_and_totp_is_sealed,
            audit_search_filters_and_pages,
            // AlertSettings
            alert_webhooks_keep_their_secret_sealed_and_rules_start_at_defaults,
            // BackupJobs
            only_one_backup_job_is_active_at_a_time,
            backup_records_page_newest_first_by_id,
            // SnapshotSource
            the_snapshot_holds_accounts_groups_keys_and_its_revision,
            // RequestLog
            starts_are_idempotent_and_tolerate_a_deleted_client_key,
            a_late_terminal_write_cannot_lower_the_send_state_watermark,
            a_terminal_row_can_still_raise_its_watermark,
            stale_recovery_marks_incomplete_in_bounded_batches_and_never_replays,
            the_rows_of_a_lost_boot_are_recovered_keeping_what_the_client_received,
            a_restarted_replica_closes_the_running_requests_of_its_own_earlier_boots_only,
            request_retention_deletes_finished_rows_in_bounded_batches,
            a_batch_writes_requests_that_ended_in_it_as_finished_rows,
            a_large_batch_writes_every_row_with_its_own_values,
            a_request_reads_back_typed_as_it_was_written,
            // UsageQueries
            usage_totals_groups_and_trends_agree,
            outcome_counts_count_finished_and_failed_requests_of_a_window,
            request_lists_page_newest_first_and_details_carry_attempts,
            // OpsEventLog
            dangling_references_are_kept_in_details_instead_of_failing_the_batch,
            ops_retention_deletes_old_events_in_bounded_batches,
        );
    };
}

pub(crate) use storage_contract_suite;
pub(crate) use storage_contract_tests;
