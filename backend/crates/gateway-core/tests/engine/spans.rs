//! One span per engine phase (issue 23): a capturing `tracing` layer sees each phase as a child
//! of the request span, with bounded attributes, and no phase span when nothing enables the
//! phase target.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use gateway_core::domain::SendState;
use gateway_core::engine::phase;
use gateway_core::fault::Fault;
use tracing::Subscriber;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

use super::support::world::{Answer, JSON, KEY, STREAM, World, drain};

/// One closed span as the layer saw it.
#[derive(Debug, Clone)]
struct Seen {
    name: &'static str,
    target: String,
    parent: Option<&'static str>,
    fields: HashMap<String, String>,
}

#[derive(Clone, Default)]
struct Capture {
    open: Arc<Mutex<HashMap<u64, Seen>>>,
    closed: Arc<Mutex<Vec<Seen>>>,
}

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let parent = ctx.span(id).and_then(|span| span.parent()).map(|parent| parent.name());
        let mut fields = HashMap::new();
        attrs.record(&mut Fields(&mut fields));
        let seen = Seen { name: attrs.metadata().name(), target: attrs.metadata().target().to_owned(), parent, fields };
        self.open.lock().expect("lock").insert(id.into_u64(), seen);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _ctx: Context<'_, S>) {
        if let Some(seen) = self.open.lock().expect("lock").get_mut(&id.into_u64()) {
            values.record(&mut Fields(&mut seen.fields));
        }
    }

    fn on_close(&self, id: Id, _ctx: Context<'_, S>) {
        if let Some(seen) = self.open.lock().expect("lock").remove(&id.into_u64()) {
            self.closed.lock().expect("lock").push(seen);
        }
    }
}

impl Capture {
    fn closed(&self) -> Vec<Seen> {
        self.closed.lock().expect("lock").clone()
    }

    fn named(&self, name: &str) -> Vec<Seen> {
        self.closed().into_iter().filter(|s| s.name == name).collect()
    }
}

fn names(spans: &[Seen]) -> Vec<&'static str> {
    spans.iter().filter(|s| s.target == phase::TARGET).map(|s| s.name).collect()
}

#[tokio::test(start_paused = true)]
async fn every_phase_of_a_failed_over_request_is_a_child_of_the_request_span() {
    let capture = Capture::default();
    let _default = tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let world = World::new(&[1, 2], &[]);
    world.openai.then_fail(Fault::UpstreamUnavailable, SendState::NotSent, Some(500)).then_answer();
    let Answer::Stream { id, body } = Answer::of(world.send(STREAM).await) else { panic!("a stream") };
    drain(body).await;
    world.settled(id).await;

    let closed = capture.closed();
    let phases = names(&closed);
    for expected in
        ["authenticate", "decode", "plan", "record", "acquire", "send", "decide", "commit", "deliver", "finish"]
    {
        assert!(phases.contains(&expected), "no `{expected}` span in {phases:?}");
    }
    for span in closed.iter().filter(|s| s.target == phase::TARGET) {
        assert_eq!(span.parent, Some("request"), "{span:?}");
    }
    let sends = capture.named("send");
    assert_eq!(sends.len(), 2, "one send span per attempt: {sends:?}");
    assert_eq!(sends[0].fields.get("attempt").map(String::as_str), Some("1"));
    assert_eq!(sends[1].fields.get("attempt").map(String::as_str), Some("2"));
    assert_eq!(sends[0].fields.get("provider").map(String::as_str), Some("openai"));
    assert_eq!(sends[0].fields.get("outcome").map(String::as_str), Some("upstream_unavailable"));
    assert_eq!(sends[1].fields.get("outcome").map(String::as_str), Some("ok"));
    assert!(sends[1].fields.contains_key("account"), "{:?}", sends[1]);
    let decide = capture.named("decide");
    assert_eq!(decide.len(), 1, "only the failed attempt is decided on: {decide:?}");
    assert_eq!(decide[0].fields.get("next").map(String::as_str), Some("next_account"));
    let plan = &capture.named("plan")[0];
    assert_eq!(plan.fields.get("model").map(String::as_str), Some("gpt-test"), "{plan:?}");
    let finish = &capture.named("finish")[0];
    assert_eq!(finish.fields.get("outcome").map(String::as_str), Some("completed"), "{finish:?}");
    let request = &capture.named("request")[0];
    assert_eq!(request.fields.get("route").map(String::as_str), Some("responses.create"), "{request:?}");
    assert_eq!(request.fields.get("request_id"), Some(&id.to_string()), "{request:?}");
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_refused_request_ends_with_the_phase_that_refused_it() {
    let capture = Capture::default();
    let _default = tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let world = World::new(&[1], &[]);
    let answer = Answer::of(world.send_with(JSON, Some("sk-wrong"), Vec::new()).await);
    assert_eq!(answer.expect_error().0, 401);
    let phases = names(&capture.closed());
    assert_eq!(phases, vec!["authenticate"], "nothing after the refusing phase");
    let authenticate = &capture.named("authenticate")[0];
    assert_eq!(authenticate.fields.get("outcome").map(String::as_str), Some("refused"), "{authenticate:?}");
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn phase_spans_are_not_built_when_their_target_is_off() {
    let capture = Capture::default();
    let filter = tracing_subscriber::filter::Targets::new()
        .with_default(tracing::Level::TRACE)
        .with_target(phase::TARGET, tracing_subscriber::filter::LevelFilter::OFF);
    let _default =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone().with_filter(filter)));
    let world = World::new(&[1], &[]);
    world.openai.then_answer();
    let Answer::Json { status, .. } = Answer::of(world.send(JSON).await) else { panic!("JSON") };
    assert_eq!(status, 200);
    let closed = capture.closed();
    assert!(names(&closed).is_empty(), "{closed:?}");
    assert_eq!(capture.named("request").len(), 1, "the request span is still there");
    world.stop().await;
}

#[tokio::test(start_paused = true)]
async fn the_request_span_is_a_child_of_the_server_span_it_runs_in_and_logs_the_clients_trace_id() {
    let capture = Capture::default();
    let _default = tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let world = World::new(&[1], &[]);
    world.openai.then_answer().then_answer();
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let headers = vec![("traceparent".to_owned(), bytes::Bytes::from(traceparent))];
    let server = tracing::info_span!("http");
    let reply = tracing::Instrument::instrument(world.send_with(JSON, Some(KEY), headers), server).await;
    let Answer::Json { status, .. } = Answer::of(reply) else { panic!("JSON") };
    assert_eq!(status, 200);
    let Answer::Json { status, .. } = Answer::of(world.send(JSON).await) else { panic!("JSON") };
    assert_eq!(status, 200);

    let requests = capture.named("request");
    assert_eq!(requests.len(), 2, "{requests:?}");
    let inside = requests.iter().find(|s| s.parent == Some("http")).expect("a child of the server span");
    let outside = requests.iter().find(|s| s.parent.is_none()).expect("a root request span");
    // Without an exporter the log's trace id is the client's, or empty.
    assert_eq!(inside.fields.get("trace_id").map(String::as_str), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
    assert_eq!(outside.fields.get("trace_id").map(String::as_str), Some(""), "{outside:?}");
    world.stop().await;
}
