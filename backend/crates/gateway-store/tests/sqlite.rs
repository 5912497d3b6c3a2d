mod contract;
mod migrations;
mod schema;
mod test_store;
