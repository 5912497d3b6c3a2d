//! A client socket that hyper reads and writes while the connection task watches it too.
//!
//! hyper's HTTP/1.1 server notices a client that hangs up mid-response by reading: it keeps an
//! 8 KB read buffer for that on every connection that streams an answer (80 MB at 10,000 open
//! streams). Served with `half_close`, hyper does not read while it answers; [`client_gone`]
//! watches the socket instead with a one-byte peek, which needs no buffer (decision 0302).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use super::activity::Activity;

/// How long the watch waits before looking again when the client has sent bytes hyper has not
/// read yet (a pipelined request, the rest of a body).
pub const UNREAD_RECHECK: Duration = Duration::from_millis(250);

/// The socket, shared between hyper (as its I/O) and [`client_gone`].
#[derive(Debug, Clone)]
pub struct ClientIo(Arc<TcpStream>);

impl ClientIo {
    pub fn new(stream: TcpStream) -> Self {
        Self(Arc::new(stream))
    }

    pub fn stream(&self) -> &TcpStream {
        &self.0
    }
}

impl AsyncRead for ClientIo {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        loop {
            ready!(self.0.poll_read_ready(cx))?;
            match self.0.try_read_buf(buf) {
                Ok(_) => return Poll::Ready(Ok(())),
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                Err(error) => return Poll::Ready(Err(error)),
            }
        }
    }
}

impl AsyncWrite for ClientIo {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        loop {
            ready!(self.0.poll_write_ready(cx))?;
            match self.0.try_write(buf) {
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                done => return Poll::Ready(done),
            }
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        loop {
            ready!(self.0.poll_write_ready(cx))?;
            match self.0.try_write_vectored(bufs) {
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                done => return Poll::Ready(done),
            }
        }
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(socket2::SockRef::from(self.0.as_ref()).shutdown(std::net::Shutdown::Write))
    }
}

/// Resolves when the client has closed its side (or the socket failed) while a request of the
/// connection is in flight. Between requests hyper reads for the next one and sees the close
/// itself.
pub async fn client_gone(io: &ClientIo, activity: &Activity) {
    let mut probe = [0u8; 1];
    loop {
        activity.busy().await;
        match io.stream().peek(&mut probe).await {
            Ok(0) | Err(_) => return,
            Ok(_) => tokio::time::sleep(UNREAD_RECHECK).await,
        }
    }
}
