//! Delivering a prepared template as an SSE body, with the directive's pacing and faults.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use http::{HeaderMap, HeaderValue, StatusCode, header};

use crate::conn::ConnControl;
use crate::script::Directive;
use crate::template::{Ids, Template};

/// Pacing and faults of one delivery.
#[derive(Debug, Clone, Copy, Default)]
pub struct Delivery {
    pub first_byte_ms: u64,
    pub delay_ms: u64,
    pub cut_after: Option<u32>,
    pub drop_after: Option<u32>,
    pub reset_after: Option<u32>,
    pub stall_after: Option<u32>,
}

impl Delivery {
    pub fn from_directive(directive: &Directive) -> Self {
        Self {
            first_byte_ms: directive.first_byte_ms.unwrap_or(0),
            delay_ms: directive.delay_ms.unwrap_or(0),
            cut_after: directive.cut_after,
            drop_after: directive.drop_after,
            reset_after: directive.reset_after,
            stall_after: directive.stall_after,
        }
    }

    /// No pacing and no faults: the whole stream can go out as one buffer.
    pub fn is_fast(&self) -> bool {
        self.first_byte_ms == 0
            && self.delay_ms == 0
            && self.cut_after.is_none()
            && self.drop_after.is_none()
            && self.reset_after.is_none()
            && self.stall_after.is_none()
    }

    /// What happens before event `index` is sent.
    pub fn fault_at(&self, index: u32) -> Option<Fault> {
        if self.reset_after == Some(index) {
            Some(Fault::Reset)
        } else if self.drop_after == Some(index) {
            Some(Fault::Drop)
        } else if self.cut_after == Some(index) {
            Some(Fault::Cut)
        } else if self.stall_after == Some(index) {
            Some(Fault::Stall)
        } else {
            None
        }
    }

    /// Pause before event `index`.
    pub fn pause_before(&self, index: u32) -> Duration {
        Duration::from_millis(if index == 0 { self.first_byte_ms } else { self.delay_ms })
    }
}

/// A scripted way for a stream to end early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// End the body cleanly.
    Cut,
    /// Close the connection without ending the body.
    Drop,
    /// Reset the TCP connection.
    Reset,
    /// Send nothing more, ever, and keep the connection open (until the client goes away).
    Stall,
}

/// The SSE body for `template`.
pub fn sse_body(template: Arc<Template>, ids: Ids, delivery: Delivery, control: Option<Arc<ConnControl>>) -> Body {
    if delivery.is_fast() {
        let bytes = template.sse_whole.render(&ids);
        return Body::from_stream(futures_util::stream::once(async move { Ok::<Bytes, io::Error>(bytes) }));
    }
    let stream = futures_util::stream::unfold(0u32, move |index| {
        let template = template.clone();
        let control = control.clone();
        async move {
            let event = template.events.get(index as usize)?;
            let fault = delivery.fault_at(index);
            if matches!(fault, Some(Fault::Drop | Fault::Reset)) && index > 0 {
                // Let the events already produced leave the server before the connection dies:
                // hyper flushes while the body is pending, and drops unflushed bytes on error.
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            match fault {
                Some(Fault::Cut) => return None,
                Some(Fault::Drop) => {
                    return Some((Err(io::Error::other("scripted connection drop")), u32::MAX));
                }
                Some(Fault::Reset) => {
                    if let Some(control) = &control {
                        control.request_reset();
                    }
                    return Some((Err(io::Error::other("scripted connection reset")), u32::MAX));
                }
                // The body is dropped when the client goes away (or the simulator shuts down).
                Some(Fault::Stall) => std::future::pending::<()>().await,
                None => {}
            }
            let pause = delivery.pause_before(index);
            if !pause.is_zero() {
                tokio::time::sleep(pause).await;
            }
            Some((Ok(event.sse.render(&ids)), index + 1))
        }
    });
    Body::from_stream(stream)
}

/// A `200 text/event-stream` response.
pub fn sse_response(body: Body, mut headers: HeaderMap) -> Response {
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    let mut response = Response::new(body);
    *response.status_mut() = StatusCode::OK;
    response.headers_mut().extend(headers);
    response
}
