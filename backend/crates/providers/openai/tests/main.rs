//! Integration tests of the OpenAI provider against the simulator, with real PostgreSQL and
//! Redis where a test needs storage or coordination.

mod catalog;
mod classify;
mod codex_turn;
mod cookie_jars;
mod identity;
mod oauth;
mod quota;
mod refresh;
mod support;
mod transport;
mod upstream_url;
mod version_check;
mod websocket;
