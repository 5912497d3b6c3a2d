//! The upstream WebSocket side: the request message (`websocket/frame.rs`) and prewarms
//! answered locally (`websocket/prewarm.rs`).

mod frame;
mod prewarm;
