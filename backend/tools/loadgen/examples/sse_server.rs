//! A trivial SSE server for measuring loadgen's own ceiling: every request gets `--events`
//! events of about `--event-bytes` bytes (25 × 280 ≈ 7 KB by default), as fast as possible.
//!
//! ```text
//! cargo run --release -p loadgen --example sse_server -- --port 0
//! ```
//! prints `listening on 127.0.0.1:PORT` on stdout, then serves until killed.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use clap::Parser;
use http::{Request, Response};
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;

#[derive(Debug, Parser)]
struct Args {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    #[arg(long, default_value_t = 25)]
    events: usize,
    #[arg(long, default_value_t = 280)]
    event_bytes: usize,
    /// Yield to the runtime between events so that each one is its own write.
    #[arg(long)]
    split: bool,
    /// Runtime worker threads (1 = current-thread runtime).
    #[arg(long, default_value_t = 1)]
    threads: usize,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let runtime = if args.threads == 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()?
    } else {
        tokio::runtime::Builder::new_multi_thread().worker_threads(args.threads).enable_all().build()?
    };
    runtime.block_on(serve(args))
}

async fn serve(args: Args) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], args.port))).await?;
    println!("listening on {}", listener.local_addr()?);
    let events: Arc<[Bytes]> = (0..args.events).map(|i| event(i, args.event_bytes)).collect();
    let split = args.split;
    loop {
        let (stream, _) = listener.accept().await?;
        stream.set_nodelay(true)?;
        let events = events.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<Incoming>| {
                let events = events.clone();
                async move {
                    let _ = request.into_body().collect().await;
                    let frames = futures_util::stream::unfold(0usize, move |i| {
                        let events = events.clone();
                        async move {
                            let chunk = events.get(i)?.clone();
                            if split && i > 0 {
                                tokio::task::yield_now().await;
                            }
                            Some((Ok::<_, Infallible>(Frame::data(chunk)), i + 1))
                        }
                    });
                    Response::builder()
                        .header("content-type", "text/event-stream")
                        .header("x-request-id", "req_ceiling")
                        .body(StreamBody::new(frames))
                }
            });
            let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}

fn event(index: usize, size: usize) -> Bytes {
    let name = if index == 0 { "response.created" } else { "response.output_text.delta" };
    let head = format!("event: {name}\ndata: {{\"type\":\"{name}\",\"delta\":\"");
    let tail = "\"}\n\n";
    let pad = size.saturating_sub(head.len() + tail.len());
    Bytes::from(format!("{head}{}{tail}", "x".repeat(pad)))
}
