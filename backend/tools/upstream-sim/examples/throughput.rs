//! Throughput of the simulator's prepared-stream fast path.
//!
//! `cargo run -p upstream-sim --release --example throughput -- [SECONDS]`
//!
//! Starts a simulator in-process and drives `POST /backend-api/codex/responses` with a minimal
//! HTTP/1.1 keep-alive client (hand-written so the client costs little), 16 and 64 connections,
//! each asking for a 25-event stream (`sim: events=17 bytes=24`, ≈7 KB). Client and server share
//! the same runtime and cores, so the numbers are a floor for the server alone. Prints results;
//! asserts nothing about timing.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use upstream_sim::{AccountSpec, SettingsPatch, SimConfig, Simulator};

/// Reads one chunked HTTP/1.1 response; returns the body length.
async fn read_response(reader: &mut BufReader<TcpStream>, line: &mut String) -> anyhow::Result<usize> {
    line.clear();
    reader.read_line(line).await?;
    anyhow::ensure!(line.starts_with("HTTP/1.1 200"), "unexpected status line {line:?}");
    loop {
        line.clear();
        reader.read_line(line).await?;
        if line == "\r\n" {
            break;
        }
    }
    let mut body = 0;
    let mut chunk = Vec::new();
    loop {
        line.clear();
        reader.read_line(line).await?;
        let size = usize::from_str_radix(line.trim_end(), 16)?;
        chunk.resize(size + 2, 0);
        reader.read_exact(&mut chunk).await?;
        if size == 0 {
            return Ok(body);
        }
        body += size;
    }
}

async fn connection(addr: std::net::SocketAddr, request: Vec<u8>, until: Instant) -> anyhow::Result<(u64, u64)> {
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let mut reader = BufReader::with_capacity(64 * 1024, stream);
    let mut line = String::new();
    let (mut requests, mut bytes) = (0u64, 0u64);
    while Instant::now() < until {
        reader.get_mut().write_all(&request).await?;
        bytes += read_response(&mut reader, &mut line).await? as u64;
        requests += 1;
    }
    Ok((requests, bytes))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let seconds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let sim = Simulator::start(SimConfig::default()).await?;
    let tokens = sim.add_account(AccountSpec::openai("bench").with_plan("pro"))?;
    let body = serde_json::to_vec(&json!({
        "model": "gpt-5.4",
        "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "sim: events=17 bytes=24"}]}],
        "store": false,
        "stream": true,
    }))?;
    let mut request = format!(
        "POST /backend-api/codex/responses HTTP/1.1\r\nhost: {}\r\nauthorization: Bearer {}\r\nchatgpt-account-id: bench\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        sim.addr(),
        tokens.access_token,
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(&body);

    let probe = probe(sim.addr(), &request).await?;
    println!("stream: {} bytes of SSE body per request, 25 events", probe);
    for record in [true, false] {
        sim.update_settings(SettingsPatch { record_requests: Some(record), ..Default::default() });
        for concurrency in [16usize, 64] {
            let until = Instant::now() + Duration::from_secs(seconds);
            let started = Instant::now();
            let tasks: Vec<_> =
                (0..concurrency).map(|_| tokio::spawn(connection(sim.addr(), request.clone(), until))).collect();
            let (mut requests, mut bytes) = (0u64, 0u64);
            for task in tasks {
                let (r, b) = task.await??;
                requests += r;
                bytes += b;
            }
            let elapsed = started.elapsed().as_secs_f64();
            println!(
                "recording {:<5} concurrency {concurrency:>3}: {:>9.0} requests/s, {:>7.1} MB/s of SSE, {requests} requests in {elapsed:.1} s",
                if record { "on" } else { "off" },
                requests as f64 / elapsed,
                bytes as f64 / elapsed / 1e6,
            );
        }
    }
    sim.shutdown().await;
    Ok(())
}

/// One request to learn the body size.
async fn probe(addr: std::net::SocketAddr, request: &[u8]) -> anyhow::Result<usize> {
    let stream = TcpStream::connect(addr).await?;
    let mut reader = BufReader::new(stream);
    reader.get_mut().write_all(request).await?;
    let mut line = String::new();
    read_response(&mut reader, &mut line).await
}
