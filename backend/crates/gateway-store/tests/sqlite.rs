mod contract;
mod key_rotation;
mod migrations;
mod schema;
pub mod test_store;
