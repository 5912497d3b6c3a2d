//! Runtime settings validation.

use gateway_admin::settings::validate_settings;
use gateway_core::domain::RuntimeSettings;

#[test]
fn defaults_are_valid_and_each_range_names_its_field() {
    assert!(validate_settings(&RuntimeSettings::default()).is_ok());
    let s = RuntimeSettings { default_account_concurrency: 0, refresh_concurrency: 257, ..RuntimeSettings::default() };
    let error = validate_settings(&s).expect_err("invalid");
    let fields: Vec<String> = error.fields().into_iter().map(|f| f.field).collect();
    assert_eq!(fields, ["defaultAccountConcurrency", "refreshConcurrency"]);
}

#[test]
fn aliases_may_not_loop_chain_or_be_blank() {
    let mut s = RuntimeSettings::default();
    s.model_aliases.insert("fast".into(), "gpt-5.4-mini".into());
    assert!(validate_settings(&s).is_ok());
    s.model_aliases.insert("self".into(), "self".into());
    s.model_aliases.insert("chain".into(), "fast".into());
    s.model_aliases.insert(" ".into(), "x".into());
    let fields: Vec<String> =
        validate_settings(&s).expect_err("invalid").fields().into_iter().map(|f| f.field).collect();
    assert!(fields.contains(&"modelAliases.self".to_owned()));
    assert!(fields.contains(&"modelAliases.chain".to_owned()));
    assert!(fields.contains(&"modelAliases. ".to_owned()));
}
