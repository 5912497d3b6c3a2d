use gateway_core::domain::{CredentialSlot, CredentialState, ProviderKind, QuotaState};
use gateway_core::fault::Fault;
use gateway_core::snapshot::{AccountState, CoolingDown, resolve_account_state};
use time::{Duration, OffsetDateTime};

use crate::fixtures::account;

#[test]
fn state_is_derived_with_the_documented_precedence() {
    let now = OffsetDateTime::now_utc();
    let later = now + Duration::minutes(5);
    let mut a = account(1, ProviderKind::Openai);
    assert_eq!(resolve_account_state(&a, None, now), AccountState::Normal);
    let cooling = |until| Some(CoolingDown { until, fault: Some(Fault::CloudflareChallenge) });
    assert_eq!(
        resolve_account_state(&a, cooling(later), now),
        AccountState::RateLimited { until: later, fault: Some(Fault::CloudflareChallenge) }
    );
    assert_eq!(resolve_account_state(&a, cooling(now - Duration::seconds(1)), now), AccountState::Normal);
    a.quota.state = QuotaState::Exhausted;
    assert_eq!(resolve_account_state(&a, cooling(later), now), AccountState::QuotaExhausted);
    a.credential_facts.state = CredentialState::Invalid;
    a.credential_facts.reason = Some("refresh_token_reused".to_owned());
    assert_eq!(resolve_account_state(&a, None, now), AccountState::Error { reason: "refresh_token_reused".to_owned() });
    a.credential = CredentialSlot::Unreadable { key_id: "old".to_owned() };
    a.credential_facts.state = CredentialState::Active;
    assert_eq!(
        resolve_account_state(&a, None, now),
        AccountState::Error { reason: "credential_unreadable".to_owned() }
    );
    a.scheduling.enabled = false;
    assert_eq!(resolve_account_state(&a, None, now), AccountState::Disabled);
}
