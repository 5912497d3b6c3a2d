//! `QuotaProbe` for xAI: `GET {inference}/billing?format=credits` (PROTOCOL H.8), shown per
//! account as one quota window named `credits` (used % of the period, reset at the period's
//! end), like OpenAI's windows. Access counts as allowed only on positive evidence.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::domain::{ProviderKind, QuotaFacts, QuotaState, QuotaWindow};
use gateway_core::quota_probe::{QuotaProbe, QuotaProbeFailure};
use gateway_core::snapshot::AccountEntry;
use gateway_transport::HttpRequest;
use serde_json::Value;
use time::OffsetDateTime;

use crate::provider::XaiProvider;

const FETCH_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_BODY: usize = 1024 * 1024;

fn cents(config: &Value, name: &str) -> Option<i64> {
    config.get(name)?.get("val")?.as_i64().filter(|v| *v >= 0)
}

/// The quota facts of a billing document; `None` without clear evidence.
pub fn parse_billing(body: &Value, now: OffsetDateTime) -> Option<QuotaFacts> {
    let config = body.get("config")?;
    let limit = cents(config, "monthlyLimit");
    let used = cents(config, "used");
    let percent =
        config.get("creditUsagePercent").and_then(Value::as_f64).filter(|p| (0.0..=100.0).contains(p)).or_else(
            || match (used, limit) {
                (Some(used), Some(limit)) if limit > 0 => Some(used as f64 * 100.0 / limit as f64),
                _ => None,
            },
        )?;
    let period = config.get("currentPeriod");
    let parse_time = |key: &str| {
        let text = period?.get(key)?.as_str()?;
        OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok()
    };
    let end = parse_time("end");
    let start = parse_time("start");
    let minutes = match (start, end) {
        (Some(start), Some(end)) if end > start => Some((end - start).whole_minutes()),
        _ => None,
    };
    let balance = cents(config, "prepaidBalance").unwrap_or(0);
    let on_demand = body.get("onDemandEnabled").and_then(Value::as_bool) == Some(true)
        && cents(config, "onDemandUsed") < cents(config, "onDemandCap");
    let period_current = end.is_some_and(|e| e > now);
    let state = if percent >= 100.0 && balance == 0 && !on_demand {
        QuotaState::Exhausted
    } else if period_current && (percent < 100.0 || balance > 0 || on_demand) {
        QuotaState::Allowed
    } else {
        QuotaState::Unknown
    };
    let window = QuotaWindow {
        name: "credits".to_owned(),
        used_percent: percent,
        window_minutes: minutes,
        reset_at: end.map(OffsetDateTime::unix_timestamp),
        plan_type: body.get("subscriptionTier").and_then(Value::as_str).map(str::to_owned),
    };
    Some(QuotaFacts { state, windows: vec![window], observed_at: Some(now) })
}

#[async_trait]
impl QuotaProbe for XaiProvider {
    fn provider(&self) -> ProviderKind {
        ProviderKind::Xai
    }

    async fn probe_quota(&self, account: &AccountEntry) -> Result<Option<QuotaFacts>, QuotaProbeFailure> {
        let credential = self.freshest_credential(account).await.map_err(|_| QuotaProbeFailure::NoCredential)?;
        let now = OffsetDateTime::now_utc();
        if credential.expires_at.is_some_and(|e| e <= now.unix_timestamp()) {
            return Err(QuotaProbeFailure::AccessTokenExpired);
        }
        let headers = crate::headers::metadata(&credential, &self.client_version().current())
            .map_err(|_| QuotaProbeFailure::NoCredential)?;
        let request = HttpRequest::get(&format!("{}/billing?format=credits", self.inference_url()))
            .map_err(|e| QuotaProbeFailure::Transient(e.to_string()))?
            .headers(headers);
        let proxy = crate::egress::proxy_of(account)
            .map_err(|_| QuotaProbeFailure::Transient("the egress proxy is not usable".into()))?;
        let fetched = self
            .http()
            .fetch(request, proxy.as_ref(), FETCH_TIMEOUT, MAX_BODY)
            .await
            .map_err(|e| QuotaProbeFailure::Transient(e.to_string()))?;
        match fetched.status {
            200 => {}
            401 | 403 => return Err(QuotaProbeFailure::Unauthorized),
            status => return Err(QuotaProbeFailure::Transient(format!("the billing endpoint answered {status}"))),
        }
        let body: Value = serde_json::from_slice(&fetched.body)
            .map_err(|_| QuotaProbeFailure::Transient("the billing answer is not JSON".to_owned()))?;
        Ok(parse_billing(&body, now))
    }
}
