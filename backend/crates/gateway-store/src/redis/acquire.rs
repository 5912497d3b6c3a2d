//! `RequestSlots` over the acquire / release / slot_status scripts. `acquire.lua` is core's
//! acquire plan (`gateway_core::coordination::acquire_plan`) written for Redis, held to it by
//! the contract suite's property test.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::coordination::cooldown::MAX_MODEL_EXCLUSIONS;
use gateway_core::coordination::time::duration_millis;
use gateway_core::coordination::{
    AccountFeedback, AccountLease, AcquireOutcome, AcquireRequest, AdmissionDenial, AdmissionLease, AffinityOutcome,
    BudgetKind, CandidateVerdict, CircuitOutcome, CircuitReport, CoordinationError, FenceToken, Grant, HeldLeases,
    Ineligible, LeaseStatus, NoAccount, ReleaseOutcome, ReleaseRequest, RequestSlots, UnixMillis,
};
use gateway_core::domain::AccountId;
use gateway_core::selection;

use super::RedisCoordination;
use super::reply::Reply;

/// How long a day's spend counters outlive their last write (the day is over by then).
const SPEND_DAY_LIFETIME_MS: u64 = 2 * 86_400_000;
/// How long a month's spend counters outlive their last write (longer than any month).
const SPEND_MONTH_LIFETIME_MS: u64 = 40 * 86_400_000;

#[async_trait]
impl RequestSlots for RedisCoordination {
    async fn acquire(&self, request: &AcquireRequest) -> Result<AcquireOutcome, CoordinationError> {
        request.validate()?;
        let keys = &self.keys;
        let (admission_slots, admission_rpm) = match request.admission {
            Some(limits) => (keys.admission_slots(limits.client_key), keys.admission_rpm(limits.client_key)),
            None => (keys.unused(), keys.unused()),
        };
        let (spend_day, spend_month) = match request.admission {
            Some(limits) if !limits.budgets.is_unlimited() => (
                keys.spend_day(limits.client_key, limits.period.day),
                keys.spend_month(limits.client_key, limits.period.month),
            ),
            _ => (keys.unused(), keys.unused()),
        };
        let affinity_key = request.affinity.map_or_else(|| keys.unused(), |a| keys.affinity(&a.key));
        let replaced_account = request.replaces.as_ref().map(|r| r.lease.account);
        let mut call = self
            .scripts
            .acquire
            .call()
            .key(admission_slots)
            .key(admission_rpm)
            .key(affinity_key)
            .key(keys.circuit(request.provider));
        call = match replaced_account {
            Some(account) => {
                call.key(keys.account(account)).key(keys.account_slots(account)).key(keys.account_exclusions(account))
            }
            None => call.key(keys.unused()).key(keys.unused()).key(keys.unused()),
        };
        call = call.key(spend_day).key(spend_month).key(keys.boot_slots(request.owner));
        let replaced_circuit = request.replaces.as_ref().and_then(|r| r.circuit.as_ref());
        call = call.key(replaced_circuit.map_or_else(|| keys.unused(), |report| keys.circuit(report.provider)));
        for candidate in &request.candidates {
            call = call
                .key(keys.account(candidate.account))
                .key(keys.account_slots(candidate.account))
                .key(keys.account_exclusions(candidate.account));
        }
        let limit_arg = |limit: Option<u32>| limit.map_or(-1, i64::from);
        let (feedback_kind, feedback_ms, feedback_model) =
            feedback_args(request.replaces.as_ref().and_then(|r| r.feedback.as_ref()));
        call = call
            .arg(request.request.to_string())
            .arg(duration_millis(request.lease_ttl))
            .arg(request.admission.map_or_else(String::new, |a| limit_arg(a.max_concurrency).to_string()))
            .arg(request.admission.map_or(-1, |a| limit_arg(a.requests_per_minute)))
            .arg(selection::strategy_words(request.strategy))
            .arg(request.model.as_str())
            .arg(request.affinity.map_or_else(String::new, |a| duration_millis(a.idle_ttl).to_string()))
            .arg(replaced_account.map_or_else(String::new, |a| a.to_string()))
            .arg(request.replaces.as_ref().map_or_else(String::new, |r| r.lease.token.to_string()))
            .arg(feedback_kind)
            .arg(feedback_ms)
            .arg(feedback_model)
            .arg(MAX_MODEL_EXCLUSIONS);
        let budgets = request.admission.map(|a| a.budgets).unwrap_or_default();
        for kind in BudgetKind::ALL {
            call = call.arg(kind.limit(&budgets).map_or(-1, |limit| i64::try_from(limit).unwrap_or(i64::MAX)));
        }
        let (kind, probe, threshold, open_ms) = circuit_args(replaced_circuit);
        call = call.arg(duration_millis(request.probe_ttl)).arg(kind).arg(probe).arg(threshold).arg(open_ms);
        for (candidate, rank) in request.candidates.iter().zip(static_ranks(request)) {
            call = call
                .arg(candidate.account.to_string())
                .arg(candidate.max_in_flight)
                .arg(duration_millis(candidate.request_interval))
                .arg(candidate.weight)
                .arg(rank);
        }
        let mut reply = Reply::new(self.scripts.acquire.name, call.invoke(&self.connection).await?)?;
        parse_acquire(&mut reply, request)
    }

    async fn release(&self, release: &ReleaseRequest) -> Result<ReleaseOutcome, CoordinationError> {
        let (admission_key, request) = self.admission_member(&release.leases);
        let (slots_key, token) = self.account_member(&release.leases);
        let (account_key, exclusions_key) = match release.leases.account {
            Some(lease) => (self.keys.account(lease.account), self.keys.account_exclusions(lease.account)),
            None => (self.keys.unused(), self.keys.unused()),
        };
        let feedback = release.leases.account.and(release.feedback.as_ref());
        let (kind, ms, model) = feedback_args(feedback);
        let (spend_day, spend_month) = match release.spend {
            Some(spend) => (
                self.keys.spend_day(spend.client_key, spend.period.day),
                self.keys.spend_month(spend.client_key, spend.period.month),
            ),
            None => (self.keys.unused(), self.keys.unused()),
        };
        let circuit_key =
            release.circuit.as_ref().map_or_else(|| self.keys.unused(), |report| self.keys.circuit(report.provider));
        let (circuit_kind, probe, threshold, open_ms) = circuit_args(release.circuit.as_ref());
        let value = self
            .scripts
            .release
            .call()
            .key(admission_key)
            .key(account_key)
            .key(slots_key)
            .key(exclusions_key)
            .key(spend_day)
            .key(spend_month)
            .key(circuit_key)
            .arg(request)
            .arg(token)
            .arg(kind)
            .arg(ms)
            .arg(model)
            .arg(MAX_MODEL_EXCLUSIONS)
            .arg(release.spend.map_or_else(String::new, |spend| spend.tokens.to_string()))
            .arg(release.spend.map_or(0, |spend| spend.cost.0.max(0)))
            .arg(SPEND_DAY_LIFETIME_MS)
            .arg(SPEND_MONTH_LIFETIME_MS)
            .arg(circuit_kind)
            .arg(probe)
            .arg(threshold)
            .arg(open_ms)
            .invoke(&self.connection)
            .await?;
        let mut reply = Reply::new(self.scripts.release.name, value)?;
        Ok(ReleaseOutcome { admission: lease_status(&mut reply)?, account: lease_status(&mut reply)? })
    }

    async fn check_account_lease(&self, lease: &AccountLease) -> Result<LeaseStatus, CoordinationError> {
        let value = self
            .scripts
            .slot_status
            .call()
            .key(self.keys.account_slots(lease.account))
            .arg(lease.token.to_string())
            .invoke(&self.connection)
            .await?;
        lease_status(&mut Reply::new(self.scripts.slot_status.name, value)?)
    }
}

impl RedisCoordination {
    pub(super) fn admission_member(&self, leases: &HeldLeases) -> (String, String) {
        match leases.admission {
            Some(lease) => (self.keys.admission_slots(lease.client_key), lease.request.to_string()),
            None => (self.keys.unused(), String::new()),
        }
    }

    pub(super) fn account_member(&self, leases: &HeldLeases) -> (String, String) {
        match leases.account {
            Some(lease) => (self.keys.account_slots(lease.account), lease.token.to_string()),
            None => (self.keys.unused(), String::new()),
        }
    }
}

/// Core's static rank of each candidate (the script reads the dynamic state itself).
fn static_ranks(request: &AcquireRequest) -> Vec<u32> {
    let standings: Vec<_> = request.candidates.iter().map(|candidate| candidate.standing).collect();
    selection::ranks(&standings, request.strategy)
}

/// Report kind (`''` = no report, `none` = no verdict), probe flag, threshold, open period.
fn circuit_args(report: Option<&CircuitReport>) -> (&'static str, &'static str, u32, u64) {
    let Some(report) = report else { return ("", "0", 1, 0) };
    let kind = match report.outcome {
        None => "none",
        Some(CircuitOutcome::Success) => "success",
        Some(CircuitOutcome::Failure) => "failure",
    };
    let probe = if report.probe { "1" } else { "0" };
    (kind, probe, report.policy.failure_threshold.max(1), duration_millis(report.policy.open_for))
}

fn feedback_args(feedback: Option<&AccountFeedback>) -> (&'static str, u64, &str) {
    match feedback {
        None => ("", 0, ""),
        // The cooldown's fault rides in the model argument (the script stores it with the deadline).
        Some(AccountFeedback::Cooldown { duration, fault }) => ("cooldown", duration_millis(*duration), fault.as_str()),
        Some(AccountFeedback::ExcludeModel { model, ttl }) => ("exclude", duration_millis(*ttl), model.as_str()),
    }
}

pub(super) fn lease_status(reply: &mut Reply) -> Result<LeaseStatus, CoordinationError> {
    let status = reply.text()?;
    match status.as_str() {
        "held" => Ok(LeaseStatus::Held),
        "lost" => Ok(LeaseStatus::Lost),
        "absent" => Ok(LeaseStatus::Absent),
        other => Err(reply.unknown(other)),
    }
}

fn parse_acquire(reply: &mut Reply, request: &AcquireRequest) -> Result<AcquireOutcome, CoordinationError> {
    let outcome = reply.text()?;
    match outcome.as_str() {
        "ok" => {
            let now = UnixMillis(reply.u64()?);
            let account = parse_account(reply)?;
            let token = FenceToken(reply.u64()?);
            let in_flight = reply.u32()?;
            let admission_held = reply.i64()? == 1;
            let affinity_kind = reply.text()?;
            let affinity_account = reply.text()?;
            let probe = reply.i64()? == 1;
            let other = || parse_account_text(&affinity_account, reply);
            let affinity = match affinity_kind.as_str() {
                "none" => AffinityOutcome::NotRequested,
                "hit" => AffinityOutcome::Hit,
                "bound" => AffinityOutcome::Bound,
                "rebound" => AffinityOutcome::Rebound { from: other()? },
                "bypassed" => AffinityOutcome::Bypassed { bound: other()? },
                unknown => return Err(reply.unknown(unknown)),
            };
            let admission = match request.admission {
                Some(limits) if admission_held => {
                    Some(AdmissionLease { client_key: limits.client_key, request: request.request })
                }
                _ => None,
            };
            Ok(AcquireOutcome::Granted(Grant {
                account: AccountLease { account, token },
                admission,
                in_flight,
                affinity,
                now,
                probe,
            }))
        }
        "admission" => {
            let which = reply.text()?;
            let denial = match which.as_str() {
                "concurrency" => AdmissionDenial::Concurrency { limit: reply.u32()?, in_flight: reply.u32()? },
                "rate" => AdmissionDenial::RequestsPerMinute {
                    limit: reply.u32()?,
                    retry_after: Duration::from_millis(reply.u64()?),
                },
                "budget" => {
                    let (limit, spent) = (reply.u64()?, reply.u64()?);
                    let kind_text = reply.text()?;
                    let kind = BudgetKind::parse(&kind_text).ok_or_else(|| reply.unknown(&kind_text))?;
                    AdmissionDenial::Budget { kind, limit, spent }
                }
                unknown => return Err(reply.unknown(unknown)),
            };
            Ok(AcquireOutcome::AdmissionDenied(denial))
        }
        "circuit" => Ok(AcquireOutcome::CircuitOpen { until: UnixMillis(reply.u64()?) }),
        "none" => {
            let now = UnixMillis(reply.u64()?);
            let mut verdicts = Vec::with_capacity(request.candidates.len());
            for candidate in &request.candidates {
                let kind = reply.text()?;
                let a = reply.u64()?;
                let b = reply.u64()?;
                let reason = match kind.as_str() {
                    "cooldown" => Ineligible::CoolingDown { until: UnixMillis(a) },
                    "excluded" => Ineligible::ModelExcluded { until: UnixMillis(a) },
                    "cap" => Ineligible::AtCap {
                        in_flight: u32::try_from(a).unwrap_or(u32::MAX),
                        cap: u32::try_from(b).unwrap_or(u32::MAX),
                    },
                    "interval" => Ineligible::IntervalWait { wait: Duration::from_millis(a) },
                    unknown => return Err(reply.unknown(unknown)),
                };
                verdicts.push(CandidateVerdict { account: candidate.account, reason });
            }
            Ok(AcquireOutcome::NoAccount(NoAccount { verdicts, now }))
        }
        unknown => Err(reply.unknown(unknown)),
    }
}

fn parse_account(reply: &mut Reply) -> Result<AccountId, CoordinationError> {
    let text = reply.text()?;
    parse_account_text(&text, reply)
}

pub(super) fn parse_account_text(text: &str, reply: &Reply) -> Result<AccountId, CoordinationError> {
    text.parse::<i64>().map(AccountId).map_err(|_| reply.unknown(text))
}
