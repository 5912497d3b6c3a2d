//! `deploy/compose.yaml` (production: gateway + PostgreSQL + Redis) and
//! `deploy/compose.embedded.yaml` (the gateway alone): start order, volumes, secrets, port.
//! Their validity against the Compose specification is checked by `scripts/check-deploy`.

use std::collections::BTreeSet;

use serde_json::Value;

use super::files::{read, yaml};

const FILES: &[&str] = &["deploy/compose.yaml", "deploy/compose.embedded.yaml"];

/// Names of the `${VAR…}` interpolations in a text.
fn interpolated(text: &str) -> BTreeSet<String> {
    text.split("${")
        .skip(1)
        .filter_map(|rest| {
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

fn env_example() -> Vec<(String, String)> {
    read("deploy/.env.example")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (k, v) = l.split_once('=').unwrap_or_else(|| panic!(".env.example line {l} is not K=V"));
            (k.to_owned(), v.to_owned())
        })
        .collect()
}

fn gateway_env(compose: &Value) -> serde_json::Map<String, Value> {
    compose["services"]["gateway"]["environment"].as_object().cloned().expect("gateway environment as a mapping")
}

#[test]
fn the_gateway_starts_after_healthy_postgres_and_redis() {
    let compose = yaml("deploy/compose.yaml");
    let services = compose["services"].as_object().expect("services");
    let names: BTreeSet<&str> = services.keys().map(String::as_str).collect();
    assert_eq!(names, BTreeSet::from(["gateway", "postgres", "redis"]));
    for dependency in ["postgres", "redis"] {
        assert_eq!(
            compose["services"]["gateway"]["depends_on"][dependency]["condition"], "service_healthy",
            "the gateway waits for a healthy {dependency}"
        );
        assert!(compose["services"][dependency]["healthcheck"]["test"].is_array(), "{dependency} has a healthcheck");
    }
    let env = gateway_env(&compose);
    let database = env["SWITCHBOARD_DATABASE_URL"].as_str().expect("database url");
    assert!(database.starts_with("postgres://switchboard:${POSTGRES_PASSWORD") && database.contains("@postgres:5432/"));
    assert_eq!(env["SWITCHBOARD_REDIS_URL"], "redis://redis:6379");
    for file in FILES {
        let compose = yaml(file);
        assert!(compose["services"]["gateway"]["restart"].is_string(), "{file}: the gateway restarts");
        assert_eq!(compose["services"]["gateway"]["build"]["dockerfile"], "deploy/Dockerfile");
    }
}

#[test]
fn state_lives_in_named_volumes() {
    let compose = yaml("deploy/compose.yaml");
    let declared: BTreeSet<&str> =
        compose["volumes"].as_object().expect("volumes").keys().map(String::as_str).collect();
    assert_eq!(declared, BTreeSet::from(["gateway-data", "postgres-data"]));
    assert_eq!(
        compose["services"]["postgres"]["volumes"],
        serde_json::json!(["postgres-data:/var/lib/postgresql/data"])
    );
    assert_eq!(compose["services"]["gateway"]["volumes"], serde_json::json!(["gateway-data:/data"]));
    assert!(compose["services"]["redis"]["volumes"].is_null(), "Redis keeps only rebuildable state");
}

#[test]
fn the_published_port_is_on_loopback_by_default() {
    for file in FILES {
        let compose = yaml(file);
        let ports = compose["services"]["gateway"]["ports"].as_array().expect("ports");
        assert_eq!(ports.len(), 1);
        let port = ports[0].as_str().expect("short syntax");
        assert_eq!(port, "${SWITCHBOARD_BIND:-127.0.0.1}:${SWITCHBOARD_PORT:-8080}:8080", "{file}");
        for service in compose["services"].as_object().expect("services").keys().filter(|s| *s != "gateway") {
            assert!(compose["services"][service]["ports"].is_null(), "{file}: {service} publishes no port");
        }
    }
    let example = env_example();
    assert!(example.contains(&("SWITCHBOARD_BIND".to_owned(), "127.0.0.1".to_owned())));
}

#[test]
fn secrets_come_from_the_env_file() {
    let example = env_example();
    let documented: BTreeSet<&str> = example.iter().map(|(k, _)| k.as_str()).collect();
    for file in FILES {
        for name in interpolated(&read(file)) {
            assert!(documented.contains(name.as_str()), "{file} uses ${{{name}}}, missing from deploy/.env.example");
        }
        let compose = yaml(file);
        for (service, definition) in compose["services"].as_object().expect("services") {
            for (key, value) in definition["environment"].as_object().into_iter().flatten() {
                let secret = ["PASSWORD", "MASTER_KEY", "SECRET"].iter().any(|s| key.contains(s));
                let text = value.as_str().unwrap_or_default();
                if secret {
                    assert!(text.starts_with("${"), "{file}: {service}.{key} must come from .env, not be written here");
                }
            }
        }
    }
    for (key, value) in &example {
        if ["PASSWORD", "MASTER_KEY"].iter().any(|s| key.contains(s)) {
            assert!(value.is_empty(), ".env.example must not carry a value for {key}");
        }
    }
    let gitignore = read(".gitignore");
    let dockerignore = read(".dockerignore");
    assert!(dockerignore.lines().any(|l| l.trim() == "deploy/.env"), "the filled-in .env stays out of images");
    assert!(gitignore.lines().any(|l| l.trim() == "/deploy/.env"), "the filled-in .env stays out of git");
}

#[test]
fn the_embedded_variant_is_the_gateway_alone_with_one_volume() {
    let compose = yaml("deploy/compose.embedded.yaml");
    let services: Vec<&str> = compose["services"].as_object().expect("services").keys().map(String::as_str).collect();
    assert_eq!(services, ["gateway"]);
    let env = gateway_env(&compose);
    for key in ["SWITCHBOARD_DATABASE_URL", "SWITCHBOARD_REDIS_URL"] {
        assert!(!env.contains_key(key), "the embedded mode has no {key}");
    }
    let declared: Vec<&str> = compose["volumes"].as_object().expect("volumes").keys().map(String::as_str).collect();
    assert_eq!(declared, ["gateway-data"]);
    assert_eq!(compose["services"]["gateway"]["volumes"], serde_json::json!(["gateway-data:/data"]));
    assert!(compose["services"]["gateway"]["depends_on"].is_null());
}

#[test]
fn the_gateway_container_is_locked_down() {
    for file in FILES {
        let gateway = &yaml(file)["services"]["gateway"];
        assert_eq!(gateway["read_only"], true, "{file}: read-only root file system");
        assert_eq!(gateway["cap_drop"], serde_json::json!(["ALL"]), "{file}");
        assert_eq!(gateway["security_opt"], serde_json::json!(["no-new-privileges:true"]), "{file}");
        assert_eq!(gateway["tmpfs"], serde_json::json!(["/tmp"]), "{file}");
    }
}

#[test]
fn the_interpolation_scanner_finds_names_with_and_without_defaults() {
    let names = interpolated("a ${A} b ${B_2:-x} c ${C:?msg} $D");
    assert_eq!(names, BTreeSet::from(["A".to_owned(), "B_2".to_owned(), "C".to_owned()]));
}
