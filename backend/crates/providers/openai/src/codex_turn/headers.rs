//! The headers of an originated turn, in the order Codex 0.171's built-in provider sends them
//! with ChatGPT auth (recorded for decision 0330): `version`, its `x-codex-*` and session
//! headers (`x-codex-beta-features`, `x-codex-window-id`, `x-codex-turn-metadata`,
//! `x-codex-routing-hint`, `x-client-request-id`, `session-id`, `thread-id`), then the
//! transport's own in the order it built them, with `content-encoding` after `accept`.

use http::{HeaderMap, HeaderName, HeaderValue};

use super::CodexTurn;
use super::metadata::BETA_FEATURES;

/// Headers of the transport's map that the turn's replace: the gateway's own request id, and a
/// client's `session_id` (an SDK user's affinity signal, which seeded the conversation id and
/// goes upstream in Codex's spelling).
const REPLACED: &[&str] = &["x-client-request-id", "session_id", "session-id", "thread-id"];

/// The Codex client version header (`request_profile.rs`), first in Codex's order.
const VERSION: HeaderName = HeaderName::from_static("version");

impl CodexTurn {
    /// `sent` (the transport's headers, in their order) with this turn's headers; `compressed`:
    /// the body goes zstd-compressed.
    pub fn headers(&self, sent: HeaderMap, compressed: bool) -> HeaderMap {
        let mut out = HeaderMap::with_capacity(sent.len() + 8);
        if let Some(version) = sent.get(VERSION) {
            out.insert(VERSION, version.clone());
        }
        let codex = [
            ("x-codex-beta-features", BETA_FEATURES.to_owned()),
            ("x-codex-window-id", self.window_id()),
            ("x-codex-turn-metadata", self.turn_metadata.clone()),
            ("x-codex-routing-hint", format!("model={}", self.model)),
            ("x-client-request-id", self.conversation.clone()),
            ("session-id", self.conversation.clone()),
            ("thread-id", self.conversation.clone()),
        ];
        for (name, value) in &codex {
            // A value that is not a valid header value (a model name with odd bytes) is left out.
            if let Ok(value) = HeaderValue::from_str(value) {
                out.insert(HeaderName::from_static(name), value);
            }
        }
        for (name, value) in &sent {
            let name_str = name.as_str();
            if name == VERSION
                || REPLACED.contains(&name_str)
                || codex.iter().any(|(codex_name, _)| *codex_name == name_str)
            {
                continue;
            }
            out.append(name.clone(), value.clone());
            if compressed && name == http::header::ACCEPT {
                let encoding = HeaderValue::from_static(crate::request_compression::CONTENT_ENCODING);
                out.insert(http::header::CONTENT_ENCODING, encoding);
            }
        }
        out
    }
}
