//! Per-connection control: lets a handler end its TCP connection with a reset (RST) instead of
//! a normal close, for "connection reset mid-stream" scenarios, or kill the connection at once
//! with a reset before any response byte ([`ConnControl::kill`]).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;

/// Shared between the connection's socket wrapper, its serving task and the handlers of its
/// requests (as a request extension).
#[derive(Debug, Default)]
pub struct ConnControl {
    reset: AtomicBool,
    killed: Signal,
    closed: Signal,
}

impl ConnControl {
    /// When the connection is dropped next, drop it with `SO_LINGER = 0` (the kernel sends RST).
    pub fn request_reset(&self) {
        self.reset.store(true, Ordering::SeqCst);
    }

    /// Resets the connection now: its serving task stops serving it before writing anything
    /// more and drops it with `SO_LINGER = 0`.
    pub fn kill(&self) {
        self.request_reset();
        self.killed.raise();
    }

    /// Resolves once [`ConnControl::kill`] was called.
    pub async fn killed(&self) {
        self.killed.wait().await;
    }

    /// Called by the serving task once the connection is dropped.
    pub fn mark_closed(&self) {
        self.closed.raise();
    }

    /// Resolves once the connection was dropped.
    pub async fn closed(&self) {
        self.closed.wait().await;
    }
}

/// A one-way flag with waiters (no allocation).
#[derive(Debug, Default)]
struct Signal {
    raised: AtomicBool,
    notify: Notify,
}

impl Signal {
    fn raise(&self) {
        self.raised.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    async fn wait(&self) {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.raised.load(Ordering::SeqCst) {
                return;
            }
            notified.await;
        }
    }
}

/// A `TcpStream` that honours [`ConnControl::request_reset`] when dropped.
pub struct ControlledStream {
    inner: TcpStream,
    control: Arc<ConnControl>,
}

impl ControlledStream {
    pub fn new(inner: TcpStream, control: Arc<ConnControl>) -> Self {
        Self { inner, control }
    }
}

impl Drop for ControlledStream {
    fn drop(&mut self) {
        if self.control.reset.load(Ordering::SeqCst) {
            // Best effort: if setting the option fails the close is an ordinary FIN.
            let _ = socket2::SockRef::from(&self.inner).set_linger(Some(Duration::ZERO));
        }
    }
}

impl AsyncRead for ControlledStream {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for ControlledStream {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
