mod account;
mod attempt;
mod client_key;
mod send_state;
