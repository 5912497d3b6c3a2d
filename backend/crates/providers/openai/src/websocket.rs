//! Responses over an upstream WebSocket (`wss://…/codex/responses`), pooled per account and
//! conversation so that the upstream's per-socket state (`previous_response_id` with
//! `store:false`) survives between turns.
//!
//! - `connect.rs`: the handshake with the Codex headers and its failure classes (426, network →
//!   fall back to HTTP on the same account; 429 → rotate the account; 401 → credential recovery).
//! - `pool.rs`: the sockets by (account, conversation) and by the last response each completed;
//!   max age, per-account and total caps, idle expiry.
//! - `frame.rs`: the request message (the controlled edits) and its frames, fragmented above
//!   64 KiB so that no whole copy of it is made;
//! - `exchange.rs`: one response on one socket: send the frame, prefetch to the first content
//!   frame (with a timeout) before anything is committed, then the frames as a stream.

pub mod connect;
pub mod exchange;
pub mod frame;
mod pool;
pub mod prewarm;

pub use connect::{HandshakeFailure, WsEndpoint};
pub use exchange::exchange;
pub use frame::ws_frame_body;
pub use pool::{PoolLimits, PooledSocket, SocketPool};
pub use prewarm::{PrewarmBudget, PrewarmMemory};
