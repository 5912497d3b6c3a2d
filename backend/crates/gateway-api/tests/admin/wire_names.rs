//! The admin API's closed sets keep the core's spellings: every variant of a core set serialises
//! through its schema enum to the core's own `as_str`, and the document lists exactly those
//! strings, so the wire and the dashboard's types cannot drift from the database and the docs.

use gateway_api::admin::{Provider, RequestStatusName, RoutingScopeName, SendStateName, TransportName};
use gateway_core::domain::{ProviderKind, RequestStatus, RoutingScope, SendState, Transport};
use serde::Serialize;
use serde_json::{Value, json};

fn wire<T: Serialize>(value: T) -> Value {
    serde_json::to_value(value).expect("a closed-set name serialises")
}

/// The `enum` strings of a component schema of the admin document.
fn schema_enum(name: &str) -> Vec<String> {
    let doc = serde_json::to_value(gateway_api::admin_openapi()).expect("the document serialises");
    let values = doc["components"]["schemas"][name]["enum"].as_array().cloned().unwrap_or_default();
    values.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect()
}

fn spellings<T: Copy>(all: &[T], as_str: fn(T) -> &'static str) -> Vec<String> {
    all.iter().map(|v| as_str(*v).to_owned()).collect()
}

#[test]
fn request_statuses_keep_the_core_spelling() {
    for status in RequestStatus::ALL {
        assert_eq!(wire(RequestStatusName::from(*status)), json!(status.as_str()), "{status:?}");
    }
    assert_eq!(schema_enum("RequestStatusName"), spellings(RequestStatus::ALL, RequestStatus::as_str));
}

#[test]
fn send_states_keep_the_core_spelling() {
    for state in SendState::ALL {
        assert_eq!(wire(SendStateName::from(*state)), json!(state.as_str()), "{state:?}");
    }
    assert_eq!(schema_enum("SendStateName"), spellings(SendState::ALL, SendState::as_str));
}

#[test]
fn transports_keep_the_core_spelling() {
    for transport in Transport::ALL {
        assert_eq!(wire(TransportName::from(*transport)), json!(transport.as_str()), "{transport:?}");
    }
    assert_eq!(schema_enum("TransportName"), spellings(Transport::ALL, Transport::as_str));
}

#[test]
fn providers_keep_the_core_spelling() {
    for provider in ProviderKind::ALL {
        assert_eq!(wire(Provider::from(provider)), json!(provider.as_str()), "{provider:?}");
    }
    assert_eq!(schema_enum("Provider"), spellings(&ProviderKind::ALL, ProviderKind::as_str));
}

#[test]
fn routing_scopes_keep_the_core_spelling() {
    for scope in RoutingScope::ALL {
        assert_eq!(wire(RoutingScopeName::from(*scope)), json!(scope.as_str()), "{scope:?}");
    }
    assert_eq!(schema_enum("RoutingScopeName"), spellings(RoutingScope::ALL, RoutingScope::as_str));
}

/// The request summary (`RecordItem`) and its attempts name the closed sets, not `string`.
#[test]
fn the_request_summary_names_its_closed_sets() {
    let doc = serde_json::to_value(gateway_api::admin_openapi()).expect("the document serialises");
    let schemas = &doc["components"]["schemas"];
    let refers = |schema: &str, field: &str, target: &str| {
        let property = schemas[schema]["properties"][field].to_string();
        assert!(
            property.contains(&format!("\"#/components/schemas/{target}\"")),
            "{schema}.{field} should be {target}, is {property}"
        );
    };
    refers("RecordItem", "status", "RequestStatusName");
    refers("RecordItem", "sendState", "SendStateName");
    refers("RecordItem", "provider", "Provider");
    refers("RecordItem", "transport", "TransportName");
    refers("RecordItem", "routingScope", "RoutingScopeName");
    refers("AttemptView", "provider", "Provider");
    refers("AttemptView", "sendState", "SendStateName");
    refers("RecordDetail", "attempts", "AttemptView");
    refers("RecordDetail", "routingGroups", "RoutingGroupView");
}
