//! A busy connection is not a dead one: behind a link that delivers Redis's replies slowly, a
//! burst of commands queues longer than the command timeout and every command still gets its
//! answer; a link that delivers nothing fails the command at the command timeout.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, ensure};
use gateway_core::coordination::CoordinationErrorKind;
use gateway_store::redis::{RedisCoordination, RedisSettings};
use test_support::{redis_url, unique_prefix};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

const COMMAND_TIMEOUT: Duration = Duration::from_millis(100);
/// The slow link: at most this many reply bytes per tick (a PONG is 7 bytes).
const REPLY_BYTES_PER_TICK: usize = 16;
const TICK: Duration = Duration::from_millis(5);

/// A TCP proxy in front of the test Redis that passes requests at once and replies
/// [`REPLY_BYTES_PER_TICK`] bytes per [`TICK`], or none while stalled.
struct SlowLink {
    url: String,
    stalled: Arc<AtomicBool>,
    _tasks: JoinSet<()>,
}

impl SlowLink {
    async fn start() -> anyhow::Result<Self> {
        let upstream = redis_url()
            .strip_prefix("redis://")
            .map(|rest| rest.split('/').next().unwrap_or(rest).to_owned())
            .context("the test Redis URL must be redis://host:port")?;
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let url = format!("redis://{}", listener.local_addr()?);
        let stalled = Arc::new(AtomicBool::new(false));
        let mut tasks = JoinSet::new();
        let flag = Arc::clone(&stalled);
        tasks.spawn(async move {
            let mut links = JoinSet::new();
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(&upstream).await else { continue };
                links.spawn(relay(client, server, Arc::clone(&flag)));
            }
        });
        Ok(Self { url, stalled, _tasks: tasks })
    }

    fn stall(&self, stalled: bool) {
        self.stalled.store(stalled, Ordering::SeqCst);
    }
}

async fn relay(client: TcpStream, server: TcpStream, stalled: Arc<AtomicBool>) {
    let (mut client_read, mut client_write) = client.into_split();
    let (mut server_read, mut server_write) = server.into_split();
    let requests = async move { drop(tokio::io::copy(&mut client_read, &mut server_write).await) };
    let replies = async move {
        let mut buffer = vec![0; REPLY_BYTES_PER_TICK];
        loop {
            tokio::time::sleep(TICK).await;
            let n = match server_read.read(&mut buffer).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            // Bytes read while stalled are held until the link delivers again.
            while stalled.load(Ordering::SeqCst) {
                tokio::time::sleep(TICK).await;
            }
            if client_write.write_all(&buffer[..n]).await.is_err() {
                return;
            }
        }
    };
    tokio::join!(requests, replies);
}

async fn adapter(link: &SlowLink, test: &str) -> anyhow::Result<Arc<RedisCoordination>> {
    let mut settings = RedisSettings::new(link.url.clone(), unique_prefix(test));
    settings.command_timeout = COMMAND_TIMEOUT;
    let coordination = Arc::new(RedisCoordination::new(settings)?);
    coordination.ping().await.context("Redis behind the slow link")?;
    Ok(coordination)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_queued_past_the_command_timeout_on_a_live_connection_is_answered() -> anyhow::Result<()> {
    let link = SlowLink::start().await?;
    let coordination = adapter(&link, "congestion-burst").await?;

    // 80 PONGs are 560 bytes: about 35 ticks, 175 ms, on the link.
    let mut burst = JoinSet::new();
    for _ in 0..80 {
        let coordination = Arc::clone(&coordination);
        burst.spawn(async move {
            let started = Instant::now();
            coordination.ping().await.map(|()| started.elapsed())
        });
    }
    let mut slowest = Duration::ZERO;
    while let Some(joined) = burst.join_next().await {
        let waited = joined?.context("a queued command failed while its connection kept answering")?;
        slowest = slowest.max(waited);
    }
    ensure!(slowest > COMMAND_TIMEOUT, "the burst must queue past the command timeout (slowest {slowest:?})");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_that_stops_answering_fails_at_the_command_timeout_and_is_replaced() -> anyhow::Result<()> {
    let link = SlowLink::start().await?;
    let coordination = adapter(&link, "congestion-stall").await?;
    // Let the warm-up's answer age past one command timeout.
    tokio::time::sleep(COMMAND_TIMEOUT * 2).await;

    link.stall(true);
    let started = Instant::now();
    let error = coordination.ping().await.err().context("a ping over a stalled link must fail")?;
    let waited = started.elapsed();
    ensure!(error.kind() == CoordinationErrorKind::Unavailable, "typed: {error}");
    ensure!(
        waited >= COMMAND_TIMEOUT && waited < COMMAND_TIMEOUT * 3,
        "a dead connection fails at the command timeout, not the longest queue wait: {waited:?}"
    );

    link.stall(false);
    coordination.ping().await.context("the next call reconnects")?;
    Ok(())
}
