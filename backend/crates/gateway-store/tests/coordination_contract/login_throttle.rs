//! Contract: password-attempt counters count atomically, take back without going below zero
//! and close their window when it ends.

use std::sync::Arc;
use std::time::Duration;

use anyhow::ensure;
use gateway_admin::ports::LoginThrottle;
use test_support::wait_until;

use super::fixtures::EXPIRY_DEADLINE;

/// Racing attempts each get their own count; taking all back leaves nothing counted.
pub async fn login_attempts_count_atomically_and_uncount_to_zero<C: LoginThrottle + 'static>(
    port: Arc<C>,
) -> anyhow::Result<()> {
    let window = Duration::from_secs(60);
    let mut racers = tokio::task::JoinSet::new();
    for _ in 0..32 {
        let port = port.clone();
        racers.spawn(async move { port.count_attempt("ip:192.0.2.1", window).await });
    }
    let mut counts: Vec<u32> = Vec::new();
    for result in racers.join_all().await {
        let count = result?;
        ensure!(count.resets_in <= window && count.resets_in > Duration::ZERO, "inside the window: {count:?}");
        counts.push(count.failures);
    }
    counts.sort_unstable();
    ensure!(counts == (1..=32).collect::<Vec<_>>(), "every attempt its own count: {counts:?}");
    let other = port.count_attempt("ip:192.0.2.2", window).await?;
    ensure!(other.failures == 1, "subjects are independent: {other:?}");
    for _ in 0..40 {
        port.uncount_attempt("ip:192.0.2.1").await?;
    }
    let again = port.count_attempt("ip:192.0.2.1", window).await?;
    ensure!(again.failures == 1, "never below zero: {again:?}");
    port.uncount_attempt("never-counted").await?;
    ensure!(port.count_attempt("never-counted", window).await?.failures == 1, "uncount creates nothing");
    Ok(())
}

pub async fn login_attempt_window_ends<C: LoginThrottle>(port: Arc<C>) -> anyhow::Result<()> {
    let window = Duration::from_millis(300);
    ensure!(port.count_attempt("untrusted:admin", window).await?.failures == 1, "first attempt");
    ensure!(port.count_attempt("untrusted:admin", window).await?.failures == 2, "second attempt");
    // Once the window ends the next attempt opens a new one.
    wait_until("the window to end", EXPIRY_DEADLINE, || async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let count = port.count_attempt("untrusted:admin", window).await.ok()?;
        let fresh = count.failures == 1;
        let _ = port.uncount_attempt("untrusted:admin").await;
        fresh.then_some(())
    })
    .await?;
    Ok(())
}
