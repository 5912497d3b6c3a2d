//! Cloudflare's managed challenge, as the edge in front of chatgpt.com and auth.openai.com sends
//! it to a client it does not trust: a "Just a moment..." interstitial page with
//! `cf-mitigated: challenge` and a fresh `__cf_bm` bot-management cookie (host-only, 30 minutes).
//! Cloudflare answers before the origin, so no backend header (rate limits, request id) is on it.

use axum::body::Body;
use axum::response::Response;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::{HeaderMap, HeaderValue, StatusCode, header};

use crate::edge::cf_ray;
use crate::ids::{filler_bytes, http_date, now_unix};
use crate::request::set_header;

/// How long a `__cf_bm` cookie lives (Cloudflare: 30 minutes).
pub const CF_BM_LIFETIME_SECS: u64 = 30 * 60;

/// The statuses a challenge is answered with: 403 (Cloudflare's usual), 429 and 503.
pub const STATUSES: [u16; 3] = [403, 429, 503];

/// The value of a `challenge=` key: a status of [`STATUSES`], or a flag (`1`, `true`, `yes`,
/// `on`) for 403.
pub fn challenge_status(value: &str) -> Result<u16, String> {
    match value {
        "1" | "true" | "yes" | "on" => Ok(403),
        other => match other.parse::<u16>() {
            Ok(status) if STATUSES.contains(&status) => Ok(status),
            _ => Err(format!("`challenge` is 403, 429 or 503 (or 1 for 403), got `{value}`")),
        },
    }
}

/// The challenge answer. `tls`: the request came over TLS, so the cookie is `Secure`.
pub fn answer(status: StatusCode, tls: bool) -> Response {
    let ray = cf_ray();
    let mut headers = HeaderMap::new();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=UTF-8"));
    headers.insert("cf-mitigated", HeaderValue::from_static("challenge"));
    headers.insert(header::SERVER, HeaderValue::from_static("cloudflare"));
    set_header(&mut headers, "cf-ray", &ray);
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(EDGE_CACHE_CONTROL));
    headers.insert(header::EXPIRES, HeaderValue::from_static("Thu, 01 Jan 1970 00:00:01 GMT"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("SAMEORIGIN"));
    if let Ok(cookie) = HeaderValue::from_str(&cf_bm_cookie(tls)) {
        headers.append(header::SET_COOKIE, cookie);
    }
    let mut response = Response::new(Body::from(page(&ray)));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// `Cache-Control` of Cloudflare's own pages (challenge and error pages).
pub const EDGE_CACHE_CONTROL: &str =
    "private, max-age=0, no-store, no-cache, must-revalidate, post-check=0, pre-check=0";

/// A fresh `__cf_bm` cookie: host-only (no `Domain`), `path=/`, expiring in 30 minutes.
fn cf_bm_cookie(tls: bool) -> String {
    let now = now_unix();
    let token = format!(
        "{}-{now}-1.0.1.1-{}",
        URL_SAFE_NO_PAD.encode(filler_bytes(32)),
        URL_SAFE_NO_PAD.encode(filler_bytes(64))
    );
    let expires = http_date(now + CF_BM_LIFETIME_SECS);
    let secure = if tls { "; Secure" } else { "" };
    format!("__cf_bm={token}; path=/; expires={expires}; HttpOnly; SameSite=None{secure}")
}

/// The interstitial page. `ray` is the answer's `cf-ray` (the page names it, as the real one).
fn page(ray: &str) -> String {
    let ray_id = ray.split('-').next().unwrap_or(ray);
    let now = now_unix();
    let token = URL_SAFE_NO_PAD.encode(filler_bytes(24));
    format!(
        r#"<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta http-equiv="X-UA-Compatible" content="IE=Edge"><meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1"><style>*{{box-sizing:border-box;margin:0;padding:0}}html{{line-height:1.15;-webkit-text-size-adjust:100%;color:#313131;font-family:system-ui,-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}}body{{display:flex;flex-direction:column;height:100vh;min-height:100vh}}.main-content{{margin:8rem auto;max-width:60rem;padding-left:1.5rem}}.h2{{font-size:1.5rem;font-weight:500;line-height:2.25rem}}</style><meta http-equiv="refresh" content="360"></head><body><div class="main-wrapper" role="main"><div class="main-content"><h1 class="zone-name-title h1">chatgpt.com</h1><p class="h2 spacer-bottom">Verifying you are human. This may take a few seconds.</p><noscript><div class="h2"><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></noscript></div></div><script>(function(){{window._cf_chl_opt={{cvId: '3',cZone: "chatgpt.com",cType: 'managed',cRay: '{ray_id}',cH: '{token}',cUPMDTk: "\/?__cf_chl_tk={token}-{now}-1.0.1.1",cFPWv: 'g',cITimeS: '{now}',cTTimeMs: '1000',cMTimeMs: '360000',cTplC: 0,cTplV: 5,cTplB: 'cf',fa: "\/?__cf_chl_f_tk={token}-{now}-1.0.1.1",md: "{token}",mdrd: "{token}"}};var cpo = document.createElement('script');cpo.src = '/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray={ray_id}';window._cf_chl_opt.cOgUHash = location.hash === '' && location.href.indexOf('#') !== -1 ? '#' : location.hash;window._cf_chl_opt.cOgUQuery = location.search === '' && location.href.slice(0, location.href.length - window._cf_chl_opt.cOgUHash.length).indexOf('?') !== -1 ? '?' : location.search;document.getElementsByTagName('head')[0].appendChild(cpo);}}());</script><div class="footer" role="contentinfo"><div class="footer-inner"><div class="text-center" id="footer-text">Ray ID: <code>{ray_id}</code></div><div class="text-center">Performance &amp; security by <a rel="noopener noreferrer" href="https://www.cloudflare.com?utm_source=challenge&amp;utm_campaign=m" target="_blank">Cloudflare</a></div></div></div></body></html>"#
    )
}
