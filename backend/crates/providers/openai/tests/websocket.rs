//! The upstream WebSocket side: prewarms answered locally (`websocket/prewarm.rs`).

mod prewarm;
