//! Waiting on a condition with a deadline instead of sleeping.

use std::time::Duration;

/// Polls `condition` every 10 ms until it returns `Some`, or fails after `deadline` naming
/// `what` was awaited.
pub async fn wait_until<T, F, Fut>(what: &str, deadline: Duration, mut condition: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let until = tokio::time::Instant::now() + deadline;
    loop {
        if let Some(value) = condition().await {
            return Ok(value);
        }
        if tokio::time::Instant::now() >= until {
            anyhow::bail!("timed out after {deadline:?} waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
