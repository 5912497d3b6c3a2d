//! The `engine` section: its defaults map onto the engine's settings, its rules name the key.

use std::time::Duration;

use gateway_core::engine::{EngineConfig, EngineSettings};

#[test]
fn the_defaults_are_the_engines_defaults() {
    let config = EngineConfig::default();
    assert_eq!(config.validate(), Ok(()));
    let settings = config.settings(None);
    let defaults = EngineSettings::default();
    assert_eq!(settings.max_attempts, defaults.max_attempts);
    assert_eq!(settings.lease_ttl, defaults.lease_ttl);
    assert_eq!(settings.max_interval_wait, defaults.max_interval_wait);
    assert_eq!(settings.header_timeout, Duration::from_secs(90));
    assert_eq!(settings.request_deadline, defaults.request_deadline);
    assert_eq!(settings.circuit.failure_threshold, defaults.circuit.failure_threshold);
    assert_eq!(settings.circuit.open_for, defaults.circuit.open_for);
}

#[test]
fn the_header_timeout_is_the_engines_own_key() {
    let config = EngineConfig { header_timeout_seconds: 12, ..EngineConfig::default() };
    assert_eq!(config.settings(None).header_timeout, Duration::from_secs(12));
    assert_eq!(config.settings(None).probe_ttl(), Duration::from_secs(42));
    for bad in [0, 3601] {
        let refused = EngineConfig { header_timeout_seconds: bad, ..EngineConfig::default() }.validate();
        assert_eq!(refused.map_err(|e| e.key), Err("header_timeout_seconds".to_owned()), "{bad}");
    }
}

#[test]
fn each_rule_names_its_key_relative_to_the_section() {
    let cases: [(EngineConfig, &str); 6] = [
        (EngineConfig { max_attempts: 17, ..EngineConfig::default() }, "max_attempts"),
        (EngineConfig { lease_ttl_seconds: 2, ..EngineConfig::default() }, "lease_ttl_seconds"),
        (EngineConfig { request_deadline_seconds: 59, ..EngineConfig::default() }, "request_deadline_seconds"),
        (EngineConfig { observation_queue_bytes: 1024, ..EngineConfig::default() }, "observation_queue_bytes"),
        (EngineConfig { circuit_open_seconds: 0, ..EngineConfig::default() }, "circuit_open_seconds"),
        (EngineConfig { snapshot_poll_ms: 99, ..EngineConfig::default() }, "snapshot_poll_ms"),
    ];
    for (config, key) in cases {
        assert_eq!(config.validate().map_err(|e| e.key), Err(key.to_owned()));
    }
}
