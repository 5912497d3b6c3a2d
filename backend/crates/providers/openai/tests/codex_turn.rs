//! The Codex turn the gateway originates for a non-Codex client (`codex_turn.rs`, decision
//! 0330), over the simulator: what the upstream receives for an SDK-shaped call, and that a
//! Codex-shaped call goes as it came.

use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use gateway_core::domain::{ClientKeyId, RequestId};
use gateway_core::provider::{Operation, Provider, UpstreamCall, UpstreamRoute};
use gateway_core::snapshot::AccountEntry;
use gateway_protocol::request::RequestBody;
use provider_openai::identity::derived_installation_id;
use provider_openai::{OpenAiProvider, request_compression};
use serde_json::{Value, json};
use upstream_sim::{AccountSpec, RecordedRequest};

use crate::support::World;

/// One client request as the engine hands it to the provider.
struct ClientRequest {
    body: Bytes,
    headers: Vec<(String, Bytes)>,
    client_key: ClientKeyId,
    request: RequestId,
    operation: Operation,
}

impl ClientRequest {
    fn new(body: Value) -> Self {
        Self {
            body: Bytes::from(serde_json::to_vec(&body).expect("json")),
            // What the OpenAI Python SDK sends besides its body; none of it goes upstream.
            headers: vec![
                ("user-agent".to_owned(), Bytes::from_static(b"OpenAI/Python 3.57.0")),
                ("x-stainless-lang".to_owned(), Bytes::from_static(b"python")),
            ],
            client_key: ClientKeyId(7),
            request: RequestId::new(),
            operation: Operation::ResponsesCreate,
        }
    }

    fn sdk() -> Self {
        Self::new(json!({"input": "say hello", "model": "gpt-5.4", "stream": true}))
    }

    fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), Bytes::from(value.to_owned())));
        self
    }

    /// Sends it through `provider` on `account`, reads the answer to its end, and returns what
    /// the simulator received.
    async fn send(&self, world: &World, provider: &OpenAiProvider, account: &AccountEntry) -> RecordedRequest {
        world.sim.clear_requests();
        let view = RequestBody::parse(&self.body).expect("valid body");
        let call = UpstreamCall {
            request: self.request,
            attempt: 1,
            operation: self.operation,
            client_key: self.client_key,
            account,
            body: &self.body,
            view: &view,
            upstream_model: "gpt-5.4",
            client_stream: true,
            client_headers: &self.headers,
            header_timeout: Duration::from_secs(10),
            route: &UpstreamRoute::Http,
            traceparent: None,
        };
        let mut reply = provider.execute(call).await.expect("the simulator answers");
        while let Some(event) = reply.frames.next().await {
            event.expect("the stream completes");
        }
        let recorded =
            world.sim.requests().into_iter().filter(|r| r.path.ends_with("/codex/responses")).collect::<Vec<_>>();
        assert_eq!(recorded.len(), 1, "one upstream call");
        recorded.into_iter().next().expect("one")
    }
}

async fn account(world: &World, id: &str) -> std::sync::Arc<AccountEntry> {
    let (account, _) = world.account(AccountSpec::openai(id)).await;
    world.snapshots().await.current().account(account).cloned().expect("entry")
}

fn names(request: &RecordedRequest) -> Vec<&str> {
    request.headers.iter().map(|(name, _)| name.as_str()).filter(|n| !["host", "content-length"].contains(n)).collect()
}

fn is_uuid(value: &str) -> bool {
    value.len() == 36 && uuid::Uuid::parse_str(value).is_ok()
}

#[tokio::test]
async fn an_sdk_turn_reaches_the_upstream_as_a_codex_turn() {
    let world = World::start().await;
    let provider = world.provider();
    let entry = account(&world, "acct-1").await;
    let client = ClientRequest::sdk();
    let sent = client.send(&world, &provider, &entry).await;

    assert_eq!(
        names(&sent),
        [
            "version",
            "x-codex-beta-features",
            "x-codex-window-id",
            "x-codex-turn-metadata",
            "x-codex-routing-hint",
            "x-client-request-id",
            "session-id",
            "thread-id",
            "accept",
            "content-encoding",
            "content-type",
            "authorization",
            "chatgpt-account-id",
            "originator",
            "user-agent",
            "accept-encoding",
        ],
        "Codex's headers in the built-in provider's order; nothing of the SDK's"
    );
    assert_eq!(sent.header("content-encoding"), Some("zstd"), "the simulator decoded it: the body was zstd");
    assert_eq!(sent.header("x-codex-beta-features"), Some("remote_compaction_v2"));
    assert_eq!(sent.header("x-codex-routing-hint"), Some("model=gpt-5.4"));
    let conversation = sent.header("session-id").expect("session");
    assert!(is_uuid(conversation), "{conversation}");
    assert_ne!(conversation, client.request.0.to_string(), "not the gateway's request id");
    assert_eq!(sent.header("thread-id"), Some(conversation), "one conversation id, as in Codex");
    assert_eq!(sent.header("x-client-request-id"), Some(conversation));
    assert_eq!(sent.header("x-codex-window-id"), Some(format!("{conversation}:0").as_str()));

    let installation = derived_installation_id("acct-1");
    let metadata: Value = serde_json::from_str(sent.header("x-codex-turn-metadata").expect("metadata")).expect("json");
    assert_eq!(metadata["installation_id"], installation.as_str(), "the serving account's");
    assert_eq!(metadata["session_id"], conversation);
    assert_eq!(metadata["thread_id"], conversation);
    assert_eq!(metadata["window_id"], format!("{conversation}:0").as_str());
    assert_eq!(metadata["root_turn_id"], metadata["turn_id"]);
    assert!(is_uuid(metadata["turn_id"].as_str().expect("turn id")));
    assert_eq!(metadata["model"], "gpt-5.4");
    assert_eq!(metadata["request_kind"], "turn");
    let started = metadata["turn_started_at_unix_ms"].as_i64().expect("ms");
    let now = i64::try_from(time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000).expect("ms");
    assert!((now - 60_000..=now).contains(&started), "{started} is this turn's start");

    let body = sent.json().expect("json body");
    let keys: Vec<&str> = body.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["input", "model", "stream", "store", "include", "prompt_cache_key", "client_metadata"],
        "the client's fields in its order, then Codex's"
    );
    assert_eq!(
        body["input"],
        json!([{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "say hello"}]}])
    );
    assert_eq!(body["include"], json!([]), "Codex's value without reasoning settings");
    assert_eq!(body["prompt_cache_key"], conversation);
    let client_metadata = &body["client_metadata"];
    assert_eq!(client_metadata["session_id"], conversation);
    assert_eq!(client_metadata["thread_id"], conversation);
    assert_eq!(client_metadata["turn_id"], metadata["turn_id"]);
    assert_eq!(client_metadata["x-codex-installation-id"], installation.as_str());
    assert_eq!(client_metadata["x-codex-window-id"], format!("{conversation}:0").as_str());
    assert_eq!(
        client_metadata["x-codex-turn-metadata"],
        sent.header("x-codex-turn-metadata").expect("metadata"),
        "the same JSON text in the header and the body"
    );
    for absent in ["instructions", "tools", "tool_choice", "parallel_tool_calls", "reasoning", "text"] {
        assert!(body.get(absent).is_none(), "`{absent}` would change the answer or is not known to pass");
    }
}

#[tokio::test]
async fn a_codex_turn_goes_as_it_came() {
    let world = World::start().await;
    let provider = world.provider();
    let entry = account(&world, "acct-1").await;
    let session = "0199a6f0-7c2e-7b41-9d5a-3f0e8c1b2a47";
    let body = json!({"model": "gpt-5.4", "stream": true, "input": [], "tools": [{"type": "function", "name": "f", "parameters": {}}],
                      "store": false, "prompt_cache_key": session, "client_metadata": {"session_id": session}});
    let client = ClientRequest::new(body)
        .header("x-codex-window-id", &format!("{session}:0"))
        .header("x-client-request-id", session)
        .header("session-id", session)
        .header("thread-id", session);
    let sent = client.send(&world, &provider, &entry).await;
    assert_eq!(
        names(&sent),
        [
            "x-codex-window-id",
            "x-client-request-id",
            "session-id",
            "thread-id",
            "accept",
            "content-type",
            "authorization",
            "chatgpt-account-id",
            "originator",
            "user-agent",
            "version",
            "accept-encoding",
        ],
        "the client's own headers only: no turn metadata, beta features, routing hint or compression added"
    );
    let body = sent.json().expect("json");
    let keys: Vec<&str> = body.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["model", "stream", "input", "tools", "store", "prompt_cache_key", "client_metadata"],
        "no field added"
    );
    assert_eq!(
        body["client_metadata"].as_object().map(|m| m.len()),
        Some(1),
        "the client's metadata, ids replaced only"
    );
}

#[tokio::test]
async fn one_sdk_conversation_keeps_one_upstream_conversation() {
    let world = World::start().await;
    let provider = world.provider();
    let (a, b) = (account(&world, "acct-a").await, account(&world, "acct-b").await);
    let with_key = || ClientRequest::new(json!({"model": "gpt-5.4", "input": "hi", "prompt_cache_key": "user-42"}));
    let first = with_key().send(&world, &provider, &a).await;
    let second = with_key().send(&world, &provider, &a).await;
    let conversation = first.header("session-id").expect("session").to_owned();
    assert_eq!(second.header("session-id"), Some(conversation.as_str()), "stable across the conversation's requests");
    assert_eq!(second.json().expect("json")["prompt_cache_key"], conversation.as_str(), "the prompt cache still hits");
    assert_ne!(
        first.json().expect("json")["client_metadata"]["turn_id"],
        second.json().expect("json")["client_metadata"]["turn_id"],
        "a turn id per request"
    );
    let elsewhere = with_key().send(&world, &provider, &b).await;
    assert_ne!(elsewhere.header("session-id"), Some(conversation.as_str()), "another account, another id");
    let mut other_tenant = with_key();
    other_tenant.client_key = ClientKeyId(8);
    let other_tenant = other_tenant.send(&world, &provider, &a).await;
    assert_ne!(
        other_tenant.header("session-id"),
        Some(conversation.as_str()),
        "another client key's `user-42` is not this one"
    );

    // The SDK user's `session_id` header is the conversation signal first; it goes upstream in
    // Codex's spelling.
    let by_header = || ClientRequest::new(json!({"model": "gpt-5.4", "input": "hi"})).header("session_id", "chat-9");
    let first = by_header().send(&world, &provider, &a).await;
    let second = by_header().send(&world, &provider, &a).await;
    assert!(first.header("session_id").is_none(), "{:?}", names(&first));
    assert_eq!(first.header("session-id"), second.header("session-id"));

    // Without a signal every request is its own conversation.
    let first = ClientRequest::sdk().send(&world, &provider, &a).await;
    let second = ClientRequest::sdk().send(&world, &provider, &a).await;
    assert_ne!(first.header("session-id"), second.header("session-id"));
}

#[tokio::test]
async fn beside_the_clients_tools_the_api_defaults_are_added() {
    let world = World::start().await;
    let provider = world.provider();
    let entry = account(&world, "acct-1").await;
    let tools = json!([{"type": "function", "name": "lookup", "parameters": {"type": "object", "properties": {}}}]);
    let sent =
        ClientRequest::new(json!({"model": "gpt-5.4", "input": "hi", "tools": tools, "reasoning": {"effort": "low"}}))
            .send(&world, &provider, &entry)
            .await;
    let body = sent.json().expect("json");
    let keys: Vec<&str> = body.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "model",
            "input",
            "tools",
            "reasoning",
            "stream",
            "tool_choice",
            "parallel_tool_calls",
            "store",
            "prompt_cache_key",
            "client_metadata"
        ],
        "no `include` beside the client's reasoning settings (Codex's would add ciphertext to the answer)"
    );
    assert_eq!(body["tool_choice"], "auto");
    assert_eq!(body["parallel_tool_calls"], true);

    let sent = ClientRequest::new(json!({"model": "gpt-5.4", "input": "hi", "tools": tools, "tool_choice": "required", "parallel_tool_calls": false}))
        .send(&world, &provider, &entry)
        .await;
    let body = sent.json().expect("json");
    assert_eq!(
        (&body["tool_choice"], &body["parallel_tool_calls"]),
        (&json!("required"), &json!(false)),
        "the client's own"
    );
    let sent = ClientRequest::new(json!({"model": "gpt-5.4", "input": "hi", "tools": []}))
        .send(&world, &provider, &entry)
        .await;
    assert!(sent.json().expect("json").get("tool_choice").is_none(), "an empty list is no tools");
}

#[tokio::test]
async fn compaction_calls_are_not_originated_turns() {
    let world = World::start().await;
    let provider = world.provider();
    let entry = account(&world, "acct-1").await;
    world.sim.clear_requests();
    let body = Bytes::from_static(br#"{"model":"gpt-5.4","input":[]}"#);
    let view = RequestBody::parse(&body).expect("valid");
    let call = UpstreamCall {
        request: RequestId::new(),
        attempt: 1,
        operation: Operation::ResponsesCompact,
        client_key: ClientKeyId(7),
        account: &entry,
        body: &body,
        view: &view,
        upstream_model: "gpt-5.4",
        client_stream: false,
        client_headers: &[],
        header_timeout: Duration::from_secs(10),
        route: &UpstreamRoute::Http,
        traceparent: None,
    };
    let mut reply = provider.execute(call).await.expect("answer");
    while let Some(event) = reply.frames.next().await {
        event.expect("complete");
    }
    let sent = world.sim.requests().into_iter().find(|r| r.path.ends_with("/responses/compact")).expect("compact call");
    assert!(sent.header("content-encoding").is_none());
    assert!(sent.header("x-codex-turn-metadata").is_none());
    assert!(sent.json().expect("json").get("client_metadata").is_none());
}

/// Codex 0.171 compresses with a level-3 streaming encoder and pledges no size (its frames carry
/// a 2 MiB window descriptor and no content size: a recorded turn of the built-in provider
/// decoded and compressed again here came out byte for byte the same, decision 0330). Also with
/// the encoder reused, over several parts, and on the blocking pool for a large body.
#[tokio::test]
async fn the_body_is_compressed_as_codex_compresses_it() {
    let codex_zstd = |input: &[u8]| {
        let mut encoder = zstd::stream::write::Encoder::new(Vec::new(), 3).expect("encoder");
        std::io::Write::write_all(&mut encoder, input).expect("write");
        encoder.finish().expect("finish")
    };
    let body = serde_json::to_vec(&json!({"model": "gpt-5.4", "input": "say hello ".repeat(500)})).expect("json");
    let codex = codex_zstd(&body);
    assert_eq!(codex[4], 0, "frame header: no content size, no single segment");
    let whole = request_compression::compress_parts(&[Bytes::from(body.clone())]).expect("compress");
    assert_eq!(whole, codex);
    let (head, tail) = body.split_at(100);
    let parts = [Bytes::copy_from_slice(head), Bytes::new(), Bytes::copy_from_slice(tail)];
    assert_eq!(request_compression::compress_parts(&parts).expect("compress"), codex, "the reused encoder, parts");

    let large: Vec<u8> = (0..request_compression::INLINE_LIMIT * 3).map(|i| (i % 251) as u8).collect();
    let spliced = gateway_protocol::request::SplicedBody::from(Bytes::from(large.clone()));
    let compressed = request_compression::compress(&spliced).await.expect("compress");
    assert_eq!(zstd::stream::decode_all(&compressed[..]).expect("decode"), large);
    assert_eq!(compressed, codex_zstd(&large));
}
