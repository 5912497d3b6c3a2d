//! Catalog and billing parsing (PROTOCOL H.8): a models answer is all or nothing; billing
//! becomes one `credits` quota window per account.

use gateway_core::domain::QuotaState;
use provider_xai::billing::parse_billing;
use provider_xai::catalog::parse_models;
use serde_json::json;
use time::OffsetDateTime;

#[test]
fn a_models_answer_is_all_or_nothing() {
    let body = json!({"object": "list", "data": [
        {"id": "grok-4.5", "apiKey": "leak", "baseUrl": "https://x", "extraHeaders": {"a": "b"}},
        {"modelId": "grok-build-0.1"},
        {"model": "grok-hidden", "hidden": true},
    ]});
    let ids: Vec<String> = parse_models(&body).expect("models").into_iter().map(|m| m.id).collect();
    assert_eq!(ids, ["grok-4.5", "grok-build-0.1"]);
    assert!(parse_models(&json!({"data": []})).is_none(), "empty");
    assert!(parse_models(&json!({"data": [{"id": "a"}, {"id": "a"}]})).is_none(), "duplicate slug");
    assert!(parse_models(&json!({"data": [{"name": "no slug"}]})).is_none(), "entry without slug");
}

#[test]
fn billing_becomes_a_credits_window_with_the_period_reset() {
    let now = OffsetDateTime::now_utc();
    let end = (now + time::Duration::days(10)).format(&time::format_description::well_known::Rfc3339).expect("fmt");
    let start = (now - time::Duration::days(20)).format(&time::format_description::well_known::Rfc3339).expect("fmt");
    let document = |percent: f64| {
        json!({"config": {"creditUsagePercent": percent, "monthlyLimit": {"val": 30000}, "used": {"val": 0},
            "prepaidBalance": {"val": 0}, "currentPeriod": {"type": "USAGE_PERIOD_TYPE_MONTHLY", "start": start, "end": end}},
            "onDemandEnabled": false, "subscriptionTier": "supergrok"})
    };
    let facts = parse_billing(&document(42.5), now).expect("facts");
    assert_eq!(facts.state, QuotaState::Allowed);
    let window = &facts.windows[0];
    assert_eq!((window.name.as_str(), window.used_percent), ("credits", 42.5));
    assert_eq!(window.window_minutes, Some(30 * 24 * 60));
    assert!(window.reset_at.is_some_and(|r| r > now.unix_timestamp()));
    assert_eq!(window.plan_type.as_deref(), Some("supergrok"));
    assert_eq!(parse_billing(&document(100.0), now).expect("facts").state, QuotaState::Exhausted);
    assert!(parse_billing(&json!({"config": {}}), now).is_none(), "no evidence, no facts");
}
