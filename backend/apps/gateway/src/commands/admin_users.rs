//! `switchboard admin reset-password USER`: an operator sets a new password for an admin who
//! cannot log in.

use std::io::BufRead;

use crate::config::Config;
use gateway_admin::audit::AuditActor;
use gateway_admin::password_reset::reset_password;

use crate::bootstrap::{Mode, StartError};

/// Reads the new password from the first line of standard input (`from_stdin`) or generates
/// one and prints it once on standard output; ends every session of that admin.
pub async fn reset(mut config: Config, username: String, from_stdin: bool) -> Result<(), StartError> {
    let chosen = if from_stdin {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).map_err(|e| StartError::Wiring(e.to_string()))?;
        Some(line.trim_end_matches(['\r', '\n']).to_owned())
    } else {
        None
    };
    let storage = super::instance::open(&mut config).await?;
    let actor = AuditActor { user_id: None, name: "cli".to_owned() };
    let store = storage.facts.as_ref();
    let done = reset_password(store, store, storage.coordination.as_ref(), actor, &username, chosen.as_deref()).await;
    storage.close().await;
    let done = done.map_err(|e| StartError::Wiring(format!("cannot reset the password of `{username}`: {e}")))?;
    let sessions = match &done.sessions_ended {
        // The embedded mode keeps sessions in the serving process's memory, out of reach.
        Ok(_) if storage.mode == Mode::Embedded && crate::bootstrap::storage::is_served(&config.server.data_dir) => {
            "sessions in the running server end when it restarts (embedded mode: restart it now)".to_owned()
        }
        Ok(count) => format!("{count} session(s) ended"),
        Err(err) => format!("its sessions could NOT be ended ({err}); they end at their expiry"),
    };
    eprintln!("password of admin `{username}` (id {}) changed; {sessions}", done.user_id.0);
    if let Some(password) = &done.generated {
        eprintln!("the new password (shown once):");
        println!("{password}");
    }
    match done.sessions_ended {
        Ok(_) => Ok(()),
        Err(_) => Err(StartError::Wiring("the password was changed but the sessions were not ended".to_owned())),
    }
}
