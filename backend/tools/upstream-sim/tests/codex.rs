mod catalog;
mod compact;
mod responses;
mod usage;
mod websocket;
