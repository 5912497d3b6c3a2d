mod contract;
mod key_rotation;
mod migrations;
mod schema;
mod test_store;
