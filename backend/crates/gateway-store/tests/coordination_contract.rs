//! The contract of the coordination ports, written once and run against every adapter
//! (`memory.rs`, `redis.rs` instantiate it with `coordination_contract_suite!`).

pub mod acquire_pool;
pub mod acquire_reference;
pub mod admin_sessions;
pub mod affinity;
pub mod budgets;
pub mod circuit;
pub mod continuation;
pub mod cooldown;
pub mod fixtures;
pub mod heartbeats;
pub mod leases;
pub mod login_throttle;
pub mod notifications;
pub mod oauth_pending;
pub mod selection;
pub mod slot_lifetimes;
pub mod slots;
pub mod transcripts;

pub use admin_sessions::*;
pub use affinity::*;
pub use budgets::*;
pub use circuit::*;
pub use continuation::*;
pub use cooldown::*;
pub use heartbeats::*;
pub use leases::*;
pub use login_throttle::*;
pub use notifications::*;
pub use oauth_pending::*;
pub use selection::*;
pub use slot_lifetimes::*;
pub use slots::*;
pub use transcripts::*;

/// One `#[tokio::test]` per contract function, each on a fresh adapter from `$factory(test)`.
macro_rules! contract_tests {
    ($factory:path; $($name:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() -> anyhow::Result<()> {
                let port = $factory(stringify!($name)).await?;
                $crate::coordination_contract::$name(port).await
            }
        )*
    };
}

/// The whole suite for one adapter.
macro_rules! coordination_contract_suite {
    ($factory:path) => {
        $crate::coordination_contract::contract_tests!($factory;
            round_robin_rotates_and_sticky_stays,
            acquire_agrees_with_the_acquire_plan,
            racing_tasks_never_exceed_the_cap,
            admission_limits_concurrency_and_rate,
            refused_acquire_records_nothing,
            spend_budgets_refuse_once_spent,
            spend_counts_before_a_budget_is_set,
            request_interval_spaces_starts,
            no_account_reports_each_reason,
            leaked_slot_expires_and_stale_token_is_rejected,
            heartbeat_keeps_held_slots_past_their_first_ttl,
            slots_not_renewed_by_a_heartbeat_expire,
            release_boot_frees_every_slot_of_a_dead_boot,
            a_boot_is_alive_while_its_heartbeat_lasts,
            claim_replica_names_the_predecessor,
            heartbeat_refuses_oversized_batches,
            release_applies_account_feedback,
            affinity_binds_hits_bypasses_and_rebinds,
            affinity_bind_and_rebind_are_atomic,
            lease_guard_releases_on_drop_and_panic,
            circuit_opens_blocks_acquire_and_recovers,
            release_and_failover_feed_the_circuit,
            half_open_lets_one_probe_through,
            a_failed_or_lost_probe_reopens_or_expires,
            a_failover_that_trips_the_circuit_is_refused,
            cooldown_keeps_the_later_deadline,
            model_exclusions_are_bounded,
            continuation_pins_fail_closed_for_other_keys,
            continuation_pins_expire,
            oauth_flow_claim_rules,
            oauth_racing_completions_claim_once,
            oauth_expired_claim_can_be_taken_over,
            leaked_lease_expires_and_stale_holder_is_fenced,
            period_lease_is_won_once_among_many,
            two_replicas_run_each_period_exactly_once,
            notifications_reach_every_subscriber,
            login_attempts_count_atomically_and_uncount_to_zero,
            login_attempt_window_ends,
            admin_sessions_keep_their_stamp_and_end_per_user,
            transcripts_are_read_back_by_their_key_only,
            transcripts_expire,
        );
    };
}

pub(crate) use contract_tests;
pub(crate) use coordination_contract_suite;
