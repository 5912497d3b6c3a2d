mod contract;
mod key_rotation;
mod migrations;
mod requests;
mod schema;
pub mod test_store;
