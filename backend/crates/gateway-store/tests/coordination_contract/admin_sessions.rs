//! Contract: admin sessions keep what the login stored (the credential stamp included) through
//! touches and listings, and revoking a user's sessions leaves other users' alone.

use std::sync::Arc;
use std::time::Duration;

use anyhow::ensure;
use gateway_admin::admin_user::AdminUserId;
use gateway_admin::auth::{random_token, session_token_hash};
use gateway_admin::ports::{AdminSession, AdminSessions, SessionTokenHash};
use time::OffsetDateTime;

fn session(user: i64, token: &SessionTokenHash, stamp: &str, now: OffsetDateTime) -> AdminSession {
    AdminSession {
        id: token.public_id(),
        user_id: AdminUserId(user),
        username: format!("user-{user}"),
        csrf_token: random_token(),
        created_at: now,
        last_seen_at: now,
        idle_expires_at: now + time::Duration::minutes(30),
        absolute_expires_at: now + time::Duration::hours(12),
        ip: Some("192.0.2.1".to_owned()),
        user_agent: None,
        credential_stamp: stamp.to_owned(),
    }
}

pub async fn admin_sessions_keep_their_stamp_and_end_per_user<C: AdminSessions>(port: Arc<C>) -> anyhow::Result<()> {
    let now = OffsetDateTime::now_utc();
    let tokens: Vec<SessionTokenHash> = (0..3).map(|_| session_token_hash(&random_token())).collect();
    port.create_session(&tokens[0], &session(1, &tokens[0], "stamp-a", now)).await?;
    port.create_session(&tokens[1], &session(1, &tokens[1], "stamp-b", now)).await?;
    port.create_session(&tokens[2], &session(2, &tokens[2], "stamp-c", now)).await?;
    let touched = port.touch_session(&tokens[0], now, Duration::from_secs(60)).await?;
    ensure!(touched.as_ref().map(|s| s.credential_stamp.as_str()) == Some("stamp-a"), "the stamp survives a touch");
    let mut stamps: Vec<String> =
        port.list_user_sessions(AdminUserId(1), now).await?.into_iter().map(|s| s.credential_stamp).collect();
    stamps.sort();
    ensure!(stamps == ["stamp-a", "stamp-b"], "listed with their stamps: {stamps:?}");
    ensure!(port.revoke_user_sessions(AdminUserId(1), None).await? == 2, "both of user 1");
    ensure!(port.touch_session(&tokens[1], now, Duration::from_secs(60)).await?.is_none(), "ended");
    ensure!(port.touch_session(&tokens[2], now, Duration::from_secs(60)).await?.is_some(), "user 2 keeps theirs");
    Ok(())
}
