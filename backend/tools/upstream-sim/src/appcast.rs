//! Version sources for the gateway's request-profile checks: a Sparkle-style appcast for the
//! Codex desktop app (`/appcast.xml`, plus `/appcast.json`) and an npm-registry-shaped
//! `latest` document for the Grok CLI and for `@openai/codex` (`/npm/{package}`,
//! `/npm/{package}/latest`; scoped names as two segments or `%2F`).

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use http::{HeaderValue, StatusCode, header};
use serde_json::json;

use crate::request::json_response;
use crate::state::SimState;

pub fn router() -> Router<Arc<SimState>> {
    Router::new()
        .route("/appcast.xml", get(xml))
        .route("/appcast.json", get(json_doc))
        .route("/npm/{package}", get(packument))
        .route("/npm/{package}/latest", get(latest))
        .route("/npm/{scope}/{name}", get(scoped_packument))
        .route("/npm/{scope}/{name}/latest", get(scoped_latest))
}

async fn xml(State(state): State<Arc<SimState>>) -> Response {
    let settings = state.settings();
    let (version, build) = (settings.appcast_version, settings.appcast_build);
    let url = format!("{}/appcast/Codex-{version}.zip", state.base_url);
    let body = format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:sparkle="http://www.andymatuschak.org/xml-namespaces/sparkle">
  <channel>
    <title>Codex</title>
    <item>
      <title>{version}</title>
      <pubDate>Thu, 01 Jan 2026 00:00:00 +0000</pubDate>
      <sparkle:version>{build}</sparkle:version>
      <sparkle:shortVersionString>{version}</sparkle:shortVersionString>
      <sparkle:minimumSystemVersion>14.0</sparkle:minimumSystemVersion>
      <enclosure url="{url}" length="0" type="application/octet-stream" sparkle:edSignature="c2lt"/>
    </item>
  </channel>
</rss>
"#
    );
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/xml"))], body).into_response()
}

async fn json_doc(State(state): State<Arc<SimState>>) -> Response {
    let settings = state.settings();
    let url = format!("{}/appcast/Codex-{}.zip", state.base_url, settings.appcast_version);
    json_response(
        StatusCode::OK,
        &json!({"version": settings.appcast_version, "build": settings.appcast_build, "url": url}),
    )
}

/// The `latest` version of `name`: the Codex CLI's for `@openai/codex`, the Grok CLI's otherwise.
fn version_of(state: &SimState, name: &str) -> String {
    let settings = state.settings();
    if name == "@openai/codex" { settings.codex_cli_version } else { settings.grok_cli_version }
}

fn packument_body(state: &SimState, name: &str) -> Response {
    let version = version_of(state, name);
    json_response(
        StatusCode::OK,
        &json!({"name": name, "dist-tags": {"latest": version}, "versions": {version.clone(): {"name": name, "version": version}}}),
    )
}

async fn packument(State(state): State<Arc<SimState>>, Path(package): Path<String>) -> Response {
    packument_body(&state, &package)
}

async fn latest(State(state): State<Arc<SimState>>, Path(package): Path<String>) -> Response {
    let version = version_of(&state, &package);
    json_response(StatusCode::OK, &json!({"name": package, "version": version}))
}

async fn scoped_packument(State(state): State<Arc<SimState>>, Path((scope, name)): Path<(String, String)>) -> Response {
    packument_body(&state, &format!("{scope}/{name}"))
}

async fn scoped_latest(State(state): State<Arc<SimState>>, Path((scope, name)): Path<(String, String)>) -> Response {
    let package = format!("{scope}/{name}");
    let version = version_of(&state, &package);
    json_response(StatusCode::OK, &json!({"name": package, "version": version}))
}
