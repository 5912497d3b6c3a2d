//! Decoding a compressed response body (`Content-Encoding: gzip` or `zstd`) as it arrives
//! (decision 0234): each piece of the compressed body yields the decoded bytes it completes,
//! at most [`MAX_PIECE`] at a time, so an SSE stream is decoded event by event and a small
//! compressed input cannot expand into one huge buffer. The caller's own limits (error body
//! prefix, compaction answer, SSE framer) then apply to decoded bytes.

use std::cell::RefCell;
use std::io::Write;

use bytes::Bytes;
use zstd::stream::raw::{DParameter, Decoder as ZstdDecoder, Operation};

/// The largest decoded piece returned at once.
pub const MAX_PIECE: usize = 64 * 1024;

/// zstd windows above 8 MiB are refused (RFC 8878 §3.1.1.1.2: HTTP decoders need not go
/// beyond it), so an answer cannot make the decoder allocate more.
const ZSTD_WINDOW_LOG_MAX: u32 = 23;

/// The encodings decoded, as a request's `Accept-Encoding` offers them (Codex's value).
pub const ACCEPT_ENCODING: &str = "zstd,gzip";

pub(crate) struct Decoding {
    codec: Codec,
    /// Compressed bytes not yet consumed, from `at`.
    input: Bytes,
    at: usize,
    /// Any compressed byte arrived (an empty body is no stream, not a broken one).
    seen_input: bool,
}

enum Codec {
    Gzip(Box<flate2::write::GzDecoder<Vec<u8>>>),
    Zstd {
        decoder: Box<ZstdDecoder<'static>>,
        frame_done: bool,
    },
    /// An encoding this client does not decode: reading the body fails.
    Unsupported(String),
}

impl Decoding {
    /// The decoder for a `Content-Encoding` value; `None` for none or `identity`.
    pub(crate) fn for_encoding(value: &str) -> Option<Self> {
        let value = value.trim().to_ascii_lowercase();
        let codec = match value.as_str() {
            "" | "identity" => return None,
            "gzip" | "x-gzip" => Codec::Gzip(Box::new(flate2::write::GzDecoder::new(Vec::new()))),
            "zstd" => match zstd_decoder() {
                Ok(decoder) => Codec::Zstd { decoder: Box::new(decoder), frame_done: false },
                Err(error) => Codec::Unsupported(format!("zstd ({error})")),
            },
            _ => Codec::Unsupported(value),
        };
        Some(Self { codec, input: Bytes::new(), at: 0, seen_input: false })
    }

    /// More compressed bytes; call only once [`Decoding::output`] has answered `Ok(None)`.
    pub(crate) fn push(&mut self, chunk: Bytes) {
        self.seen_input |= !chunk.is_empty();
        self.input = chunk;
        self.at = 0;
    }

    /// The next decoded piece of the compressed bytes pushed so far; `Ok(None)` when they are
    /// used up (more input is needed).
    pub(crate) fn output(&mut self) -> Result<Option<Bytes>, String> {
        match &mut self.codec {
            Codec::Unsupported(name) => Err(format!("the answer's content-encoding `{name}` is not decoded")),
            Codec::Gzip(decoder) => loop {
                let rest = &self.input[self.at..];
                let used = if rest.is_empty() {
                    0
                } else {
                    decoder.write(rest).map_err(|e| format!("the gzip answer is corrupt: {e}"))?
                };
                self.at += used;
                decoder.flush().map_err(|e| format!("the gzip answer is corrupt: {e}"))?;
                let out = std::mem::take(decoder.get_mut());
                if !out.is_empty() {
                    return Ok(Some(Bytes::from(out)));
                }
                if self.at == self.input.len() {
                    return Ok(None);
                }
                if used == 0 {
                    return Err("bytes follow the end of the gzip answer".to_owned());
                }
            },
            Codec::Zstd { decoder, frame_done } => loop {
                if !self.seen_input {
                    return Ok(None);
                }
                let rest = &self.input[self.at..];
                let (status, piece) = ZSTD_OUTPUT
                    .with_borrow_mut(|output| {
                        let status = decoder.run_on_buffers(rest, &mut output[..])?;
                        let written = &output[..status.bytes_written];
                        Ok::<_, std::io::Error>((
                            status,
                            (!written.is_empty()).then(|| Bytes::copy_from_slice(written)),
                        ))
                    })
                    .map_err(|e| format!("the zstd answer is corrupt: {e}"))?;
                self.at += status.bytes_read;
                // 0: a frame is complete and flushed. Without progress the hint is the next
                // frame's header size, which says nothing about the frame just finished.
                if status.bytes_read > 0 || status.bytes_written > 0 || status.remaining == 0 {
                    *frame_done = status.remaining == 0;
                }
                if piece.is_some() {
                    return Ok(piece);
                }
                if status.bytes_read == 0 {
                    return Ok(None);
                }
            },
        }
    }

    /// The end of the compressed body: the last decoded bytes, if any; an error when the
    /// compressed stream is incomplete.
    pub(crate) fn finish(&mut self) -> Result<Option<Bytes>, String> {
        match &mut self.codec {
            Codec::Unsupported(name) => Err(format!("the answer's content-encoding `{name}` is not decoded")),
            _ if !self.seen_input => Ok(None),
            Codec::Gzip(decoder) => {
                decoder.try_finish().map_err(|_| "the gzip answer ended early".to_owned())?;
                let out = std::mem::take(decoder.get_mut());
                Ok((!out.is_empty()).then(|| Bytes::from(out)))
            }
            Codec::Zstd { frame_done, .. } => {
                if !*frame_done {
                    return Err("the zstd answer ended early".to_owned());
                }
                Ok(None)
            }
        }
    }
}

thread_local! {
    /// The zstd decoder's output, one per thread rather than one per stream (64 KiB each of
    /// 10,000 open streams would be 640 MB): every decoded piece is copied out before
    /// [`Decoding::output`] returns, so nothing stays in it between calls.
    static ZSTD_OUTPUT: RefCell<Box<[u8]>> = RefCell::new(vec![0; MAX_PIECE].into_boxed_slice());
}

fn zstd_decoder() -> std::io::Result<ZstdDecoder<'static>> {
    let mut decoder = ZstdDecoder::new()?;
    decoder.set_parameter(DParameter::WindowLogMax(ZSTD_WINDOW_LOG_MAX))?;
    Ok(decoder)
}
