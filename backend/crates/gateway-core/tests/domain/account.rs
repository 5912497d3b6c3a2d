use gateway_core::domain::{CredentialState, QuotaState, SchedulingFacts, Weight};

#[test]
fn weight_is_bounded_to_1_through_100_and_defaults_to_1() {
    assert!(Weight::new(0).is_err());
    assert!(Weight::new(101).is_err());
    assert_eq!(Weight::new(100).map(Weight::get), Ok(100));
    assert_eq!(SchedulingFacts::default().weight.get(), 1);
    assert!(serde_json::from_str::<Weight>("0").is_err());
}

#[test]
fn closed_sets_round_trip_their_stored_spelling() {
    for state in CredentialState::ALL {
        assert_eq!(state.as_str().parse::<CredentialState>(), Ok(*state));
        assert_eq!(serde_json::to_value(state).ok(), Some(serde_json::Value::from(state.as_str())));
    }
    assert_eq!("exhausted".parse::<QuotaState>(), Ok(QuotaState::Exhausted));
    let err = "paused".parse::<QuotaState>().expect_err("not in the set");
    assert_eq!(err.to_string(), "unknown quota state `paused`");
}
