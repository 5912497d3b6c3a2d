//! One HTTP/1.1 connection: the socket (plain TCP or TLS) and a read buffer that exists only
//! while bytes are in flight.

use std::io::{self, IoSlice};
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Buf, Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

use super::codec::{self, Head, Parsed};

/// Bytes reserved for one read. SSE events are small; a bigger body takes more reads.
const READ_SIZE: usize = 4 * 1024;

pub enum Io {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

pub struct Conn {
    io: Io,
    /// Received bytes not consumed yet; no allocation while empty.
    pub buf: BytesMut,
}

/// A request write that failed, with how many bytes the socket had accepted.
pub struct WriteFailed {
    pub accepted: usize,
    pub error: io::Error,
}

impl Conn {
    pub fn new(io: Io) -> Self {
        Self { io, buf: BytesMut::new() }
    }

    /// Writes the request head and the body's parts (vectored, no copy of the body) and
    /// flushes.
    pub async fn write_request(&mut self, head: &[u8], body: &[Bytes]) -> Result<(), WriteFailed> {
        match &mut self.io {
            Io::Plain(tcp) => write_all(tcp, head, body).await,
            Io::Tls(tls) => write_all(tls.as_mut(), head, body).await,
        }
    }

    /// Reads the next response head, skipping 1xx informational heads.
    pub async fn read_head(&mut self, head_request: bool) -> Result<Head, String> {
        loop {
            if !self.buf.is_empty() {
                match codec::parse_head(&self.buf, head_request)? {
                    Parsed::Partial => {}
                    Parsed::Informational(length) => {
                        self.buf.advance(length);
                        continue;
                    }
                    Parsed::Final(length, head) => {
                        self.buf.advance(length);
                        self.release_if_empty();
                        return Ok(head);
                    }
                }
            }
            let read = self.fill().await.map_err(|e| format!("reading the response head failed: {e}"))?;
            if read == 0 {
                return Err("the upstream connection closed before a response head".to_owned());
            }
        }
    }

    /// Reads more bytes into the buffer; `Ok(0)` at the end of input. On plain TCP the buffer
    /// is reserved only once the socket is readable, so a waiting stream holds none.
    pub async fn fill(&mut self) -> io::Result<usize> {
        match &mut self.io {
            Io::Plain(tcp) => loop {
                tcp.readable().await?;
                reserve(&mut self.buf);
                match tcp.try_read_buf(&mut self.buf) {
                    Err(error) if error.kind() == io::ErrorKind::WouldBlock => continue,
                    read => return read,
                }
            },
            Io::Tls(tls) => {
                reserve(&mut self.buf);
                tls.read_buf(&mut self.buf).await
            }
        }
    }

    /// Drops the read buffer's allocation when nothing is left in it.
    pub fn release_if_empty(&mut self) {
        if self.buf.is_empty() {
            self.buf = BytesMut::new();
        }
    }

    /// Whether an idle connection can take a request: nothing arrived and the server did not
    /// close it. Never waits.
    pub fn is_usable(&mut self) -> bool {
        let tcp = match &self.io {
            Io::Plain(tcp) => tcp,
            Io::Tls(tls) => tls.get_ref().0,
        };
        // Ask the kernel directly: the runtime's readiness may not have seen a close yet.
        let mut probe = [MaybeUninit::<u8>::uninit(); 1];
        match socket2::SockRef::from(tcp).peek(&mut probe) {
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => return true,
            Ok(0) | Err(_) => return false,
            Ok(_) if matches!(self.io, Io::Plain(_)) => return false,
            Ok(_) => {}
        }
        // TLS records arrived (a session ticket, or a close): let TLS consume them, no waiting.
        let Io::Tls(tls) = &mut self.io else { return false };
        let mut byte = [0u8; 1];
        let mut read = ReadBuf::new(&mut byte);
        let mut cx = Context::from_waker(std::task::Waker::noop());
        matches!(Pin::new(tls.as_mut()).poll_read(&mut cx, &mut read), Poll::Pending)
    }
}

/// Room for one read when little is left (the buffer may share its block with data handed out).
fn reserve(buf: &mut BytesMut) {
    if buf.capacity() - buf.len() < READ_SIZE / 4 {
        buf.reserve(READ_SIZE);
    }
}

/// Most slices handed to one vectored write.
const MAX_SLICES: usize = 64;

async fn write_all<W: AsyncWrite + Unpin>(io: &mut W, head: &[u8], body: &[Bytes]) -> Result<(), WriteFailed> {
    let total = head.len() + body.iter().map(Bytes::len).sum::<usize>();
    let mut accepted = 0;
    let mut slices = Vec::with_capacity((body.len() + 1).min(MAX_SLICES));
    while accepted < total {
        slices.clear();
        let mut skip = accepted;
        for part in std::iter::once(head).chain(body.iter().map(|b| &b[..])) {
            if skip >= part.len() {
                skip -= part.len();
                continue;
            }
            slices.push(IoSlice::new(&part[skip..]));
            skip = 0;
            if slices.len() == MAX_SLICES {
                break;
            }
        }
        match io.write_vectored(&slices).await {
            Ok(0) => return Err(WriteFailed { accepted, error: io::ErrorKind::WriteZero.into() }),
            Ok(written) => accepted += written,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(WriteFailed { accepted, error }),
        }
    }
    io.flush().await.map_err(|error| WriteFailed { accepted, error })
}
