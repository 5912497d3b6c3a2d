use gateway_core::domain::AttemptOutcome;
use gateway_core::fault::Fault;

#[test]
fn every_attempt_outcome_reads_back_from_its_stored_text() {
    let mut outcomes = vec![AttemptOutcome::Started, AttemptOutcome::Ok];
    outcomes.extend(Fault::ALL.iter().copied().map(AttemptOutcome::Failed));
    for outcome in outcomes {
        assert_eq!(outcome.as_str().parse::<AttemptOutcome>(), Ok(outcome));
    }
    let unknown = "upstream_exploded".parse::<AttemptOutcome>().expect_err("not an outcome");
    assert_eq!(unknown.to_string(), "unknown attempt outcome `upstream_exploded`");
}
