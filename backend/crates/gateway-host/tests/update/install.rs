use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use gateway_host::update::Installation;

fn dir(label: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("sb-install-{label}-{}-{}", std::process::id(), test_support::free_port()));
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

fn write(path: &std::path::Path, text: &str) {
    std::fs::write(path, text).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("mode");
}

fn read(path: &std::path::Path) -> String {
    std::fs::read_to_string(path).expect("read")
}

#[test]
fn a_swap_keeps_the_previous_binary_and_restoring_puts_it_back() {
    let dir = dir("swap");
    let binary = dir.join("switchboard");
    write(&binary, "old");
    let installation = Installation::new(binary.clone());
    assert!(!installation.has_previous());
    installation.check_writable().expect("a temp dir is writable");

    let staged = installation.staging("update-new");
    write(&staged, "new");
    installation.swap_in(&staged).expect("swap");
    assert_eq!(read(&binary), "new");
    assert_eq!(read(&installation.previous()), "old");
    assert!(!staged.exists(), "the staged file became the binary");

    installation.restore_previous().expect("restore");
    assert_eq!(read(&binary), "old");
    assert!(!installation.has_previous());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_exchange_swaps_the_binary_and_the_previous_one() {
    let dir = dir("exchange");
    let binary = dir.join("switchboard");
    write(&binary, "v2");
    let installation = Installation::new(binary.clone());
    write(&installation.previous(), "v1");
    installation.exchange().expect("exchange");
    assert_eq!((read(&binary), read(&installation.previous())), ("v1".to_owned(), "v2".to_owned()));
    installation.exchange().expect("exchange back");
    assert_eq!((read(&binary), read(&installation.previous())), ("v2".to_owned(), "v1".to_owned()));
    let leftovers: Vec<_> = std::fs::read_dir(&dir).expect("dir").flatten().map(|e| e.file_name()).collect();
    assert_eq!(leftovers.len(), 2, "no staging file is left: {leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_read_only_directory_is_reported() {
    let dir = dir("readonly");
    let binary = dir.join("switchboard");
    write(&binary, "x");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    let installation = Installation::new(binary);
    // root ignores directory modes; the check is about what this process can do.
    let can_write =
        std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0).unwrap_or(false);
    assert_eq!(installation.check_writable().is_ok(), can_write);
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let _ = std::fs::remove_dir_all(&dir);
}
