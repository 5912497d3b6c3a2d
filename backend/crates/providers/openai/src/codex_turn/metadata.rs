//! The turn metadata of an originated turn: the JSON object Codex sends as the
//! `x-codex-turn-metadata` header and again inside `client_metadata`, and `client_metadata`
//! itself. Members, their order and the fixed values are those of the pinned Codex
//! (`PINNED_CODEX_VERSION`, 0.171: shared/CLIENTS.md, and the fidelity test's recorded turn);
//! revisit them when the pin moves. None of it reaches the model.

use serde::Serialize;

use super::CodexTurn;

/// `x-codex-beta-features` of the pinned Codex (its default beta features).
pub const BETA_FEATURES: &str = "remote_compaction_v2";

/// The `x-codex-turn-metadata` object, in Codex's member order.
#[derive(Serialize)]
struct TurnMetadata<'a> {
    installation_id: &'a str,
    session_id: &'a str,
    thread_id: &'a str,
    agent_name: &'static str,
    turn_id: &'a str,
    window_id: &'a str,
    window_number: u32,
    context_window_id: &'a str,
    request_kind: &'static str,
    history_initialization: &'static str,
    root_turn_id: &'a str,
    thread_source: &'static str,
    turn_trigger: &'static str,
    sandbox: &'static str,
    sandbox_mode: &'static str,
    auto_review_enabled: bool,
    node_repl_auto_review_required: bool,
    node_repl_disabled: bool,
    turn_started_at_unix_ms: i64,
    analytics_enabled: bool,
    model: &'a str,
}

/// The `client_metadata` body field.
#[derive(Serialize)]
struct ClientMetadata<'a> {
    session_id: &'a str,
    thread_id: &'a str,
    turn_id: &'a str,
    root_turn_id: &'a str,
    #[serde(rename = "x-codex-window-id")]
    window_id: &'a str,
    #[serde(rename = "x-codex-installation-id")]
    installation_id: &'a str,
    #[serde(rename = "x-codex-turn-metadata")]
    turn_metadata: &'a str,
}

impl CodexTurn {
    /// The `x-codex-turn-metadata` JSON text (kept in [`CodexTurn::turn_metadata`]).
    pub(super) fn metadata_json(&self) -> String {
        let window_id = self.window_id();
        let metadata = TurnMetadata {
            installation_id: &self.installation_id,
            session_id: &self.conversation,
            thread_id: &self.conversation,
            agent_name: "/root",
            turn_id: &self.turn_id,
            window_id: &window_id,
            window_number: 0,
            context_window_id: &self.context_window_id,
            request_kind: "turn",
            history_initialization: "new",
            root_turn_id: &self.turn_id,
            thread_source: "user",
            turn_trigger: "exec",
            sandbox: "seccomp",
            sandbox_mode: "read-only",
            auto_review_enabled: false,
            node_repl_auto_review_required: false,
            node_repl_disabled: false,
            turn_started_at_unix_ms: self.started_at_unix_ms,
            analytics_enabled: true,
            model: &self.model,
        };
        serde_json::to_string(&metadata).expect("a struct of strings, integers and booleans serialises")
    }

    /// The `client_metadata` JSON, naming the same ids and the turn metadata again.
    pub fn client_metadata(&self) -> Vec<u8> {
        let window_id = self.window_id();
        let metadata = ClientMetadata {
            session_id: &self.conversation,
            thread_id: &self.conversation,
            turn_id: &self.turn_id,
            root_turn_id: &self.turn_id,
            window_id: &window_id,
            installation_id: &self.installation_id,
            turn_metadata: &self.turn_metadata,
        };
        serde_json::to_vec(&metadata).expect("a struct of strings serialises")
    }
}
