use gateway_core::domain::SendState;

#[test]
fn the_watermark_only_rises() {
    assert!(SendState::NotSent < SendState::Ambiguous && SendState::Ambiguous < SendState::Sent);
    assert_eq!(SendState::Sent.raise(SendState::NotSent), SendState::Sent);
    assert_eq!(SendState::NotSent.raise(SendState::Ambiguous), SendState::Ambiguous);
}
