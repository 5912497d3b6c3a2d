//! The real binary's command line: configuration errors and version. (Serving and draining
//! are tested end to end in `data_plane`.)

mod config_errors;
mod key_options;
