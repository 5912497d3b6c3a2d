//! The resolved run configuration: the command line checked once and turned into typed values.

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use bytes::Bytes;
use http::header::{ACCEPT, CONTENT_TYPE, HeaderName, HeaderValue};
use http::{HeaderMap, Method, Uri};

use crate::cli::{Cli, Common, IdleArgs, LoadArgs, ModeCommand};

/// Requests made when neither `-n` nor `-z` is given.
pub const DEFAULT_REQUESTS: u64 = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Sse,
    Json,
    Ws,
    Idle,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Sse => "sse",
            Mode::Json => "json",
            Mode::Ws => "ws",
            Mode::Idle => "idle",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Target {
    /// The URL as given.
    pub url: String,
    /// Resolved once at start; every connection goes here.
    pub addr: SocketAddr,
    /// `host:port` for the Host header.
    pub authority: HeaderValue,
    /// A `ws://` URL (the ws mode, or idle WebSockets in the idle mode).
    pub websocket: bool,
    /// Path and query sent in the request line.
    pub path: Uri,
}

/// One `--expect-header`.
#[derive(Debug, Clone)]
pub struct Expectation {
    pub name: HeaderName,
    pub prefix: Option<String>,
}

impl Expectation {
    pub fn holds(&self, headers: &HeaderMap) -> bool {
        match (headers.get(&self.name), &self.prefix) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(value), Some(prefix)) => value.as_bytes().starts_with(prefix.as_bytes()),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Load {
    pub concurrency: usize,
    pub requests: Option<u64>,
    pub duration: Option<Duration>,
    pub rate: Option<f64>,
    pub warmup: u64,
}

#[derive(Debug, Clone)]
pub struct Idle {
    pub hold: Duration,
    pub read_interval: Duration,
    pub ready_file: Option<PathBuf>,
}

#[derive(Debug, Clone)]
pub struct Output {
    pub json: Option<String>,
    pub label: Option<String>,
    pub quiet: bool,
    pub threads: usize,
    pub fail_on_non_2xx: bool,
    pub fail_on_error: bool,
}

#[derive(Debug, Clone)]
pub struct Config {
    pub mode: Mode,
    pub target: Target,
    pub method: Method,
    /// Every request header except Host, in the order given.
    pub headers: HeaderMap,
    pub body: Bytes,
    pub timeout: Duration,
    pub expectations: Vec<Expectation>,
    pub failure_events: Vec<String>,
    pub load: Load,
    /// Set in idle mode only.
    pub idle: Option<Idle>,
    pub output: Output,
}

impl Config {
    pub fn from_cli(cli: Cli) -> anyhow::Result<Self> {
        match cli.mode {
            ModeCommand::Sse(args) => Self::load(Mode::Sse, args),
            ModeCommand::Json(args) => Self::load(Mode::Json, args),
            ModeCommand::Ws(args) => Self::load(Mode::Ws, args),
            ModeCommand::Idle(args) => Self::idle(args),
        }
    }

    fn load(mode: Mode, args: LoadArgs) -> anyhow::Result<Self> {
        if args.concurrency == 0 {
            bail!("--concurrency must be at least 1");
        }
        if let Some(rate) = args.rate
            && !(rate.is_finite() && rate > 0.0)
        {
            bail!("--rate must be a positive number of requests per second");
        }
        let requests = match (args.requests, args.duration) {
            (None, None) => Some(DEFAULT_REQUESTS),
            (n, _) => n,
        };
        let load = Load {
            concurrency: args.concurrency,
            requests,
            duration: args.duration,
            rate: args.rate,
            warmup: args.warmup,
        };
        Self::common(mode, args.common, load, None)
    }

    fn idle(args: IdleArgs) -> anyhow::Result<Self> {
        if args.streams == 0 {
            bail!("--streams must be at least 1");
        }
        let load = Load {
            concurrency: args.streams,
            requests: Some(args.streams as u64),
            duration: None,
            rate: None,
            warmup: 0,
        };
        let idle = Idle { hold: args.hold, read_interval: args.read_interval, ready_file: args.ready_file };
        Self::common(Mode::Idle, args.common, load, Some(idle))
    }

    fn common(mode: Mode, common: Common, load: Load, idle: Option<Idle>) -> anyhow::Result<Self> {
        if common.threads == 0 {
            bail!("--threads must be at least 1");
        }
        let target = parse_target(&common.url, mode)?;
        let body = match (&common.body, &common.body_file) {
            (Some(inline), _) => match inline.strip_prefix('@') {
                Some(path) => read_body(path.as_ref())?,
                None => Bytes::from(inline.clone()),
            },
            (None, Some(path)) => read_body(path)?,
            (None, None) => Bytes::new(),
        };
        let ws = target.websocket;
        if ws && std::str::from_utf8(&body).is_err() {
            bail!("a WebSocket sends the body as a text frame: it must be UTF-8");
        }
        let method = match &common.method {
            Some(m) => Method::from_bytes(m.as_bytes()).with_context(|| format!("bad method {m:?}"))?,
            None if body.is_empty() => Method::GET,
            None => Method::POST,
        };
        let mut headers = HeaderMap::new();
        for line in &common.headers {
            let (name, value) = split_header(line)?;
            headers
                .append(name, HeaderValue::from_str(value).with_context(|| format!("bad header value in {line:?}"))?);
        }
        if !body.is_empty() && !ws && !headers.contains_key(CONTENT_TYPE) {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        if !ws && matches!(mode, Mode::Sse | Mode::Idle) && !headers.contains_key(ACCEPT) {
            headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        }
        let expectations = common.expect_headers.iter().map(|e| parse_expectation(e)).collect::<anyhow::Result<_>>()?;
        let failure_events = if common.failure_events.is_empty() {
            vec!["response.failed".to_owned(), "error".to_owned()]
        } else {
            common.failure_events
        };
        Ok(Self {
            mode,
            target,
            method,
            headers,
            body,
            timeout: common.timeout,
            expectations,
            failure_events,
            load,
            idle,
            output: Output {
                json: common.json,
                label: common.label,
                quiet: common.quiet,
                threads: common.threads,
                fail_on_non_2xx: common.fail_on_non_2xx,
                fail_on_error: common.fail_on_error,
            },
        })
    }
}

fn read_body(path: &std::path::Path) -> anyhow::Result<Bytes> {
    let bytes = std::fs::read(path).with_context(|| format!("reading body file {}", path.display()))?;
    Ok(Bytes::from(bytes))
}

fn split_header(line: &str) -> anyhow::Result<(HeaderName, &str)> {
    let (name, value) = line.split_once(':').with_context(|| format!("header {line:?} is not `name: value`"))?;
    let name =
        HeaderName::from_bytes(name.trim().as_bytes()).with_context(|| format!("bad header name in {line:?}"))?;
    Ok((name, value.trim()))
}

fn parse_expectation(text: &str) -> anyhow::Result<Expectation> {
    let (name, prefix) = match text.split_once(':') {
        Some((name, prefix)) => (name, Some(prefix.trim().to_owned()).filter(|p| !p.is_empty())),
        None => (text, None),
    };
    let name =
        HeaderName::from_bytes(name.trim().as_bytes()).with_context(|| format!("bad --expect-header name {text:?}"))?;
    Ok(Expectation { name, prefix })
}

fn parse_target(url: &str, mode: Mode) -> anyhow::Result<Target> {
    let uri: Uri = url.parse().with_context(|| format!("bad URL {url:?}"))?;
    let scheme = uri.scheme_str().unwrap_or_default();
    let wanted: &[&str] = match mode {
        Mode::Ws => &["ws"],
        // The idle mode holds SSE streams (http://) or WebSockets after one turn each (ws://).
        Mode::Idle => &["http", "ws"],
        Mode::Sse | Mode::Json => &["http"],
    };
    if !wanted.contains(&scheme) {
        bail!(
            "the {} mode needs a URL starting with {}://, got {url:?} (no TLS)",
            mode.as_str(),
            wanted.join(":// or ")
        );
    }
    let host = uri.host().with_context(|| format!("URL {url:?} has no host"))?;
    let port = uri.port_u16().unwrap_or(80);
    let host_for_lookup = host.trim_start_matches('[').trim_end_matches(']');
    let addr = (host_for_lookup, port)
        .to_socket_addrs()
        .with_context(|| format!("resolving {host}"))?
        .next()
        .with_context(|| format!("{host} resolves to no address"))?;
    let authority = HeaderValue::from_str(&format!("{host}:{port}")).context("host header")?;
    let path = uri.path_and_query().map_or("/", |p| p.as_str()).parse::<Uri>().context("path")?;
    Ok(Target { url: url.to_owned(), addr, authority, path, websocket: scheme == "ws" })
}
