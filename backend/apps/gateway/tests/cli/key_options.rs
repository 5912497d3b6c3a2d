//! `switchboard key create` options: dollar budgets are parsed exactly and bad ones refused
//! with exit code 2 before anything is stored.

use gateway_core::domain::NanoUsd;
use switchboard::cli::parse_usd;

#[test]
fn dollar_amounts_become_exact_nano_usd() {
    assert_eq!(parse_usd("2"), Ok(NanoUsd(2_000_000_000)));
    assert_eq!(parse_usd("2.5"), Ok(NanoUsd(2_500_000_000)));
    assert_eq!(parse_usd("0.004"), Ok(NanoUsd(4_000_000)));
    assert_eq!(parse_usd("0.000000001"), Ok(NanoUsd(1)));
    for bad in ["", ".5", "-1", "1e3", "1.0000000001", "0", "0.0", "abc", "99999999999999"] {
        assert!(parse_usd(bad).is_err(), "{bad:?} is refused");
    }
}

#[test]
fn a_bad_budget_on_the_command_line_exits_2() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .env_clear()
        .args(["key", "create", "k", "--daily-usd", "lots"])
        .output()
        .expect("the switchboard binary runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--daily-usd") && stderr.contains("not an amount of US dollars"), "{stderr}");
}
