mod account;
mod client_key;
mod send_state;
