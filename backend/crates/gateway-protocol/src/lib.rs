//! Wire contracts of the OpenAI Responses API as Switchboard speaks them, and the canonical
//! events the rest of the gateway reasons about.
//!
//! Owns: request/response wire shapes, incremental SSE framing, canonical stream facts
//! (response ids, usage, rate-limit facts, terminal state) and the OpenAI error shape with the
//! stable error codes clients see.
//!
//! Invariants:
//! - depends on no workspace crate; everything else may depend on it;
//! - parsing never rewrites what the client or upstream sent: facts are read on the side, the
//!   original bytes stay the source of truth for what is forwarded.
