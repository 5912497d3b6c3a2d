//! Integration tests of the `switchboard` package: architecture rules, the command line and the
//! real binary's lifecycle.

mod architecture;
mod cli;
mod migration_manifest;
