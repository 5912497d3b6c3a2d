//! The usage probe: `GET {backend}/wham/usage` (PROTOCOL §D.2) read into quota facts of the same
//! shape the rate-limit headers give, so probes and traffic merge into one state.

use std::time::Duration;

use async_trait::async_trait;
use gateway_core::domain::{ProviderKind, QuotaFacts, QuotaState, QuotaWindow};
use gateway_core::quota_probe::{QuotaProbe, QuotaProbeFailure};
use gateway_core::snapshot::AccountEntry;
use gateway_transport::HttpRequest;
use http::{HeaderName, HeaderValue};
use secrecy::ExposeSecret;
use serde_json::Value;
use time::OffsetDateTime;

use crate::credential::OpenAiCredential;
use crate::provider::OpenAiProvider;

const PROBE_TIMEOUT: Duration = Duration::from_secs(15);

/// The quota facts of a usage answer; `None` without clear evidence (no `rate_limit`).
pub fn facts_from_usage(body: &Value, now: OffsetDateTime) -> Option<QuotaFacts> {
    let limits = body.get("rate_limit").filter(|r| r.is_object())?;
    let plan = body.get("plan_type").and_then(Value::as_str);
    let mut windows = Vec::new();
    for (name, key) in [("primary", "primary_window"), ("secondary", "secondary_window")] {
        let Some(w) = limits.get(key).filter(|w| w.is_object()) else { continue };
        let Some(used) = w.get("used_percent").and_then(Value::as_f64) else { continue };
        let minutes = w.get("limit_window_seconds").and_then(Value::as_i64).map(|s| (s + 59) / 60);
        let reset_at = w
            .get("reset_at")
            .and_then(Value::as_i64)
            .or_else(|| w.get("reset_after_seconds").and_then(Value::as_i64).map(|s| now.unix_timestamp() + s));
        windows.push(QuotaWindow {
            name: name.to_owned(),
            used_percent: used,
            window_minutes: minutes,
            reset_at,
            plan_type: plan.map(str::to_owned),
        });
    }
    let allowed = limits.get("allowed").and_then(Value::as_bool);
    let reached = limits.get("limit_reached").and_then(Value::as_bool);
    let full = windows.iter().any(QuotaWindow::is_full);
    let state = match (allowed, reached) {
        (Some(false), _) | (_, Some(true)) => QuotaState::Exhausted,
        _ if full => QuotaState::Exhausted,
        (Some(true), _) => QuotaState::Allowed,
        _ => return None,
    };
    Some(QuotaFacts { state, windows, observed_at: Some(now) })
}

impl OpenAiProvider {
    async fn usage(&self, account: &AccountEntry, credential: &OpenAiCredential) -> Result<Value, QuotaProbeFailure> {
        let profile = self.profile().current();
        let bearer = HeaderValue::from_str(&format!("Bearer {}", credential.access_token.expose_secret()))
            .map_err(|_| QuotaProbeFailure::NoCredential)?;
        let account_id = credential.account_id.as_deref().unwrap_or(&account.record.external_account_id);
        let account_header = HeaderValue::from_str(account_id).map_err(|_| QuotaProbeFailure::NoCredential)?;
        let request = HttpRequest::get(&format!("{}/wham/usage", self.backend_url()))
            .map_err(|_| QuotaProbeFailure::Transient("the usage URL is invalid".into()))?
            .header(http::header::AUTHORIZATION, bearer)
            .header(HeaderName::from_static("chatgpt-account-id"), account_header);
        let request = profile.identify(request);
        let proxy = crate::egress::parse(account.egress_proxy.as_ref())
            .map_err(|_| QuotaProbeFailure::Transient(crate::egress::UNUSABLE.into()))?;
        let fetched =
            self.http().fetch(request, proxy.as_ref(), PROBE_TIMEOUT, 1 << 20).await.map_err(|e| match e {
                gateway_transport::FetchError::Timeout => QuotaProbeFailure::Transient("no answer in time".into()),
                gateway_transport::FetchError::Send(_) => QuotaProbeFailure::Transient("unreachable".into()),
                gateway_transport::FetchError::Body(_) => QuotaProbeFailure::Transient("the answer broke".into()),
            })?;
        match fetched.status {
            200 => {}
            401 | 403 => return Err(QuotaProbeFailure::Unauthorized),
            status => return Err(QuotaProbeFailure::Transient(format!("usage endpoint {status}"))),
        }
        let body = fetched.body;
        serde_json::from_slice(&body).map_err(|_| QuotaProbeFailure::Transient("malformed usage answer".into()))
    }
}

#[async_trait]
impl QuotaProbe for OpenAiProvider {
    fn provider(&self) -> ProviderKind {
        ProviderKind::Openai
    }

    async fn probe_quota(&self, account: &AccountEntry) -> Result<Option<QuotaFacts>, QuotaProbeFailure> {
        let now = OffsetDateTime::now_utc();
        let credential = self.freshest_credential(account).await.map_err(|_| QuotaProbeFailure::NoCredential)?;
        if credential.expires_at.is_some_and(|e| e <= now.unix_timestamp()) {
            return Err(QuotaProbeFailure::AccessTokenExpired);
        }
        let body = self.usage(account, &credential).await?;
        Ok(facts_from_usage(&body, now))
    }
}
