//! Chat Completions over Responses (`chat.rs`), mirroring `src/chat/`.

mod chunks;
mod completion;
mod delta_text;
mod request;
mod stop;
