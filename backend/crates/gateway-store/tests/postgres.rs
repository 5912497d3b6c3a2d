mod accounts;
mod admin_transaction;
mod contract;
mod credentials;
mod key_rotation;
mod migrations;
mod requests;
pub mod test_store;
