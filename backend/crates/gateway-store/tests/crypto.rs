mod debug_output;
mod keyring;
