//! HTTP/1.1 wire format of one exchange: the request head, the response head (with `httparse`)
//! and the body framing (`content-length`, chunked, until close). Pure functions over buffers;
//! no IO here.

use bytes::{Buf, Bytes, BytesMut};
use http::header::{CONNECTION, CONTENT_LENGTH, HOST, TRANSFER_ENCODING};
use http::{HeaderMap, HeaderName, HeaderValue, Method};

/// A response head (status line and headers, or a chunked trailer section) larger than this is
/// refused.
pub const MAX_HEAD: usize = 64 * 1024;
/// Header fields of one response head at most.
const MAX_HEADERS: usize = 128;
/// A chunk size line (with extensions) longer than this is refused.
const MAX_CHUNK_LINE: usize = 4 * 1024;

/// The request head: request line, `host`, the caller's headers, `content-length`.
pub fn encode_head(
    method: &Method,
    path: &str,
    authority: &str,
    headers: &HeaderMap,
    body_len: usize,
) -> Result<Vec<u8>, String> {
    if !path.starts_with('/') || !path.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(format!("`{path}` is not a request path"));
    }
    let fields: usize = headers.iter().map(|(n, v)| n.as_str().len() + v.len() + 4).sum();
    let mut head = Vec::with_capacity(method.as_str().len() + path.len() + authority.len() + fields + 64);
    for part in [method.as_str(), " ", path, " HTTP/1.1\r\nhost: ", authority, "\r\n"] {
        head.extend_from_slice(part.as_bytes());
    }
    for (name, value) in headers {
        // The framing and the origin are ours to state.
        if name == HOST || name == CONTENT_LENGTH || name == TRANSFER_ENCODING {
            continue;
        }
        head.extend_from_slice(name.as_str().as_bytes());
        head.extend_from_slice(b": ");
        head.extend_from_slice(value.as_bytes());
        head.extend_from_slice(b"\r\n");
    }
    if body_len > 0 || !matches!(*method, Method::GET | Method::HEAD) {
        head.extend_from_slice(format!("content-length: {body_len}\r\n").as_bytes());
    }
    head.extend_from_slice(b"\r\n");
    Ok(head)
}

/// A parsed final response head.
pub struct Head {
    pub status: u16,
    pub headers: HeaderMap,
    pub framing: Framing,
    /// HTTP/1.1 without `connection: close`, framed by length or chunks.
    pub keep_alive: bool,
}

/// What the start of a read buffer holds.
pub enum Parsed {
    /// Not a complete head yet.
    Partial,
    /// A 1xx informational head of this many bytes, to be skipped.
    Informational(usize),
    /// The final head, of this many bytes.
    Final(usize, Head),
}

/// Parses the response head at the start of `buf`; `head_request` says the request was `HEAD`.
pub fn parse_head(buf: &[u8], head_request: bool) -> Result<Parsed, String> {
    let mut fields = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut response = httparse::Response::new(&mut fields);
    let length = match response.parse(buf) {
        Ok(httparse::Status::Complete(length)) if length <= MAX_HEAD => length,
        Ok(httparse::Status::Partial) if buf.len() < MAX_HEAD => return Ok(Parsed::Partial),
        Ok(_) => return Err(format!("the response head is over {} KB", MAX_HEAD / 1024)),
        Err(error) => return Err(format!("malformed response head: {error}")),
    };
    let status = response.code.unwrap_or_default();
    match status {
        101 => return Err("unexpected 101 Switching Protocols".to_owned()),
        100..=199 => return Ok(Parsed::Informational(length)),
        _ => {}
    }
    let mut headers = HeaderMap::with_capacity(response.headers.len());
    for field in response.headers.iter() {
        let name = HeaderName::from_bytes(field.name.as_bytes()).map_err(|_| "malformed header name".to_owned())?;
        let value = HeaderValue::from_bytes(field.value).map_err(|_| "malformed header value".to_owned())?;
        headers.append(name, value);
    }
    let close = headers.get_all(CONNECTION).iter().any(|v| has_token(v.as_bytes(), b"close"));
    let mut keep_alive = response.version == Some(1) && !close;
    let framing = if head_request || status == 204 || status == 304 {
        Framing::Done
    } else if let Some(coding) = headers.get_all(TRANSFER_ENCODING).iter().next_back() {
        // A length next to a transfer coding is a smuggling smell: read this one, then close.
        keep_alive &= !headers.contains_key(CONTENT_LENGTH);
        if last_token(coding.as_bytes()).eq_ignore_ascii_case(b"chunked") {
            Framing::Chunked(Chunk::Size)
        } else {
            keep_alive = false;
            Framing::UntilClose
        }
    } else if let Some(length) = content_length(&headers)? {
        if length == 0 { Framing::Done } else { Framing::Length(length) }
    } else {
        keep_alive = false;
        Framing::UntilClose
    };
    Ok(Parsed::Final(length, Head { status, headers, framing, keep_alive }))
}

/// The `content-length`, if any; differing or invalid values are refused.
fn content_length(headers: &HeaderMap) -> Result<Option<u64>, String> {
    let mut length = None;
    for value in headers.get_all(CONTENT_LENGTH) {
        for item in value.as_bytes().split(|&b| b == b',') {
            let item = item.trim_ascii();
            let parsed = std::str::from_utf8(item)
                .ok()
                .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|s| s.parse::<u64>().ok())
                .ok_or_else(|| "invalid content-length".to_owned())?;
            if length.is_some_and(|l| l != parsed) {
                return Err("conflicting content-length values".to_owned());
            }
            length = Some(parsed);
        }
    }
    Ok(length)
}

fn has_token(list: &[u8], token: &[u8]) -> bool {
    list.split(|&b| b == b',').any(|item| item.trim_ascii().eq_ignore_ascii_case(token))
}

fn last_token(list: &[u8]) -> &[u8] {
    list.rsplit(|&b| b == b',').next().unwrap_or_default().trim_ascii()
}

/// How the response body is delimited, and how far it has been read.
pub enum Framing {
    /// This many body bytes remain.
    Length(u64),
    Chunked(Chunk),
    /// The body ends when the server closes the connection.
    UntilClose,
    /// The body is complete.
    Done,
}

/// Position inside a chunked body.
pub enum Chunk {
    /// Before a chunk size line.
    Size,
    /// Inside chunk data, this many bytes left.
    Data(u64),
    /// Before the CRLF that ends chunk data.
    DataEnd,
    /// In the trailer section, this many bytes read so far.
    Trailers(usize),
}

impl Framing {
    pub fn is_done(&self) -> bool {
        matches!(self, Self::Done)
    }

    /// The next body data in `buf` (split off without copying), consuming any framing bytes
    /// around it; `None` when `buf` holds no data yet or the body is done.
    pub fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<Bytes>, String> {
        self.skip_framing(buf)?;
        let data = self.take_data(buf);
        if data.is_some() {
            // Consume what follows the data too, so that an empty buffer can be released and
            // the end of the body is seen with its last data. An error leaves the state and
            // the buffer as they were: the next call reports it, after this data.
            let _ = self.skip_framing(buf);
        }
        Ok(data)
    }

    /// The server closed the connection: fine only for a body that ends at the close.
    pub fn end_of_input(&mut self) -> Result<(), String> {
        match self {
            Self::UntilClose | Self::Done => {
                *self = Self::Done;
                Ok(())
            }
            _ => Err("the upstream connection closed before the body ended".to_owned()),
        }
    }

    fn take_data(&mut self, buf: &mut BytesMut) -> Option<Bytes> {
        if buf.is_empty() {
            return None;
        }
        let remaining = match self {
            Self::UntilClose => return Some(buf.split().freeze()),
            Self::Length(remaining) | Self::Chunked(Chunk::Data(remaining)) => remaining,
            Self::Chunked(_) | Self::Done => return None,
        };
        let take = usize::try_from(*remaining).unwrap_or(usize::MAX).min(buf.len());
        *remaining -= take as u64;
        if *remaining == 0 {
            *self = match self {
                Self::Length(_) => Self::Done,
                _ => Self::Chunked(Chunk::DataEnd),
            };
        }
        Some(buf.split_to(take).freeze())
    }

    /// Consumes chunk size lines, data terminators and trailers while `buf` holds them whole.
    fn skip_framing(&mut self, buf: &mut BytesMut) -> Result<(), String> {
        loop {
            let Self::Chunked(chunk) = self else { return Ok(()) };
            match chunk {
                Chunk::Data(_) => return Ok(()),
                Chunk::Size => {
                    if !buf.first().is_some_and(u8::is_ascii_hexdigit) {
                        if buf.is_empty() {
                            return Ok(());
                        }
                        return Err("invalid chunk size".to_owned());
                    }
                    match httparse::parse_chunk_size(buf) {
                        Ok(httparse::Status::Complete((length, size))) => {
                            buf.advance(length);
                            *chunk = if size == 0 { Chunk::Trailers(0) } else { Chunk::Data(size) };
                        }
                        Ok(httparse::Status::Partial) if buf.len() <= MAX_CHUNK_LINE => return Ok(()),
                        _ => return Err("invalid chunk size".to_owned()),
                    }
                }
                Chunk::DataEnd => {
                    if buf.len() < 2 {
                        return Ok(());
                    }
                    if &buf[..2] != b"\r\n" {
                        return Err("chunk data not followed by CRLF".to_owned());
                    }
                    buf.advance(2);
                    *chunk = Chunk::Size;
                }
                Chunk::Trailers(read) => {
                    let Some(end) = buf.iter().position(|&b| b == b'\n') else {
                        if *read + buf.len() > MAX_HEAD {
                            return Err("the chunked trailers are too large".to_owned());
                        }
                        return Ok(());
                    };
                    if *read + end + 1 > MAX_HEAD {
                        return Err("the chunked trailers are too large".to_owned());
                    }
                    let last = matches!(&buf[..end], b"" | b"\r");
                    *read += end + 1;
                    buf.advance(end + 1);
                    // Trailer fields are discarded; an empty line ends the body.
                    if last {
                        *self = Self::Done;
                    }
                }
            }
        }
    }
}
