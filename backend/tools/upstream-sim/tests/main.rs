//! Contract tests for upstream-sim, over real sockets. Modules mirror `src/`.

mod appcast;
mod codex;
mod config;
mod control;
mod edge;
mod ids;
mod oauth;
mod script;
mod stream;
mod support;
mod template;
mod tls;
mod xai;
