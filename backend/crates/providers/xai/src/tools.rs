//! Client tools → what the Grok CLI proxy takes (PROTOCOL H.3 "Tools", decision 0294), and the
//! [`ToolMap`] the stream needs to give calls back their client shape (H.4, `tool_calls.rs`).
//!
//! - `function` kept: missing/null `parameters` → an empty object schema, a nullable object
//!   root unwrapped, `defer_loading` removed;
//! - `namespace` children flattened to functions named `<ns>__<name>`;
//! - `custom` (free-form, e.g. Codex's `apply_patch`) → a function with one required string
//!   property `input` (`patch` for a root `apply_patch`), its grammar quoted in the description;
//! - `web_search*` → `web_search`; `local_shell` → `shell` with a local environment;
//! - `shell`, `mcp`, `x_search`, `file_search`, `code_interpreter`, `code_execution`,
//!   `collections_search` pass; anything else (`computer_use_preview`, `image_generation`, …)
//!   is dropped, and a `tool_choice` naming it with it;
//! - upstream names are unique and at most 128 characters: a name taken or too long gets a
//!   hashed suffix; a `tool_choice` naming a renamed tool follows the rename; `allowed_tools`
//!   choices are removed.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

/// Longest function name the upstream takes.
pub const MAX_NAME: usize = 128;
/// Separator of a flattened namespace child's name.
pub const NAMESPACE_SEPARATOR: &str = "__";

const PASSED: &[&str] =
    &["shell", "mcp", "x_search", "file_search", "code_interpreter", "code_execution", "collections_search"];

/// What an upstream function name stands for on the client's side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientTool {
    /// A child `name` of the namespace `namespace`.
    Namespaced { namespace: String, name: String },
    /// A free-form `custom` tool; its input travels as the string property `key`.
    Custom { name: String, key: &'static str },
}

/// The renames of one request, both ways, and the tools array the client sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolMap {
    by_upstream: HashMap<String, ClientTool>,
    namespaced: HashMap<(String, String), String>,
    custom: HashMap<String, String>,
    client_tools: Option<Value>,
}

impl ToolMap {
    /// Nothing was renamed and the client sent no tools.
    pub fn is_empty(&self) -> bool {
        self.by_upstream.is_empty() && self.client_tools.is_none()
    }

    /// The client tool an upstream function name stands for, when it was renamed or re-typed.
    pub fn client_tool(&self, upstream: &str) -> Option<&ClientTool> {
        self.by_upstream.get(upstream)
    }

    /// The `tools` array the client sent (restored in response objects).
    pub fn client_tools(&self) -> Option<&Value> {
        self.client_tools.as_ref()
    }

    /// The upstream name of the namespace child `namespace`/`name` (declared or not).
    pub fn namespaced_upstream(&self, namespace: &str, name: &str) -> String {
        self.namespaced
            .get(&(namespace.to_owned(), name.to_owned()))
            .cloned()
            .unwrap_or_else(|| fit(&flattened(namespace, name)))
    }

    /// The upstream name and argument key of the custom tool `name` (declared or not).
    pub fn custom_upstream(&self, name: &str) -> (String, &'static str) {
        let upstream = self.custom.get(name).cloned().unwrap_or_else(|| name.to_owned());
        (upstream, custom_key(name))
    }
}

fn flattened(namespace: &str, name: &str) -> String {
    format!("{namespace}{NAMESPACE_SEPARATOR}{name}")
}

/// `patch` for a root `apply_patch`, else `input`.
pub fn custom_key(name: &str) -> &'static str {
    if name == "apply_patch" { "patch" } else { "input" }
}

/// `desired` cut to [`MAX_NAME`] with a hash of the whole name (and `salt`) when it is too long
/// or `salt` > 0.
fn hashed(desired: &str, salt: u32) -> String {
    let digest = Sha256::digest(format!("{desired}\u{0}{salt}").as_bytes());
    let suffix: String = digest.iter().take(5).map(|b| format!("{b:02x}")).collect();
    let room = MAX_NAME - suffix.len() - 1;
    let prefix: String = desired.chars().take(room).collect();
    format!("{prefix}_{suffix}")
}

fn fit(desired: &str) -> String {
    if desired.len() <= MAX_NAME { desired.to_owned() } else { hashed(desired, 0) }
}

/// Hands out unique upstream names.
#[derive(Default)]
struct Names {
    taken: HashSet<String>,
}

impl Names {
    fn claim(&mut self, desired: &str) -> String {
        let mut name = fit(desired);
        let mut salt = 1;
        while self.taken.contains(&name) {
            name = hashed(desired, salt);
            salt += 1;
        }
        self.taken.insert(name.clone());
        name
    }
}

fn kind(tool: &Value) -> &str {
    tool.get("type").and_then(Value::as_str).unwrap_or_default()
}

fn name(tool: &Value) -> Option<&str> {
    tool.get("name").and_then(Value::as_str)
}

/// Rewrites `tools` and `tool_choice` of `map`; returns the renames.
pub fn rewrite(map: &mut Map<String, Value>) -> ToolMap {
    map.remove("allowed_tools");
    let mut tools = ToolMap::default();
    let Some(Value::Array(client)) = map.remove("tools") else {
        map.remove("tool_choice");
        return tools;
    };
    tools.client_tools = Some(Value::Array(client.clone()));
    let mut names = Names::default();
    // Plain functions keep their names; every other name is claimed after them.
    for tool in client.iter().filter(|t| kind(t) == "function") {
        if let Some(name) = name(tool) {
            names.taken.insert(name.to_owned());
        }
    }
    let mut upstream = Vec::new();
    for tool in client {
        match kind(&tool) {
            "function" => upstream.push(function(tool)),
            "namespace" => upstream.extend(namespace(&tool, &mut names, &mut tools)),
            "custom" => upstream.extend(custom(&tool, &mut names, &mut tools)),
            "local_shell" => upstream.push(json!({"type": "shell", "environment": {"type": "local"}})),
            k if k.starts_with("web_search") => upstream.push(web_search(tool)),
            k if PASSED.contains(&k) => upstream.push(tool),
            _ => {}
        }
    }
    rewrite_choice(map, &upstream, &tools);
    if !upstream.is_empty() {
        map.insert("tools".to_owned(), Value::Array(upstream));
    }
    tools
}

fn function(mut tool: Value) -> Value {
    if let Some(object) = tool.as_object_mut() {
        object.remove("defer_loading");
        match object.get_mut("parameters") {
            None | Some(Value::Null) => {
                object.insert("parameters".to_owned(), json!({"type": "object", "properties": {}}));
            }
            Some(Value::Object(schema)) => unwrap_nullable_root(schema),
            Some(_) => {}
        }
    }
    tool
}

/// `"type": ["object", "null"]` at the root → `"object"`.
fn unwrap_nullable_root(schema: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = schema.get("type") else { return };
    let object = types.iter().any(|t| t == "object");
    let rest = types.iter().all(|t| t == "object" || t == "null");
    if object && rest {
        schema.insert("type".to_owned(), json!("object"));
    }
}

fn namespace(tool: &Value, names: &mut Names, tools: &mut ToolMap) -> Vec<Value> {
    let Some(namespace) = name(tool) else { return Vec::new() };
    let children = tool.get("tools").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut out = Vec::new();
    for child in children.into_iter().filter(|c| kind(c) == "function") {
        let Some(child_name) = name(&child).map(str::to_owned) else { continue };
        let upstream = names.claim(&flattened(namespace, &child_name));
        let mut flat = function(child);
        flat["name"] = json!(upstream);
        tools.namespaced.insert((namespace.to_owned(), child_name.clone()), upstream.clone());
        tools
            .by_upstream
            .insert(upstream, ClientTool::Namespaced { namespace: namespace.to_owned(), name: child_name });
        out.push(flat);
    }
    out
}

fn custom(tool: &Value, names: &mut Names, tools: &mut ToolMap) -> Option<Value> {
    let client_name = name(tool)?.to_owned();
    let upstream = names.claim(&client_name);
    let key = custom_key(&client_name);
    let mut description = tool.get("description").and_then(Value::as_str).unwrap_or_default().to_owned();
    if let Some(format) = tool.get("format").filter(|f| f.get("type").and_then(Value::as_str) == Some("grammar")) {
        let syntax = format.get("syntax").and_then(Value::as_str).unwrap_or("lark");
        if let Some(definition) = format.get("definition").and_then(Value::as_str) {
            description.push_str(&format!(
                "\n\nThe `{key}` string must follow this {syntax} grammar:\n```\n{definition}\n```"
            ));
        }
    }
    let property = json!({"type": "string", "description": format!("The raw free-form input of `{client_name}`.")});
    tools.custom.insert(client_name.clone(), upstream.clone());
    tools.by_upstream.insert(upstream.clone(), ClientTool::Custom { name: client_name, key });
    Some(json!({
        "type": "function",
        "name": upstream,
        "description": description.trim(),
        "parameters": {"type": "object", "properties": {key: property}, "required": [key], "additionalProperties": false},
    }))
}

fn web_search(mut tool: Value) -> Value {
    tool["type"] = json!("web_search");
    tool
}

/// `tool_choice` after the rewrite: renamed tools followed, choices of dropped tools and
/// `allowed_tools` removed, none at all without tools.
fn rewrite_choice(map: &mut Map<String, Value>, upstream: &[Value], tools: &ToolMap) {
    let Some(choice) = map.remove("tool_choice") else { return };
    if upstream.is_empty() {
        return;
    }
    let Value::Object(mut choice) = choice else {
        map.insert("tool_choice".to_owned(), choice);
        return;
    };
    let choice_kind = choice.get("type").and_then(Value::as_str).unwrap_or_default().to_owned();
    let chosen = choice.get("name").and_then(Value::as_str).map(str::to_owned);
    let kept = match choice_kind.as_str() {
        "function" => match (choice.remove("namespace"), chosen) {
            (Some(Value::String(namespace)), Some(name)) => {
                Some(json!({"type": "function", "name": tools.namespaced_upstream(&namespace, &name)}))
            }
            _ => Some(Value::Object(choice)),
        },
        "custom" => chosen.map(|name| {
            let (upstream, _) = tools.custom_upstream(&name);
            json!({"type": "function", "name": upstream})
        }),
        "local_shell" => Some(json!({"type": "shell"})),
        k if k.starts_with("web_search") => Some(json!({"type": "web_search"})),
        "allowed_tools" => None,
        _ => Some(Value::Object(choice)),
    };
    let Some(kept) = kept else { return };
    let declared = |choice: &Value| {
        let wanted = choice.get("type").and_then(Value::as_str).unwrap_or_default();
        let wanted_name = choice.get("name").and_then(Value::as_str);
        upstream.iter().any(|t| kind(t) == wanted && (wanted_name.is_none() || name(t) == wanted_name))
    };
    if declared(&kept) {
        map.insert("tool_choice".to_owned(), kept);
    }
}
