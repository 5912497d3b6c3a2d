//! Incremental, zero-copy SSE framing.
//!
//! Upstream bytes arrive in arbitrary chunks; [`SseFramer`] cuts them into complete frames
//! (terminated by a blank line) without copying: each [`SseFrame`] is a `Bytes` slice of what
//! arrived, so forwarding a frame forwards the upstream's exact bytes. We wrote our own framer
//! because the maintained SSE crates decode into owned `String` events, which would both copy
//! every event and lose the original bytes that byte-transparent forwarding needs.

use bytes::{Bytes, BytesMut};

/// Upper bound on one frame; a peer that never ends a frame is cut off rather than buffered.
pub const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

#[derive(Debug, Default)]
pub struct SseFramer {
    buffer: BytesMut,
    /// Where to resume the search for the frame end (bytes before it hold no terminator).
    scanned: usize,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SseError {
    #[error("an SSE frame exceeded {MAX_FRAME_BYTES} bytes")]
    FrameTooLarge,
}

impl SseFramer {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a chunk of bytes as received.
    pub fn push(&mut self, chunk: &[u8]) {
        self.buffer.extend_from_slice(chunk);
    }

    /// The next complete frame, if one has arrived.
    pub fn next_frame(&mut self) -> Result<Option<SseFrame>, SseError> {
        match find_frame_end(&self.buffer, self.scanned) {
            Some(end) => {
                let raw = self.buffer.split_to(end).freeze();
                self.scanned = 0;
                Ok(Some(SseFrame { raw }))
            }
            None => {
                // Keep the last 3 bytes unscanned: a terminator may straddle the next chunk.
                self.scanned = self.buffer.len().saturating_sub(3);
                if self.buffer.len() > MAX_FRAME_BYTES { Err(SseError::FrameTooLarge) } else { Ok(None) }
            }
        }
    }

    /// Bytes received after the last complete frame (a truncated frame at end of stream).
    pub fn remainder(&self) -> &[u8] {
        &self.buffer
    }

    pub fn has_remainder(&self) -> bool {
        self.buffer.iter().any(|b| !b.is_ascii_whitespace())
    }

    /// Takes the unterminated rest (used when the stream ends without a final blank line).
    pub fn take_remainder(&mut self) -> Bytes {
        self.scanned = 0;
        let len = self.buffer.len();
        self.buffer.split_to(len).freeze()
    }
}

/// The index just past the blank line ending the first frame (`\n\n`, `\r\n\r\n`, `\r\r`).
fn find_frame_end(buf: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < buf.len() {
        match buf[i] {
            b'\n' => match buf.get(i + 1) {
                Some(b'\n') => return Some(i + 2),
                Some(b'\r') if buf.get(i + 2) == Some(&b'\n') => return Some(i + 3),
                _ => {}
            },
            b'\r' if buf.get(i + 1) == Some(&b'\r') => return Some(i + 2),
            _ => {}
        }
        i += 1;
    }
    None
}

/// One complete frame: the exact bytes received, with accessors for its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseFrame {
    pub raw: Bytes,
}

impl SseFrame {
    /// A frame built locally (by the gateway, not forwarded from upstream).
    pub fn from_event(event: &str, data: &[u8]) -> Self {
        let mut raw = Vec::with_capacity(event.len() + data.len() + 16);
        raw.extend_from_slice(b"event: ");
        raw.extend_from_slice(event.as_bytes());
        raw.extend_from_slice(b"\ndata: ");
        raw.extend_from_slice(data);
        raw.extend_from_slice(b"\n\n");
        Self { raw: Bytes::from(raw) }
    }

    fn lines(&self) -> impl Iterator<Item = &[u8]> {
        self.raw.split(|b| *b == b'\n').map(|line| line.strip_suffix(b"\r").unwrap_or(line))
    }

    fn field<'a>(line: &'a [u8], name: &[u8]) -> Option<&'a [u8]> {
        let rest = line.strip_prefix(name)?.strip_prefix(b":")?;
        Some(rest.strip_prefix(b" ").unwrap_or(rest))
    }

    /// The `event:` name, if the frame has one.
    pub fn event_name(&self) -> Option<&str> {
        self.lines().find_map(|l| Self::field(l, b"event")).and_then(|v| std::str::from_utf8(v).ok())
    }

    /// The `data:` payload: borrowed when the frame has one data line, joined with `\n` when it
    /// has several, `None` when it has none (comments, keep-alives).
    pub fn data(&self) -> Option<std::borrow::Cow<'_, [u8]>> {
        let mut parts = self.lines().filter_map(|l| Self::field(l, b"data"));
        let first = parts.next()?;
        match parts.next() {
            None => Some(std::borrow::Cow::Borrowed(first)),
            Some(second) => {
                let mut joined = first.to_vec();
                joined.push(b'\n');
                joined.extend_from_slice(second);
                for part in parts {
                    joined.push(b'\n');
                    joined.extend_from_slice(part);
                }
                Some(std::borrow::Cow::Owned(joined))
            }
        }
    }

    /// The `data:` payload as `Bytes`: a slice of the frame (no copy) when it has one data
    /// line, joined when it has several.
    pub fn data_bytes(&self) -> Option<Bytes> {
        match self.data()? {
            std::borrow::Cow::Borrowed(data) => Some(self.raw.slice_ref(data)),
            std::borrow::Cow::Owned(joined) => Some(Bytes::from(joined)),
        }
    }

    /// True for frames with no data (comments such as `: ping`).
    pub fn is_comment(&self) -> bool {
        self.data().is_none()
    }
}
