//! `scripts/check-migrations` refuses edited, removed and unlisted migrations and a manifest that
//! shrank — shown on throwaway git repositories.

use std::path::{Path, PathBuf};
use std::process::Command;

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../scripts/check-migrations")
}

struct Repo(PathBuf);

impl Drop for Repo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Repo {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sb-migrations-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("scripts")).expect("mkdir");
        std::fs::create_dir_all(dir.join("migrations")).expect("mkdir");
        std::fs::copy(script(), dir.join("scripts/check-migrations")).expect("copy script");
        let repo = Self(dir);
        repo.git(&["init", "-q"]);
        repo.git(&["config", "user.email", "t@example.com"]);
        repo.git(&["config", "user.name", "t"]);
        repo
    }

    fn git(&self, args: &[&str]) {
        let status = Command::new("git").args(args).current_dir(&self.0).status().expect("git runs");
        assert!(status.success(), "git {args:?}");
    }

    fn write(&self, path: &str, text: &str) {
        std::fs::write(self.0.join(path), text).expect("write");
    }

    /// Adds a migration and freezes it in the manifest.
    fn freeze(&self, name: &str, sql: &str) {
        self.write(&format!("migrations/{name}"), sql);
        let out =
            Command::new("sha256sum").arg(name).current_dir(self.0.join("migrations")).output().expect("sha256sum");
        let mut manifest = std::fs::read_to_string(self.0.join("migrations/.frozen-sha256")).unwrap_or_default();
        manifest.push_str(&String::from_utf8_lossy(&out.stdout));
        self.write("migrations/.frozen-sha256", &manifest);
    }

    fn commit(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-qm", message]);
    }

    fn check(&self) -> (bool, String) {
        let out = Command::new("bash")
            .arg(Path::new("scripts/check-migrations"))
            .current_dir(&self.0)
            .output()
            .expect("runs");
        (
            out.status.success(),
            format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)),
        )
    }
}

#[test]
fn a_growing_manifest_with_matching_hashes_passes() {
    let repo = Repo::new("ok");
    repo.freeze("0001_initial.sql", "create table a (id int);\n");
    repo.commit("one");
    repo.freeze("0002_more.sql", "create table b (id int);\n");
    repo.commit("two");
    let (ok, out) = repo.check();
    assert!(ok, "{out}");
    assert!(out.contains("2 frozen"), "{out}");
}

#[test]
fn an_edited_migration_fails() {
    let repo = Repo::new("edited");
    repo.freeze("0001_initial.sql", "create table a (id int);\n");
    repo.commit("one");
    repo.write("migrations/0001_initial.sql", "create table a (id bigint);\n");
    let (ok, out) = repo.check();
    assert!(!ok);
    assert!(out.contains("0001_initial.sql was edited"), "{out}");
}

#[test]
fn an_unlisted_migration_fails() {
    let repo = Repo::new("unlisted");
    repo.write("migrations/.frozen-sha256", "");
    repo.write("migrations/0001_initial.sql", "create table a (id int);\n");
    let (ok, out) = repo.check();
    assert!(!ok);
    assert!(out.contains("0001_initial.sql is not listed"), "{out}");
}

#[test]
fn a_removed_migration_fails() {
    let repo = Repo::new("removed");
    repo.freeze("0001_initial.sql", "create table a (id int);\n");
    repo.commit("one");
    std::fs::remove_file(repo.0.join("migrations/0001_initial.sql")).expect("rm");
    let (ok, out) = repo.check();
    assert!(!ok);
    assert!(out.contains("listed but missing"), "{out}");
}

#[test]
fn a_manifest_that_shrank_in_history_fails() {
    let repo = Repo::new("shrank");
    repo.freeze("0001_initial.sql", "create table a (id int);\n");
    repo.commit("one");
    // Re-freeze an edited file with its new hash: the file check passes, the history check must not.
    repo.write("migrations/.frozen-sha256", "");
    repo.freeze("0001_initial.sql", "create table a (id bigint);\n");
    repo.commit("rewrite history");
    let (ok, out) = repo.check();
    assert!(!ok);
    assert!(out.contains("frozen entries were removed or changed"), "{out}");
}

/// The SQLite directory has its own manifest under the same rules, and cannot be dropped.
#[test]
fn the_sqlite_directory_is_checked_and_cannot_be_removed() {
    let repo = Repo::new("sqlite");
    repo.freeze("0001_initial.sql", "create table a (id int);\n");
    std::fs::create_dir_all(repo.0.join("migrations/sqlite")).expect("mkdir");
    repo.write("migrations/sqlite/0001_initial.sql", "create table a (id integer);\n");
    let (ok, out) = repo.check();
    assert!(!ok, "an unfrozen SQLite directory fails: {out}");
    assert!(out.contains("migrations/sqlite/.frozen-sha256 is missing"), "{out}");
    let out = Command::new("sha256sum")
        .arg("0001_initial.sql")
        .current_dir(repo.0.join("migrations/sqlite"))
        .output()
        .expect("sha256sum");
    repo.write("migrations/sqlite/.frozen-sha256", &String::from_utf8_lossy(&out.stdout));
    repo.commit("both");
    let (ok, out) = repo.check();
    assert!(ok, "{out}");
    assert!(out.contains("migrations/sqlite: 1 frozen"), "{out}");
    repo.write("migrations/sqlite/0001_initial.sql", "create table a (id text);\n");
    let (ok, out) = repo.check();
    assert!(!ok);
    assert!(out.contains("migrations/sqlite/0001_initial.sql was edited"), "{out}");
    std::fs::remove_dir_all(repo.0.join("migrations/sqlite")).expect("rm");
    let (ok, out) = repo.check();
    assert!(!ok, "a removed SQLite directory fails: {out}");
}
