//! The rules as data, and a checker over `cargo metadata` output.

use std::collections::BTreeSet;

use serde_json::Value;

/// Infrastructure crates the domain must not see.
const INFRA: &[&str] = &["sqlx", "redis", "deadpool-redis", "aws-sdk-s3", "aws-config", "aws-smithy-runtime"];
/// HTTP stacks (server or client) the core must not see.
const HTTP: &[&str] =
    &["axum", "hyper", "hyper-util", "http", "reqwest", "tower-http", "tokio-tungstenite", "tungstenite"];

/// What each workspace package may depend on (normal and build dependencies).
struct Rule {
    package: &'static str,
    /// Workspace packages it may depend on.
    workspace: &'static [&'static str],
    /// Third-party crates it must not depend on.
    forbidden: &'static [&'static [&'static str]],
}

const RULES: &[Rule] = &[
    Rule { package: "gateway-protocol", workspace: &[], forbidden: &[INFRA, HTTP] },
    Rule { package: "gateway-core", workspace: &["gateway-protocol"], forbidden: &[INFRA, HTTP] },
    Rule { package: "gateway-admin", workspace: &["gateway-core", "gateway-protocol"], forbidden: &[INFRA, HTTP] },
    Rule {
        package: "gateway-store",
        workspace: &["gateway-core", "gateway-admin", "gateway-protocol"],
        forbidden: &[&["axum", "tower-http", "reqwest"]],
    },
    Rule {
        package: "gateway-api",
        workspace: &["gateway-core", "gateway-admin", "gateway-protocol", "gateway-host"],
        forbidden: &[INFRA, &["reqwest"]],
    },
    // The host's own calls (self-update, OTLP, webhooks) go through the one outbound stack
    // (decision 0341): no client stack of its own.
    Rule {
        package: "gateway-host",
        workspace: &["gateway-core", "gateway-transport"],
        forbidden: &[INFRA, &["reqwest"]],
    },
    // The upstream connector knows no provider and no storage.
    Rule { package: "gateway-transport", workspace: &["gateway-protocol"], forbidden: &[INFRA, &["axum", "reqwest"]] },
    Rule {
        package: "provider-openai",
        workspace: &["gateway-core", "gateway-protocol", "gateway-transport"],
        // The network only through gateway-transport: no client stack of its own.
        forbidden: &[INFRA, &["axum", "reqwest", "hyper", "hyper-util", "tokio-rustls", "httparse"]],
    },
    Rule {
        package: "provider-xai",
        workspace: &["gateway-core", "gateway-protocol", "gateway-transport"],
        forbidden: &[INFRA, &["axum", "reqwest", "hyper", "hyper-util", "tokio-rustls", "httparse"]],
    },
    Rule {
        package: "switchboard",
        workspace: &[
            "gateway-protocol",
            "gateway-core",
            "gateway-admin",
            "gateway-store",
            "gateway-api",
            "gateway-host",
            "provider-openai",
            "provider-xai",
            // The composition root hands the transport its connect-time address policy.
            "gateway-transport",
        ],
        // One outbound stack (decision 0341): reqwest only in tests.
        forbidden: &[&["reqwest"]],
    },
    // Tools are not shipped and must not share code with the product they test.
    Rule { package: "upstream-sim", workspace: &[], forbidden: &[] },
    Rule { package: "loadgen", workspace: &[], forbidden: &[] },
    Rule { package: "test-support", workspace: &["upstream-sim"], forbidden: &[] },
];

/// Checks `cargo metadata --no-deps` JSON; returns one line per broken rule.
pub fn check(metadata: &Value) -> Vec<String> {
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    let workspace: BTreeSet<String> = packages.iter().filter_map(|p| p["name"].as_str().map(str::to_owned)).collect();
    let mut violations = Vec::new();
    for package in &packages {
        let name = package["name"].as_str().unwrap_or_default();
        let Some(rule) = RULES.iter().find(|r| r.package == name) else {
            violations.push(format!("{name}: no dependency rule; add one to tests/architecture/rules.rs"));
            continue;
        };
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            if dep["kind"].as_str() == Some("dev") {
                continue;
            }
            let dep_name = dep["name"].as_str().unwrap_or_default();
            if workspace.contains(dep_name) {
                if !rule.workspace.contains(&dep_name) {
                    violations.push(format!("{name} must not depend on workspace crate {dep_name}"));
                }
            } else if rule.forbidden.iter().flat_map(|set| set.iter()).any(|f| *f == dep_name) {
                violations.push(format!("{name} must not depend on {dep_name}"));
            }
        }
    }
    violations
}

/// A minimal `cargo metadata` document: `(package, [(dependency, kind)])`.
pub fn fake_metadata(packages: &[(&str, &[(&str, &str)])]) -> Value {
    let packages: Vec<Value> = packages
        .iter()
        .map(|(name, deps)| {
            let deps: Vec<Value> = deps
                .iter()
                .map(|(dep, kind)| {
                    let kind = if kind.is_empty() { Value::Null } else { Value::String((*kind).to_owned()) };
                    serde_json::json!({"name": dep, "kind": kind})
                })
                .collect();
            serde_json::json!({"name": name, "dependencies": deps})
        })
        .collect();
    serde_json::json!({ "packages": packages })
}
