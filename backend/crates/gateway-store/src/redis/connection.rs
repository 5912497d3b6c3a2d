//! One shared multiplexed connection, reopened after a connection-level failure.
//!
//! A command that has no reply after the command timeout fails, and its connection is dropped
//! as dead — unless the connection answered other commands within that time: then it is busy,
//! not dead (a burst of thousands of requests queues its commands on the one connection), and
//! the command waits on, up to [`QUEUED_WAIT_FACTOR`] × the command timeout in all.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use ::redis::aio::MultiplexedConnection;
use ::redis::{AsyncConnectionConfig, Client, Cmd, FromRedisValue, RedisError};
use gateway_core::coordination::CoordinationError;
use tokio::time::Instant;

/// How many command timeouts a command may wait in all while its connection keeps answering.
pub(crate) const QUEUED_WAIT_FACTOR: u32 = 5;

pub(crate) struct SharedConnection {
    client: Client,
    config: AsyncConnectionConfig,
    connect_timeout: Duration,
    command_timeout: Duration,
    current: Mutex<Option<(u64, MultiplexedConnection)>>,
    connecting: tokio::sync::Mutex<()>,
    generations: AtomicU64,
    /// Connect attempts so far: a caller that waited for another caller's failed attempt fails
    /// at once instead of queueing for its own connect timeout.
    attempts: AtomicU64,
    /// When the connection last answered (a reply or a server error), as milliseconds since
    /// `epoch`; a new connection counts as an answer.
    answered_at_ms: AtomicU64,
    epoch: Instant,
}

impl SharedConnection {
    pub(crate) fn new(
        url: &str,
        connect_timeout: Duration,
        command_timeout: Duration,
    ) -> Result<Self, CoordinationError> {
        let client = Client::open(url).map_err(|e| CoordinationError::InvalidInput(format!("redis url: {e}")))?;
        // The client's own reply deadline is the longest wait; `query_raw` applies the shorter
        // one to a connection that stopped answering.
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(connect_timeout))
            .set_response_timeout(Some(command_timeout * QUEUED_WAIT_FACTOR));
        Ok(Self {
            client,
            config,
            connect_timeout,
            command_timeout,
            current: Mutex::new(None),
            connecting: tokio::sync::Mutex::new(()),
            generations: AtomicU64::new(0),
            attempts: AtomicU64::new(0),
            answered_at_ms: AtomicU64::new(0),
            epoch: Instant::now(),
        })
    }

    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    pub(crate) fn connect_timeout(&self) -> Duration {
        self.connect_timeout
    }

    /// Sends one command; a connection-level failure drops the connection for the next call.
    pub(crate) async fn query<T: FromRedisValue>(&self, cmd: &Cmd) -> Result<T, CoordinationError> {
        self.query_raw(cmd).await.map_err(|failure| failure.error)
    }

    /// Like [`Self::query`] but keeps the server error for callers that react to it (NOSCRIPT).
    pub(crate) async fn query_raw<T: FromRedisValue>(&self, cmd: &Cmd) -> Result<T, QueryFailure> {
        let (generation, mut connection) = self.connection().await.map_err(QueryFailure::plain)?;
        let started = Instant::now();
        let reply = cmd.query_async::<T>(&mut connection);
        tokio::pin!(reply);
        let outcome = loop {
            match tokio::time::timeout(self.command_timeout, &mut reply).await {
                Ok(outcome) => break outcome,
                Err(_) if self.busy_not_dead(started) => continue,
                Err(_) => {
                    self.invalidate(generation);
                    let waited = round_to_ms(started.elapsed());
                    return Err(QueryFailure::plain(CoordinationError::Timeout(waited)));
                }
            }
        };
        match outcome {
            Ok(value) => {
                self.note_answer();
                Ok(value)
            }
            Err(error) => {
                let connection_lost = is_connection_error(&error);
                if connection_lost {
                    self.invalidate(generation);
                } else {
                    self.note_answer();
                }
                Err(QueryFailure { error: map_error(&error, connection_lost), server: Some(error) })
            }
        }
    }

    /// The connection answered within the last command timeout and the command has waited less
    /// than its longest wait.
    fn busy_not_dead(&self, started: Instant) -> bool {
        let answered_at = self.epoch + Duration::from_millis(self.answered_at_ms.load(Ordering::Relaxed));
        answered_at.elapsed() < self.command_timeout && started.elapsed() < self.command_timeout * QUEUED_WAIT_FACTOR
    }

    fn note_answer(&self) {
        let now = u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.answered_at_ms.fetch_max(now, Ordering::Relaxed);
    }

    async fn connection(&self) -> Result<(u64, MultiplexedConnection), CoordinationError> {
        if let Some(current) = self.cached() {
            return Ok(current);
        }
        // One connect at a time; callers that waited share its result, success or failure.
        let attempts_seen = self.attempts.load(Ordering::Acquire);
        let _connecting = self.connecting.lock().await;
        if let Some(current) = self.cached() {
            return Ok(current);
        }
        if self.attempts.load(Ordering::Acquire) != attempts_seen {
            return Err(CoordinationError::Unavailable("reconnecting to redis failed just now".to_owned()));
        }
        self.attempts.fetch_add(1, Ordering::AcqRel);
        let connect = self.client.get_multiplexed_async_connection_with_config(&self.config);
        let connection = match tokio::time::timeout(self.connect_timeout, connect).await {
            Ok(Ok(connection)) => connection,
            Ok(Err(error)) => return Err(CoordinationError::Unavailable(error.to_string())),
            Err(_) => return Err(CoordinationError::Timeout(self.connect_timeout)),
        };
        let generation = self.generations.fetch_add(1, Ordering::Relaxed) + 1;
        self.note_answer();
        *self.lock() = Some((generation, connection.clone()));
        tracing::debug!(generation, "redis connection opened");
        Ok((generation, connection))
    }

    fn cached(&self) -> Option<(u64, MultiplexedConnection)> {
        self.lock().clone()
    }

    fn invalidate(&self, generation: u64) {
        let mut current = self.lock();
        if current.as_ref().is_some_and(|(g, _)| *g == generation) {
            *current = None;
            tracing::warn!(generation, "redis connection dropped; the next call reconnects");
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(u64, MultiplexedConnection)>> {
        // The guarded value is a plain Option swap; a panic while holding it cannot leave it
        // half-written, so a poisoned lock is still usable.
        self.current.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A failed query: the port error, and the server error when there was one.
pub(crate) struct QueryFailure {
    pub(crate) error: CoordinationError,
    pub(crate) server: Option<RedisError>,
}

impl QueryFailure {
    fn plain(error: CoordinationError) -> Self {
        Self { error, server: None }
    }
}

fn round_to_ms(duration: Duration) -> Duration {
    Duration::from_millis(u64::try_from(duration.as_millis()).unwrap_or(u64::MAX))
}

fn is_connection_error(error: &RedisError) -> bool {
    error.is_io_error()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
        || error.is_timeout()
        || error.is_unrecoverable_error()
}

fn map_error(error: &RedisError, connection_lost: bool) -> CoordinationError {
    use ::redis::{ErrorKind, ServerErrorKind};
    let server_not_ready = matches!(
        error.kind(),
        ErrorKind::Server(
            ServerErrorKind::BusyLoading
                | ServerErrorKind::TryAgain
                | ServerErrorKind::ClusterDown
                | ServerErrorKind::MasterDown
                | ServerErrorKind::ReadOnly
        )
    );
    if connection_lost || server_not_ready {
        CoordinationError::Unavailable(error.to_string())
    } else {
        CoordinationError::Protocol(error.to_string())
    }
}
