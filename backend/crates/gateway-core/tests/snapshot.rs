mod account_state;
mod egress_proxy;
mod scope;
