//! The embedded Lua scripts and their invocation: EVALSHA first, EVAL when the server does not
//! know the script (restarted or flushed server; EVAL also caches it again).

use ::redis::{ErrorKind, ServerErrorKind, ToRedisArgs, Value};
use gateway_core::coordination::CoordinationError;

use super::connection::SharedConnection;

/// Helpers every script starts with (`now_ms`, `expire_at_least`, `apply_feedback`).
macro_rules! script {
    ($name:literal) => {
        LuaScript::new(
            $name,
            concat!(include_str!("scripts/prelude.lua"), include_str!(concat!("scripts/", $name, ".lua"))),
        )
    };
}

pub(crate) struct LuaScript {
    pub(crate) name: &'static str,
    source: &'static str,
    hash: String,
}

impl LuaScript {
    fn new(name: &'static str, source: &'static str) -> Self {
        Self { name, source, hash: ::redis::Script::new(source).get_hash().to_owned() }
    }

    pub(crate) fn call(&self) -> ScriptCall<'_> {
        ScriptCall { script: self, keys: Vec::new(), args: Vec::new() }
    }
}

pub(crate) struct Scripts {
    pub(crate) acquire: LuaScript,
    pub(crate) heartbeat: LuaScript,
    pub(crate) release_boot: LuaScript,
    pub(crate) replica_claim: LuaScript,
    pub(crate) boots_alive: LuaScript,
    pub(crate) release: LuaScript,
    pub(crate) slot_status: LuaScript,
    pub(crate) set_cooldown: LuaScript,
    pub(crate) read_cooldowns: LuaScript,
    pub(crate) exclude_model: LuaScript,
    pub(crate) read_exclusions: LuaScript,
    pub(crate) circuit_record: LuaScript,
    pub(crate) circuit_read: LuaScript,
    pub(crate) affinity_bind: LuaScript,
    pub(crate) affinity_rebind: LuaScript,
    pub(crate) pin_write: LuaScript,
    pub(crate) pin_read: LuaScript,
    pub(crate) pin_delete: LuaScript,
    pub(crate) flow_create: LuaScript,
    pub(crate) flow_claim: LuaScript,
    pub(crate) flow_release: LuaScript,
    pub(crate) flow_finish: LuaScript,
    pub(crate) lease_acquire: LuaScript,
    pub(crate) lease_renew: LuaScript,
    pub(crate) lease_release: LuaScript,
    pub(crate) period_claim: LuaScript,
    pub(crate) login_count: LuaScript,
    pub(crate) login_uncount: LuaScript,
}

impl Scripts {
    pub(crate) fn load() -> Self {
        Self {
            acquire: script!("acquire"),
            heartbeat: script!("heartbeat"),
            release_boot: script!("release_boot"),
            replica_claim: script!("replica_claim"),
            boots_alive: script!("boots_alive"),
            release: script!("release"),
            slot_status: script!("slot_status"),
            set_cooldown: script!("set_cooldown"),
            read_cooldowns: script!("read_cooldowns"),
            exclude_model: script!("exclude_model"),
            read_exclusions: script!("read_exclusions"),
            circuit_record: script!("circuit_record"),
            circuit_read: script!("circuit_read"),
            affinity_bind: script!("affinity_bind"),
            affinity_rebind: script!("affinity_rebind"),
            pin_write: script!("pin_write"),
            pin_read: script!("pin_read"),
            pin_delete: script!("pin_delete"),
            flow_create: script!("flow_create"),
            flow_claim: script!("flow_claim"),
            flow_release: script!("flow_release"),
            flow_finish: script!("flow_finish"),
            lease_acquire: script!("lease_acquire"),
            lease_renew: script!("lease_renew"),
            lease_release: script!("lease_release"),
            period_claim: script!("period_claim"),
            login_count: script!("login_count"),
            login_uncount: script!("login_uncount"),
        }
    }
}

/// One invocation: KEYS and ARGV in order.
pub(crate) struct ScriptCall<'a> {
    script: &'a LuaScript,
    keys: Vec<String>,
    args: Vec<Vec<u8>>,
}

impl ScriptCall<'_> {
    pub(crate) fn key(mut self, key: String) -> Self {
        self.keys.push(key);
        self
    }

    pub(crate) fn arg<T: ToRedisArgs>(mut self, arg: T) -> Self {
        self.args.extend(arg.to_redis_args());
        self
    }

    pub(crate) async fn invoke(&self, connection: &SharedConnection) -> Result<Value, CoordinationError> {
        match connection.query_raw::<Value>(&self.command("EVALSHA", &self.script.hash)).await {
            Ok(value) => Ok(value),
            Err(failure)
                if failure
                    .server
                    .as_ref()
                    .is_some_and(|error| error.kind() == ErrorKind::Server(ServerErrorKind::NoScript)) =>
            {
                tracing::debug!(script = self.script.name, "NOSCRIPT; sending the script body");
                connection.query::<Value>(&self.command("EVAL", self.script.source)).await
            }
            Err(failure) => Err(failure.error),
        }
    }

    fn command(&self, verb: &str, script: &str) -> ::redis::Cmd {
        let mut cmd = ::redis::cmd(verb);
        cmd.arg(script).arg(self.keys.len());
        for key in &self.keys {
            cmd.arg(key);
        }
        for arg in &self.args {
            cmd.arg(arg.as_slice());
        }
        cmd
    }
}
