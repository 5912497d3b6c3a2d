//! One HTTP/1.1 keep-alive connection whose protocol state machine is driven inside the task
//! that uses it (no second task per connection): every await on the request or its body also
//! polls the connection.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::{Pin, pin};

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::{Frame, Incoming};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

pub type RequestBody = Full<Bytes>;
type Driver = Pin<Box<http1::Connection<TokioIo<TcpStream>, RequestBody>>>;

pub struct HttpConnection {
    sender: http1::SendRequest<RequestBody>,
    /// `None` once the connection has finished (closed by either side or failed).
    driver: Option<Driver>,
}

impl HttpConnection {
    pub async fn open(addr: SocketAddr) -> std::io::Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (sender, driver) =
            http1::Builder::new().handshake(TokioIo::new(stream)).await.map_err(std::io::Error::other)?;
        Ok(Self { sender, driver: Some(Box::pin(driver)) })
    }

    /// Waits until the connection can take a request; false if it has closed meanwhile.
    pub async fn ready(&mut self) -> bool {
        if self.driver.is_none() || self.sender.is_closed() {
            return false;
        }
        drive(&mut self.driver, self.sender.ready()).await.is_ok() && self.driver.is_some()
    }

    pub async fn send(&mut self, request: Request<RequestBody>) -> Result<Response<Incoming>, hyper::Error> {
        let response = self.sender.send_request(request);
        drive(&mut self.driver, response).await
    }

    pub async fn frame(&mut self, body: &mut Incoming) -> Option<Result<Frame<Bytes>, hyper::Error>> {
        drive(&mut self.driver, body.frame()).await
    }
}

/// Awaits `work` while polling the connection. Once the connection finishes, buffered response
/// data still reaches `work` (hyper hands the last bytes or the error to the body first).
async fn drive<F: Future>(driver: &mut Option<Driver>, work: F) -> F::Output {
    let mut work = pin!(work);
    if let Some(connection) = driver.as_mut() {
        let finished = tokio::select! {
            biased;
            // The connection first: it moves bytes from the socket into the body, so `work`
            // usually finds them on the same poll.
            _ = connection.as_mut() => None,
            out = work.as_mut() => Some(out),
        };
        match finished {
            Some(out) => return out,
            None => *driver = None,
        }
    }
    work.await
}
