//! A private `redis-server` for tests that must kill it or read its command statistics.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use anyhow::Context;
use test_support::free_port;

/// A `redis-server` child that is killed when dropped.
pub struct PrivateRedis {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
}

impl PrivateRedis {
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Starts a server on a free port with its own scratch directory.
    pub fn start(test: &str) -> anyhow::Result<Self> {
        let port = free_port();
        let dir = std::env::temp_dir().join(format!("switchboard-redis-{test}-{port}-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let mut server = Self { child: None, port, dir };
        server.spawn()?;
        Ok(server)
    }

    /// Starts (again) on the same port.
    pub fn spawn(&mut self) -> anyhow::Result<()> {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .args(["--daemonize", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .context("redis-server must be installed for the outage test")?;
        self.child = Some(child);
        Ok(())
    }

    pub fn kill(&mut self) -> anyhow::Result<()> {
        if let Some(mut child) = self.child.take() {
            child.kill()?;
            child.wait()?;
        }
        Ok(())
    }
}

impl Drop for PrivateRedis {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            drop(child.kill());
            drop(child.wait());
        }
        drop(std::fs::remove_dir_all(&self.dir));
    }
}
