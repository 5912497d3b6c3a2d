mod catalog;
mod chat;
mod responses;
