//! The document lists exactly the admin routes (routes are registered only through the
//! document's router, so a route outside it cannot exist), as OpenAPI 3.1, with the error
//! envelope on every operation.

use std::collections::BTreeSet;

use serde_json::Value;

/// Every admin operation, as the dashboard and docs/admin-api.md name them.
const ROUTES: &[(&str, &str)] = &[
    ("post", "/api/admin/auth/login"),
    ("get", "/api/admin/auth/session"),
    ("post", "/api/admin/auth/logout"),
    ("get", "/api/admin/auth/sessions"),
    ("delete", "/api/admin/auth/sessions/{id}"),
    ("post", "/api/admin/auth/password"),
    ("post", "/api/admin/auth/api-key"),
    ("delete", "/api/admin/auth/api-key"),
    ("post", "/api/admin/auth/totp/enroll"),
    ("post", "/api/admin/auth/totp/confirm"),
    ("post", "/api/admin/auth/totp/disable"),
    ("get", "/api/admin/accounts"),
    ("get", "/api/admin/accounts/{id}"),
    ("patch", "/api/admin/accounts/{id}"),
    ("delete", "/api/admin/accounts/{id}"),
    ("post", "/api/admin/accounts/batch"),
    ("post", "/api/admin/accounts/import"),
    ("post", "/api/admin/accounts/export"),
    ("post", "/api/admin/accounts/{id}/refresh"),
    ("post", "/api/admin/accounts/{id}/probe"),
    ("post", "/api/admin/accounts/{id}/test"),
    ("put", "/api/admin/accounts/{id}/egress-proxy"),
    ("delete", "/api/admin/accounts/{id}/egress-proxy"),
    ("post", "/api/admin/accounts/{id}/egress-proxy/check"),
    ("post", "/api/admin/egress-proxies/check"),
    ("post", "/api/admin/oauth/{provider}/start"),
    ("post", "/api/admin/oauth/{provider}/complete"),
    ("post", "/api/admin/oauth/{provider}/device/start"),
    ("post", "/api/admin/oauth/{provider}/device/poll"),
    ("get", "/api/admin/groups"),
    ("post", "/api/admin/groups"),
    ("get", "/api/admin/groups/{id}"),
    ("patch", "/api/admin/groups/{id}"),
    ("delete", "/api/admin/groups/{id}"),
    ("put", "/api/admin/groups/{id}/members"),
    ("get", "/api/admin/groups/{id}/impact"),
    ("put", "/api/admin/groups/{id}/egress-proxy"),
    ("delete", "/api/admin/groups/{id}/egress-proxy"),
    ("get", "/api/admin/keys"),
    ("post", "/api/admin/keys"),
    ("get", "/api/admin/keys/{id}"),
    ("patch", "/api/admin/keys/{id}"),
    ("delete", "/api/admin/keys/{id}"),
    ("get", "/api/admin/settings"),
    ("patch", "/api/admin/settings"),
    ("get", "/api/admin/backups/settings"),
    ("put", "/api/admin/backups/settings"),
    ("get", "/api/admin/alerts/webhooks"),
    ("post", "/api/admin/alerts/webhooks"),
    ("get", "/api/admin/alerts/webhooks/{id}"),
    ("put", "/api/admin/alerts/webhooks/{id}"),
    ("delete", "/api/admin/alerts/webhooks/{id}"),
    ("post", "/api/admin/alerts/webhooks/{id}/test"),
    ("get", "/api/admin/alerts/rules"),
    ("put", "/api/admin/alerts/rules/{kind}"),
    ("get", "/api/admin/backups"),
    ("post", "/api/admin/backups"),
    ("get", "/api/admin/backups/{id}"),
    ("delete", "/api/admin/backups/{id}"),
    ("post", "/api/admin/backups/{id}/verify"),
    ("post", "/api/admin/backups/{id}/download-link"),
    ("get", "/api/admin/usage/records"),
    ("get", "/api/admin/usage/records/{id}"),
    ("get", "/api/admin/usage/insights"),
    ("get", "/api/admin/usage/trend"),
    ("get", "/api/admin/dashboard/summary"),
    ("get", "/api/admin/audit"),
    ("get", "/api/admin/audit/{id}"),
    ("post", "/api/admin/audit/verify"),
    ("get", "/api/admin/ops-events"),
    ("get", "/api/admin/system/version"),
    ("get", "/api/admin/system/update"),
    ("post", "/api/admin/system/update"),
    ("get", "/api/admin/system/update/events"),
    ("post", "/api/admin/system/rollback"),
    ("post", "/api/admin/system/restart"),
    ("get", "/api/admin/events"),
    ("get", "/api/admin/openapi.json"),
];

fn document() -> Value {
    serde_json::to_value(gateway_api::admin_openapi()).expect("the document serialises")
}

fn operations(doc: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_some() {
                out.insert((method.to_owned(), path.clone()));
            }
        }
    }
    out
}

#[test]
fn the_document_is_openapi_3_1_and_lists_exactly_the_admin_routes() {
    let doc = document();
    assert_eq!(doc["openapi"], "3.1.0");
    let expected: BTreeSet<(String, String)> = ROUTES.iter().map(|(m, p)| ((*m).to_owned(), (*p).to_owned())).collect();
    let actual = operations(&doc);
    let missing: Vec<_> = expected.difference(&actual).collect();
    let unexpected: Vec<_> = actual.difference(&expected).collect();
    assert!(missing.is_empty(), "routes missing from the document: {missing:?}");
    assert!(unexpected.is_empty(), "routes in the document but not in this table: {unexpected:?}");
}

#[test]
fn every_operation_documents_its_errors_and_every_schema_reference_resolves() {
    let doc = document();
    let schemas = doc["components"]["schemas"].as_object().expect("schemas");
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("item") {
            if path.ends_with("/openapi.json") {
                continue;
            }
            let responses = operation["responses"].as_object().expect("responses");
            assert!(responses.contains_key("4XX"), "{method} {path} documents no 4XX envelope");
        }
    }
    let text = doc.to_string();
    for reference in text.split("\"$ref\":\"#/components/schemas/").skip(1) {
        let name = reference.split('"').next().unwrap_or_default();
        assert!(schemas.contains_key(name), "unresolvable reference {name}");
    }
}

#[test]
fn sessions_and_api_keys_are_the_security_schemes_and_login_needs_neither() {
    let doc = document();
    let schemes = &doc["components"]["securitySchemes"];
    assert_eq!(schemes["session_cookie"]["in"], "cookie");
    assert_eq!(schemes["session_cookie"]["name"], "sb_admin_session");
    assert_eq!(schemes["admin_api_key"]["scheme"], "bearer");
    assert!(doc["security"].as_array().is_some_and(|s| s.len() == 2));
    assert_eq!(doc["paths"]["/api/admin/auth/login"]["post"]["security"], serde_json::json!([{}]));
}
