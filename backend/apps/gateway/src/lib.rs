//! The composition root: parses the command line, loads configuration and wires the bundles
//! (store, core, admin, providers, api) into the host. It names concrete implementations and
//! holds no logic of its own.

pub mod bootstrap;
pub mod cli;
pub mod commands;
pub mod config;
