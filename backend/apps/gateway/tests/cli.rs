//! The real binary's command line: configuration errors, version, key options and the master-key
//! re-seal. (Serving and draining are tested end to end in `data_plane`.)

mod config_errors;
mod healthcheck;
mod key_options;
mod master_key_guard;
mod secrets_reseal;
