//! The OTLP exporter's HTTP client over the one outbound stack (decision 0341). The SDK's batch
//! processor calls it from its own thread under a plain `block_on`, outside any tokio runtime;
//! the post must still go out (on the runtime the client was built on) and its answer come back.

use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use bytes::Bytes;
use gateway_host::otlp::export_client::ExportClient;
use gateway_transport::{Connector, HttpClient, TlsRoots};
use opentelemetry_http::HttpClient as _;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What the SDK does: poll to completion on this thread, parking between wake-ups.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut context = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let Poll::Ready(output) = future.as_mut().poll(&mut context) {
            return output;
        }
        std::thread::park();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_from_a_thread_outside_the_runtime_goes_out_and_its_answer_comes_back() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let collector = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("accept");
        let mut buffer = vec![0u8; 8192];
        let read = socket.read(&mut buffer).await.expect("read");
        socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").await.expect("write");
        String::from_utf8_lossy(&buffer[..read]).into_owned()
    });
    let connector = Connector::new(TlsRoots::new(None).expect("roots"), Duration::from_secs(5));
    let client =
        ExportClient::new(HttpClient::new(connector), tokio::runtime::Handle::current(), Duration::from_secs(5));
    let request = http::Request::post(format!("http://127.0.0.1:{port}/v1/traces"))
        .header("content-type", "application/x-protobuf")
        .body(Bytes::from_static(b"spans"))
        .expect("request");
    let answer = tokio::task::spawn_blocking(move || {
        std::thread::spawn(move || block_on(client.send_bytes(request))).join().expect("the export thread")
    })
    .await
    .expect("joined")
    .expect("exported");
    assert_eq!(answer.status().as_u16(), 200);
    let sent = collector.await.expect("collector");
    assert!(sent.starts_with("POST /v1/traces HTTP/1.1"), "{sent}");
    assert!(sent.ends_with("spans"), "{sent}");
}
