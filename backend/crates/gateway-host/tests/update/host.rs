use std::path::PathBuf;

use gateway_host::update::host::{container_marker, platform};

fn root(label: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("sb-host-root-{label}-{}-{}", std::process::id(), test_support::free_port()));
    std::fs::create_dir_all(dir.join("run")).expect("dir");
    dir
}

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

#[test]
fn a_container_is_recognised_by_its_marker_files_and_variables() {
    let plain = root("plain");
    assert_eq!(container_marker(&plain, &env(&[("HOME", "/root"), ("container", "")])), None);

    let docker = root("docker");
    std::fs::write(docker.join(".dockerenv"), "").expect("marker");
    assert!(container_marker(&docker, &[]).is_some_and(|m| m.contains("Docker")));

    let podman = root("podman");
    std::fs::write(podman.join("run/.containerenv"), "").expect("marker");
    assert!(container_marker(&podman, &[]).is_some_and(|m| m.contains("Podman")));

    assert!(container_marker(&plain, &env(&[("container", "oci")])).is_some_and(|m| m.contains("container=oci")));
    assert!(
        container_marker(&plain, &env(&[("KUBERNETES_SERVICE_HOST", "10.0.0.1")]))
            .is_some_and(|m| m.contains("Kubernetes"))
    );
    for dir in [plain, docker, podman] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[test]
fn the_platform_is_named_like_the_release_archives() {
    assert_eq!(platform(), format!("{}-{}", std::env::consts::OS, std::env::consts::ARCH));
}
