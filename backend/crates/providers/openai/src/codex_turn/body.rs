//! The body fields of an originated turn. Each is added only when the client did not send it,
//! and only where it is Codex's value and changes nothing in the answer; appended (the client's
//! own members keep their bytes and order, SPEC §6) in Codex's relative order: `tool_choice`,
//! `parallel_tool_calls`, `store`, `include`, `prompt_cache_key`, `client_metadata`.

use gateway_protocol::request::{BodyEdit, RequestBody};

use super::CodexTurn;
use crate::identity::PROMPT_CACHE_KEY;

impl CodexTurn {
    /// Adds this turn's fields to `edit` (made by the transport for `body`, which `view` was
    /// parsed from). Runs after the identity edits: `prompt_cache_key` is the turn's
    /// conversation id, equal to its session and thread ids as in Codex.
    pub fn edit_body(&self, body: &[u8], view: &RequestBody, edit: &mut BodyEdit) {
        // Beside the client's own tools, Codex's values are the API's defaults. Without tools
        // none of the three is added: Codex always sends its own (they would change the
        // answer), and an empty list or a choice without tools is not known to pass the backend.
        if view.raw(body, "tools").is_some_and(is_non_empty_array) {
            if !view.has("tool_choice") {
                edit.set_string("tool_choice", "auto");
            }
            if !view.has("parallel_tool_calls") {
                edit.set_bool("parallel_tool_calls", true);
            }
        }
        if !view.has("store") {
            // Set again so that it follows the fields above, where Codex puts it.
            edit.set_bool("store", false);
        }
        // Codex's `include` without reasoning settings; with them it would be
        // `["reasoning.encrypted_content"]`, which adds ciphertext to the client's answer.
        if !view.has("include") && !view.has("reasoning") {
            edit.set_raw("include", &b"[]"[..]);
        }
        edit.set_string(PROMPT_CACHE_KEY, &self.conversation);
        edit.set_raw("client_metadata", self.client_metadata());
    }
}

/// `[` followed by something other than `]` (JSON whitespace skipped).
fn is_non_empty_array(raw: &[u8]) -> bool {
    let mut bytes = raw.iter().filter(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    bytes.next() == Some(&b'[') && bytes.next().is_some_and(|b| *b != b']')
}
