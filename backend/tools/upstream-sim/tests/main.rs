//! Contract tests for upstream-sim, over real sockets. Modules mirror `src/`.

mod appcast;
mod codex;
mod config;
mod control;
mod oauth;
mod script;
mod support;
mod template;
mod xai;
