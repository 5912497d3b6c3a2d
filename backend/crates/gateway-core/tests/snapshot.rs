mod account_state;
mod scope;
