//! What the Grok CLI proxy refuses in a `/v1/responses` body (decision 0297): it speaks
//! Responses, but not OpenAI's newer tool kinds. Tools of type `custom` or `namespace`, input
//! items it has no type for (`custom_tool_call`, `apply_patch_call`, `local_shell_call`, their
//! outputs, `compaction`, `compaction_trigger`), a `function_call` carrying a `namespace`, and a
//! `tool_choice` naming a function that is not declared are a 400, as from a real backend that
//! does not know them. A `sim: tool=NAME` directive of a request that declares tools must name
//! one of its functions: the simulated model only calls what it was given.

use serde_json::Value;

const REFUSED_TOOLS: &[&str] = &["custom", "namespace"];
const REFUSED_ITEMS: &[&str] = &[
    "custom_tool_call",
    "custom_tool_call_output",
    "apply_patch_call",
    "apply_patch_call_output",
    "local_shell_call",
    "local_shell_call_output",
    "compaction",
    "compaction_trigger",
];

fn kind(value: &Value) -> &str {
    value.get("type").and_then(Value::as_str).unwrap_or_default()
}

/// The functions `body` declares.
fn functions(body: &Value) -> Vec<&str> {
    let tools = body.get("tools").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    tools.iter().filter(|t| kind(t) == "function").filter_map(|t| t.get("name").and_then(Value::as_str)).collect()
}

/// Why the proxy would refuse `body`, if it would.
pub fn refusal(body: &Value, scripted_tool: Option<&str>) -> Option<String> {
    let tools = body.get("tools").and_then(Value::as_array);
    if let Some(tool) = tools.into_iter().flatten().find(|t| REFUSED_TOOLS.contains(&kind(t))) {
        return Some(format!("Invalid tool type: {}", kind(tool)));
    }
    let items = body.get("input").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if let Some(item) = items.iter().find(|i| REFUSED_ITEMS.contains(&kind(i))) {
        return Some(format!("Unknown input item type: {}", kind(item)));
    }
    if items.iter().any(|i| kind(i) == "function_call" && i.get("namespace").is_some()) {
        return Some("Unknown field `namespace` in input item of type function_call".to_owned());
    }
    let declared = functions(body);
    let choice = body.get("tool_choice").filter(|c| kind(c) == "function");
    if let Some(name) = choice.and_then(|c| c.get("name")).and_then(Value::as_str)
        && !declared.contains(&name)
    {
        return Some(format!("tool_choice names the undeclared function {name}"));
    }
    if let Some(name) = scripted_tool
        && tools.is_some()
        && !declared.contains(&name)
    {
        return Some(format!("sim: tool={name} is not a function the request declares (declared: {declared:?})"));
    }
    None
}
