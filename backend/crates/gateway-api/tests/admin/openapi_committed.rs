//! The document the handlers generate is the one the dashboard's types come from
//! (`frontend/src/api/openapi.json`, decision 0170): a handler refactor that changes a route,
//! a schema or a response fails here before the browser tests run.

use serde_json::Value;

#[test]
fn the_generated_document_equals_the_committed_one() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../frontend/src/api/openapi.json");
    let committed: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the committed document")).expect("JSON");
    let generated = serde_json::to_value(gateway_api::admin_openapi()).expect("the document serialises");
    if std::env::var_os("SWITCHBOARD_WRITE_OPENAPI").is_some() {
        let text = serde_json::to_string_pretty(&generated).expect("the document serialises") + "\n";
        std::fs::write(path, text).expect("the committed document is writable");
        return;
    }
    assert!(
        generated == committed,
        "the admin OpenAPI document differs from frontend/src/api/openapi.json; regenerate it (SWITCHBOARD_WRITE_OPENAPI=1 cargo nextest run -p gateway-api openapi_committed, then npm run gen:api in frontend/)"
    );
}
