//! Compressed answers, as the real backend sends them to a client that asks
//! (`Accept-Encoding: zstd,gzip`, Codex's value): the first of `zstd` and `gzip` the request
//! offers, in the request's order. Each body chunk is compressed and flushed on its own, so an
//! SSE stream stays a stream (one zstd frame / gzip member whose blocks end at event
//! boundaries). A WebSocket upgrade, an answer already encoded and a body-less edge page
//! (`page=empty`) are left alone.

use std::io::Write;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use bytes::Bytes;
use futures_util::StreamExt;
use http::{HeaderMap, HeaderValue, StatusCode, header};

use crate::state::SimState;

/// zstd level for answers: cheap, like a server streaming small events. Level 1 holds about
/// 142 KB per open stream, level 3 about 846 KB (its larger hash tables): 10,000 idle streams
/// in bench (d) would take 8 GB of the simulator at level 3 and starve the gateway beside it.
const ZSTD_LEVEL: i32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Zstd,
    Gzip,
}

impl Encoding {
    /// The first encoding of `Accept-Encoding` this simulator speaks (`q=0` refuses one).
    pub fn chosen(headers: &HeaderMap) -> Option<Self> {
        let offered = headers.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok());
        offered.flat_map(|value| value.split(',')).find_map(|item| {
            let mut parts = item.split(';');
            let name = parts.next()?.trim().to_ascii_lowercase();
            let refused = parts.filter_map(|p| p.trim().strip_prefix("q=")).any(|q| q.trim().parse() == Ok(0.0f32));
            if refused {
                return None;
            }
            match name.as_str() {
                "zstd" => Some(Self::Zstd),
                "gzip" | "x-gzip" => Some(Self::Gzip),
                _ => None,
            }
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Zstd => "zstd",
            Self::Gzip => "gzip",
        }
    }
}

/// Middleware: compresses the answer when the request asked for it (and the setting
/// `compress_answers` is on).
pub async fn compress_answers(State(state): State<Arc<SimState>>, request: Request, next: Next) -> Response {
    let chosen = Encoding::chosen(request.headers()).filter(|_| state.compresses_answers());
    let response = next.run(request).await;
    let Some(encoding) = chosen else { return response };
    if response.status() == StatusCode::SWITCHING_PROTOCOLS
        || response.headers().contains_key(header::CONTENT_ENCODING)
        || response.extensions().get::<crate::edge::page::Uncompressed>().is_some()
    {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    parts.headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(encoding.name()));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, compressed(body, encoding))
}

/// `body`, each chunk compressed and flushed; the stream's end written after the last.
pub fn compressed(body: Body, encoding: Encoding) -> Body {
    let Ok(compressor) = Compressor::new(encoding) else { return body };
    let stream = futures_util::stream::unfold(
        (body.into_data_stream(), Some(compressor)),
        |(mut chunks, compressor)| async move {
            let mut compressor = compressor?;
            match chunks.next().await {
                Some(Ok(chunk)) => {
                    let out = compressor.chunk(&chunk).map_err(std::io::Error::other);
                    Some((out, (chunks, Some(compressor))))
                }
                Some(Err(error)) => Some((Err(std::io::Error::other(error)), (chunks, None))),
                None => Some((compressor.finish(), (chunks, None))),
            }
        },
    );
    Body::from_stream(stream)
}

enum Compressor {
    Zstd(zstd::stream::write::Encoder<'static, Vec<u8>>),
    Gzip(flate2::write::GzEncoder<Vec<u8>>),
}

impl Compressor {
    fn new(encoding: Encoding) -> std::io::Result<Self> {
        Ok(match encoding {
            Encoding::Zstd => Self::Zstd(zstd::stream::write::Encoder::new(Vec::new(), ZSTD_LEVEL)?),
            Encoding::Gzip => Self::Gzip(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast())),
        })
    }

    /// `data` compressed and flushed: everything so far can be decoded from the bytes out.
    fn chunk(&mut self, data: &[u8]) -> std::io::Result<Bytes> {
        match self {
            Self::Zstd(encoder) => {
                encoder.write_all(data)?;
                encoder.flush()?;
                Ok(Bytes::from(std::mem::take(encoder.get_mut())))
            }
            Self::Gzip(encoder) => {
                encoder.write_all(data)?;
                encoder.flush()?;
                Ok(Bytes::from(std::mem::take(encoder.get_mut())))
            }
        }
    }

    /// The end of the stream (zstd's last block, gzip's trailer).
    fn finish(self) -> std::io::Result<Bytes> {
        match self {
            Self::Zstd(encoder) => encoder.finish().map(Bytes::from),
            Self::Gzip(encoder) => encoder.finish().map(Bytes::from),
        }
    }
}
