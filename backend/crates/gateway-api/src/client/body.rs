//! Reading a request body once: into one buffer of the declared size (`content-length`), each
//! chunk copied in as it arrives and then dropped — no list of chunks joined at the end. A body
//! that arrives as one chunk is kept as it came.
//!
//! A body of [`MAPPED_FROM`] bytes or more is read into its own anonymous memory mapping, which
//! goes back to the operating system the moment the body is dropped. From the allocator's heap
//! it would not: mimalloc keeps a freed 30 MiB block until later allocations purge it, which an
//! idle gateway never makes (measured in `scripts/bench` (h), decision 0114).

use axum::body::Body;
use axum::http::HeaderMap;
use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;
use memmap2::MmapMut;

/// Bodies from this size on live in their own mapping.
pub const MAPPED_FROM: usize = 1 << 20;

/// Why a body could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// More than the limit arrived.
    TooLarge,
    /// The client's body broke off (connection closed, malformed chunking, silent past the
    /// body-read deadline): the error says which (`body_failure::classify`).
    Broken(axum::Error),
}

/// The `content-length` the client declared, if any.
pub fn declared_length(headers: &HeaderMap) -> Option<usize> {
    headers.get("content-length").and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<usize>().ok())
}

/// Reads at most `limit` bytes of `body`; `declared` (at most `limit`) sizes the buffer.
pub async fn read(body: Body, declared: Option<usize>, limit: usize) -> Result<Bytes, ReadError> {
    let mut chunks = body.into_data_stream();
    let mut first: Option<Bytes> = None;
    let mut buffer: Option<Buffer> = None;
    let mut total = 0usize;
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(ReadError::Broken)?;
        total = total.saturating_add(chunk.len());
        if total > limit {
            return Err(ReadError::TooLarge);
        }
        if let Some(buffer) = buffer.as_mut() {
            buffer.extend(&chunk, limit);
        } else if let Some(head) = first.take() {
            let mut started = Buffer::new(declared.unwrap_or(0).clamp(total, limit));
            started.extend(&head, limit);
            started.extend(&chunk, limit);
            buffer = Some(started);
        } else {
            first = Some(chunk);
        }
    }
    Ok(match (buffer, first) {
        (Some(buffer), _) => buffer.freeze(),
        (None, Some(first)) => first,
        (None, None) => Bytes::new(),
    })
}

/// The body being read: on the heap while small, in a mapping once large.
enum Buffer {
    Heap(BytesMut),
    Mapped(Mapped),
}

/// An anonymous mapping and how much of it holds the body. Pages never written are never
/// resident, so mapping more than the body needs costs address space only.
struct Mapped {
    map: MmapMut,
    len: usize,
}

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        &self.map[..self.len]
    }
}

impl Buffer {
    fn new(size: usize) -> Self {
        if size >= MAPPED_FROM
            && let Ok(map) = MmapMut::map_anon(size)
        {
            return Self::Mapped(Mapped { map, len: 0 });
        }
        Self::Heap(BytesMut::with_capacity(size))
    }

    /// Appends `chunk`; the caller keeps the total within `limit`.
    fn extend(&mut self, chunk: &[u8], limit: usize) {
        let needed = self.len() + chunk.len();
        let outgrown = match self {
            Self::Heap(heap) => needed >= MAPPED_FROM && heap.capacity() < needed,
            Self::Mapped(mapped) => mapped.map.len() < needed,
        };
        if outgrown {
            // More than was declared (or nothing was): move to a mapping of the limit, once.
            let mut grown = Self::new(limit.max(needed));
            grown.extend(self.as_slice(), limit);
            *self = grown;
        }
        match self {
            Self::Heap(heap) => heap.extend_from_slice(chunk),
            Self::Mapped(mapped) => {
                mapped.map[mapped.len..needed].copy_from_slice(chunk);
                mapped.len = needed;
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Self::Heap(heap) => heap.len(),
            Self::Mapped(mapped) => mapped.len,
        }
    }

    fn as_slice(&self) -> &[u8] {
        match self {
            Self::Heap(heap) => heap,
            Self::Mapped(mapped) => mapped.as_ref(),
        }
    }

    fn freeze(self) -> Bytes {
        match self {
            Self::Heap(heap) => heap.freeze(),
            Self::Mapped(mapped) => Bytes::from_owner(mapped),
        }
    }
}
