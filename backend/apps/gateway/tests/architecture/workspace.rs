use std::path::PathBuf;
use std::process::Command;

use super::rules::{check, fake_metadata};

fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

#[test]
fn the_workspace_keeps_the_dependency_rules() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps", "--offline", "--manifest-path"])
        .arg(workspace_root().join("Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let names: Vec<&str> =
        metadata["packages"].as_array().expect("packages").iter().filter_map(|p| p["name"].as_str()).collect();
    assert!(names.contains(&"gateway-core") && names.contains(&"switchboard"), "unexpected workspace: {names:?}");
    let violations = check(&metadata);
    assert!(violations.is_empty(), "dependency rules broken:\n{}", violations.join("\n"));
}

#[test]
fn core_depending_on_a_database_crate_is_refused() {
    let metadata =
        fake_metadata(&[("gateway-protocol", &[]), ("gateway-core", &[("gateway-protocol", ""), ("sqlx", "")])]);
    assert_eq!(check(&metadata), vec!["gateway-core must not depend on sqlx".to_owned()]);
}

#[test]
fn core_depending_on_http_is_refused() {
    let metadata = fake_metadata(&[("gateway-core", &[("axum", "")])]);
    assert_eq!(check(&metadata), vec!["gateway-core must not depend on axum".to_owned()]);
}

#[test]
fn providers_depending_on_each_other_is_refused() {
    let metadata = fake_metadata(&[("provider-openai", &[("provider-xai", "")]), ("provider-xai", &[])]);
    assert_eq!(check(&metadata), vec!["provider-openai must not depend on workspace crate provider-xai".to_owned()]);
}

#[test]
fn api_importing_the_store_or_a_provider_is_refused() {
    let metadata = fake_metadata(&[
        ("gateway-api", &[("gateway-store", ""), ("provider-openai", ""), ("redis", "")]),
        ("gateway-store", &[]),
        ("provider-openai", &[]),
    ]);
    assert_eq!(
        check(&metadata),
        vec![
            "gateway-api must not depend on workspace crate gateway-store".to_owned(),
            "gateway-api must not depend on workspace crate provider-openai".to_owned(),
            "gateway-api must not depend on redis".to_owned(),
        ]
    );
}

#[test]
fn protocol_depending_on_any_workspace_crate_is_refused() {
    let metadata = fake_metadata(&[("gateway-protocol", &[("gateway-core", "")]), ("gateway-core", &[])]);
    assert_eq!(check(&metadata), vec!["gateway-protocol must not depend on workspace crate gateway-core".to_owned()]);
}

#[test]
fn only_the_composition_root_names_concrete_implementations() {
    let metadata = fake_metadata(&[("gateway-host", &[("gateway-store", "")]), ("gateway-store", &[])]);
    assert_eq!(check(&metadata), vec!["gateway-host must not depend on workspace crate gateway-store".to_owned()]);
}

#[test]
fn dev_dependencies_are_free_but_unknown_packages_need_a_rule() {
    let metadata = fake_metadata(&[("gateway-core", &[("sqlx", "dev")]), ("new-crate", &[])]);
    assert_eq!(
        check(&metadata),
        vec!["new-crate: no dependency rule; add one to tests/architecture/rules.rs".to_owned()]
    );
}

#[test]
fn reqwest_outside_tests_is_refused_for_the_host_and_the_binary() {
    let metadata = fake_metadata(&[
        ("gateway-host", &[("reqwest", "")]),
        ("switchboard", &[("reqwest", ""), ("gateway-host", "")]),
        ("gateway-core", &[("reqwest", "dev")]),
    ]);
    assert_eq!(
        check(&metadata),
        vec!["gateway-host must not depend on reqwest".to_owned(), "switchboard must not depend on reqwest".to_owned()]
    );
}

#[test]
fn the_binary_has_no_reqwest_in_its_production_tree() {
    // Direct edges are checked above; this catches one pulled in through a dependency's
    // feature (the OTLP exporter's blocking reqwest client, decision 0341).
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args(["tree", "--offline", "-e", "normal,build", "-p", "switchboard", "-i", "reqwest", "--manifest-path"])
        .arg(workspace_root().join("Cargo.toml"))
        .output()
        .expect("cargo tree runs");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(!printed.contains("reqwest v"), "reqwest is in the production tree:\n{printed}");
}
