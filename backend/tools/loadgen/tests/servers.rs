//! Small servers for the tests, each on its own ephemeral port; dropping one stops accepting.

pub mod http;
pub mod raw;
pub mod ws;

use std::net::SocketAddr;

use tokio::task::JoinHandle;

pub struct Server {
    pub addr: SocketAddr,
    accept: JoinHandle<()>,
}

impl Server {
    pub fn new(addr: SocketAddr, accept: JoinHandle<()>) -> Self {
        Self { addr, accept }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub fn ws_url(&self, path: &str) -> String {
        format!("ws://{}{path}", self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

pub async fn listener() -> tokio::net::TcpListener {
    tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind an ephemeral loopback port")
}
