//! Error pages an edge shows instead of the backend's JSON (`page=html|text|empty` with
//! `status=`). Each page is sent as the component that makes it sends it: Cloudflare's own
//! pages for 502 and 520–524 (`server: cloudflare`, `cf-ray`, no `cf-mitigated`), nginx's page
//! for 413 and any other status, Envoy's plain-text reset message, or no body at all.

use axum::body::Body;
use axum::response::Response;
use http::{HeaderValue, StatusCode, header};
use serde::{Deserialize, Serialize};

use crate::edge::cf_ray;
use crate::edge::challenge::EDGE_CACHE_CONTROL;
use crate::ids::{now_unix, rfc3339};
use crate::request::set_header;

/// The kind of page (`page=` key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Page {
    /// The HTML page an edge shows for the status.
    Html,
    /// A plain-text body (Envoy's reset message unless `message=`).
    Text,
    /// No body at all.
    Empty,
}

impl Page {
    pub fn parse(value: &str) -> Result<Self, String> {
        match value {
            "html" => Ok(Self::Html),
            "text" => Ok(Self::Text),
            "empty" => Ok(Self::Empty),
            other => Err(format!("`page` is html, text or empty, got `{other}`")),
        }
    }
}

/// Envoy's local reply when the upstream connection dies before the response head.
pub const ENVOY_RESET_TEXT: &str =
    "upstream connect error or disconnect/reset before headers. reset reason: connection termination";

/// Marks an answer the compression middleware must leave alone (a body-less page stays
/// body-less whatever the request's `Accept-Encoding`).
#[derive(Debug, Clone, Copy)]
pub struct Uncompressed;

/// The page answer. `message` replaces the text of a `text` page.
pub fn answer(page: Page, status: StatusCode, message: Option<&str>) -> Response {
    let mut response = match page {
        Page::Html => match cloudflare_title(status) {
            Some(title) => cloudflare_page(status, title),
            None => nginx_page(status),
        },
        Page::Text => {
            let mut response = Response::new(Body::from(message.unwrap_or(ENVOY_RESET_TEXT).to_owned()));
            response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
            response.headers_mut().insert(header::SERVER, HeaderValue::from_static("envoy"));
            response
        }
        Page::Empty => {
            let mut response = Response::new(Body::empty());
            response.headers_mut().insert(header::CONTENT_LENGTH, HeaderValue::from_static("0"));
            response.extensions_mut().insert(Uncompressed);
            response
        }
    };
    *response.status_mut() = status;
    response
}

/// The title of Cloudflare's own error page for `status`, if Cloudflare makes one.
fn cloudflare_title(status: StatusCode) -> Option<&'static str> {
    Some(match status.as_u16() {
        502 => "Bad gateway",
        520 => "Web server is returning an unknown error",
        521 => "Web server is down",
        522 => "Connection timed out",
        523 => "Origin is unreachable",
        524 => "A timeout occurred",
        _ => return None,
    })
}

fn cloudflare_page(status: StatusCode, title: &str) -> Response {
    let ray = cf_ray();
    let ray_id = ray.split('-').next().unwrap_or(&ray).to_owned();
    let code = status.as_u16();
    let time = rfc3339(now_unix()).replace('T', " ").trim_end_matches('Z').to_owned();
    let body = format!(
        r#"<!DOCTYPE html>
<!--[if lt IE 7]> <html class="no-js ie6 oldie" lang="en-US"> <![endif]-->
<!--[if gt IE 8]><!--> <html class="no-js" lang="en-US"> <!--<![endif]-->
<head>
<title>chatgpt.com | {code}: {title}</title>
<meta charset="UTF-8" />
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8" />
<meta http-equiv="X-UA-Compatible" content="IE=Edge" />
<meta name="robots" content="noindex, nofollow" />
<meta name="viewport" content="width=device-width,initial-scale=1" />
<link rel="stylesheet" id="cf_styles-css" href="/cdn-cgi/styles/main.css" />
</head>
<body>
<div id="cf-wrapper">
  <div id="cf-error-details" class="p-0">
    <header class="mx-auto pt-10 lg:pt-6 lg:px-8 w-240 lg:w-full mb-8">
      <h1 class="inline-block sm:block sm:mb-2 font-light text-60 lg:text-4xl text-black-dark leading-tight mr-2">
        <span class="inline-block">{title}</span>
        <span class="code-label">Error code {code}</span>
      </h1>
      <div>Visit <a href="https://www.cloudflare.com/5xx-error-landing?utm_source=errorcode_{code}&utm_campaign=chatgpt.com" target="_blank" rel="noopener noreferrer">cloudflare.com</a> for more information.</div>
      <div class="mt-3">{time} UTC</div>
    </header>
    <div class="cf-error-footer cf-wrapper w-240 lg:w-full py-10 sm:py-4 sm:px-8 mx-auto text-center sm:text-left border-solid border-0 border-t border-gray-300">
      <p class="text-13">
        <span class="cf-footer-item sm:block sm:mb-1">Cloudflare Ray ID: <strong class="font-semibold">{ray_id}</strong></span>
        <span class="cf-footer-separator sm:hidden">&bull;</span>
        <span id="cf-footer-item-ip" class="cf-footer-item sm:block sm:mb-1">Performance &amp; security by <a rel="noopener noreferrer" href="https://www.cloudflare.com/5xx-error-landing?utm_source=errorcode_{code}&utm_campaign=chatgpt.com" id="brand_link" target="_blank">Cloudflare</a></span>
      </p>
    </div>
  </div>
</div>
</body>
</html>
"#
    );
    let mut response = Response::new(Body::from(body));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=UTF-8"));
    headers.insert(header::SERVER, HeaderValue::from_static("cloudflare"));
    set_header(headers, "cf-ray", &ray);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(EDGE_CACHE_CONTROL));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("SAMEORIGIN"));
    response
}

/// nginx's built-in error page (`413 Request Entity Too Large`, …), CRLF line ends as nginx.
fn nginx_page(status: StatusCode) -> Response {
    let line = format!("{} {}", status.as_u16(), nginx_reason(status));
    let body = format!(
        "<html>\r\n<head><title>{line}</title></head>\r\n<body>\r\n<center><h1>{line}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
    );
    let mut response = Response::new(Body::from(body));
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html"));
    response.headers_mut().insert(header::SERVER, HeaderValue::from_static("nginx"));
    response
}

/// nginx's reason phrases where they differ from RFC 9110's, else the standard one.
fn nginx_reason(status: StatusCode) -> &'static str {
    match status.as_u16() {
        413 => "Request Entity Too Large",
        414 => "Request-URI Too Large",
        _ => status.canonical_reason().unwrap_or("Error"),
    }
}
