//! The zstd request body (`Content-Encoding: zstd`) Codex sends to the Codex backend with
//! ChatGPT auth (PROTOCOL §B.2: level 3, `enable_request_compression` on by default), made the
//! way Codex 0.171 makes it: a streaming level-3 encoder told no size, so the frame carries a
//! window descriptor and no content size — byte for byte Codex's frame for the same body
//! (decision 0331). Used for the turns the gateway originates (`codex_turn.rs`, decision 0330).
//!
//! The output is one buffer of `compress_bound(len)` capacity, written once (no reallocation;
//! for a large body only the written pages become resident). The encoder (a level-3 context,
//! 3.5 MB) is kept per thread and reset between bodies instead of being built for each one.
//! A body above [`INLINE_LIMIT`] is compressed on the blocking pool, so a worker thread of the
//! runtime is not held for milliseconds.

use std::cell::RefCell;
use std::io;

use bytes::Bytes;
use gateway_protocol::request::SplicedBody;
use zstd::stream::raw::{Encoder, InBuffer, Operation, OutBuffer};

/// Codex's level.
pub const ZSTD_LEVEL: i32 = 3;

/// Bodies up to this size are compressed on the calling task (well under a millisecond).
pub const INLINE_LIMIT: usize = 256 << 10;

/// The header value.
pub const CONTENT_ENCODING: &str = "zstd";

thread_local! {
    static ENCODER: RefCell<Option<Encoder<'static>>> = const { RefCell::new(None) };
}

/// `body` as one zstd frame.
pub async fn compress(body: &SplicedBody) -> io::Result<Bytes> {
    if body.len() <= INLINE_LIMIT {
        return compress_parts(body.parts());
    }
    let parts = body.parts().to_vec();
    tokio::task::spawn_blocking(move || compress_parts(&parts)).await.map_err(io::Error::other)?
}

/// The parts, in order, as one zstd frame.
pub fn compress_parts(parts: &[Bytes]) -> io::Result<Bytes> {
    let len = parts.iter().map(Bytes::len).sum();
    let mut out: Vec<u8> = Vec::with_capacity(zstd::zstd_safe::compress_bound(len));
    ENCODER.with_borrow_mut(|slot| {
        let encoder = match slot {
            Some(encoder) => {
                encoder.reinit()?;
                encoder
            }
            None => slot.insert(Encoder::new(ZSTD_LEVEL)?),
        };
        let result = encode(encoder, parts, &mut out);
        if result.is_err() {
            // A context left mid-frame is not reused.
            *slot = None;
        }
        result
    })?;
    Ok(Bytes::from(out))
}

fn encode(encoder: &mut Encoder<'static>, parts: &[Bytes], out: &mut Vec<u8>) -> io::Result<()> {
    for part in parts {
        let mut input = InBuffer::around(part);
        while input.pos() < part.len() {
            room(out);
            let pos = out.len();
            encoder.run(&mut input, &mut OutBuffer::around_pos(out, pos))?;
        }
    }
    loop {
        room(out);
        let pos = out.len();
        if encoder.finish(&mut OutBuffer::around_pos(out, pos), true)? == 0 {
            return Ok(());
        }
    }
}

/// `compress_bound` covers a whole frame; more room only if the encoder ever asks past it.
fn room(out: &mut Vec<u8>) {
    if out.len() == out.capacity() {
        out.reserve(64 << 10);
    }
}
