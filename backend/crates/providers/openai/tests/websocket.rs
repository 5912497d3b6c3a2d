//! The upstream WebSocket side: its read limits (`websocket/connect.rs`), the request message
//! (`websocket/frame.rs`) and prewarms answered locally (`websocket/prewarm.rs`).

mod connect;
mod frame;
mod prewarm;
