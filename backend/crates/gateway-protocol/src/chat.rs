//! Chat Completions over Responses: the local conversion behind `POST /v1/chat/completions`.
//!
//! The client's Chat Completions body becomes a canonical Responses body ([`request`]); the
//! engine runs it like any `POST /v1/responses` (failover, commit barrier, accounting); the
//! Responses answer is turned back into a `chat.completion` object ([`completion`]) or into
//! `chat.completion.chunk` SSE frames ([`chunks`]). Stop sequences are applied here, not
//! upstream ([`stop`]), over text decoded so that a character split across upstream events is
//! still one character ([`delta_text`]).
//!
//! Provider-neutral: it reads and writes only Responses events, so it serves every provider
//! whose stream yields them.

pub mod chunks;
pub mod completion;
pub mod delta_text;
pub mod finish;
pub mod request;
pub mod stop;

pub use chunks::ChunkTranslator;
pub use completion::completion_from_response;
pub use request::{ChatRequest, to_responses};
pub use stop::StopFilter;
