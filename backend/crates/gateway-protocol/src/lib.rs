//! Wire contracts of the OpenAI Responses API as Switchboard speaks them, and the canonical
//! events the rest of the gateway reasons about.
//!
//! Owns: request body inspection and controlled edits, incremental SSE framing, canonical stream
//! facts (response ids, usage, rate-limit facts, terminal state), aggregation of a stream into
//! the non-stream response object, and the OpenAI error shape with the stable error codes clients
//! see.
//!
//! Invariants:
//! - depends on no workspace crate; everything else may depend on it;
//! - parsing never rewrites what the client or upstream sent: facts are read on the side, the
//!   original bytes stay the source of truth for what is forwarded; the only edits are the
//!   explicit, byte-splicing [`request::BodyEdit`]s.

pub mod aggregate;
pub mod chat;
pub mod codex_catalog;
pub mod error;
pub mod events;
pub mod request;
pub mod sse;
pub mod unary;
pub mod usage;
pub mod zed;

pub use error::{ApiError, ErrorCode};
pub use events::{EventKind, TerminalStatus};
pub use sse::{SseFrame, SseFramer};
pub use usage::Usage;
