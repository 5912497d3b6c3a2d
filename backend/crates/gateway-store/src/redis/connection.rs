//! One shared multiplexed connection, reopened after a connection-level failure.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use ::redis::aio::MultiplexedConnection;
use ::redis::{AsyncConnectionConfig, Client, Cmd, FromRedisValue, RedisError};
use gateway_core::coordination::CoordinationError;

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
}

impl SharedConnection {
    pub(crate) fn new(
        url: &str,
        connect_timeout: Duration,
        command_timeout: Duration,
    ) -> Result<Self, CoordinationError> {
        let client = Client::open(url).map_err(|e| CoordinationError::InvalidInput(format!("redis url: {e}")))?;
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(connect_timeout))
            .set_response_timeout(Some(command_timeout));
        Ok(Self {
            client,
            config,
            connect_timeout,
            command_timeout,
            current: Mutex::new(None),
            connecting: tokio::sync::Mutex::new(()),
            generations: AtomicU64::new(0),
            attempts: AtomicU64::new(0),
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
        match tokio::time::timeout(self.command_timeout, cmd.query_async::<T>(&mut connection)).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => {
                let connection_lost = is_connection_error(&error);
                if connection_lost {
                    self.invalidate(generation);
                }
                Err(QueryFailure { error: map_error(&error, connection_lost), server: Some(error) })
            }
            Err(_) => {
                self.invalidate(generation);
                Err(QueryFailure::plain(CoordinationError::Timeout(self.command_timeout)))
            }
        }
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
