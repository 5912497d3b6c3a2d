//! `deploy/Dockerfile`: what SPEC.md §13 and issue 22 promise about the image, asserted on the
//! file itself (no Docker engine here; hadolint lints it in `scripts/check-deploy`).

use std::path::Path;

use super::files::{Dockerfile, docker_ignored, read, repo_root};

#[test]
fn the_image_is_built_in_three_stages_frontend_backend_runtime() {
    let file = Dockerfile::load();
    let names: Vec<&str> = file.stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["frontend", "backend", "runtime"]);

    let frontend = file.stage("frontend");
    assert!(file.expand(&frontend.image).starts_with("node:20-"), "frontend builds on Node 20: {}", frontend.image);
    assert_eq!(frontend.one("WORKDIR").args, "/src/frontend");
    let runs = frontend.runs();
    assert!(runs.contains("npm ci") && runs.contains("npm run build"), "frontend stage runs: {runs}");

    let backend = file.stage("backend");
    assert!(file.expand(&backend.image).starts_with("rust:1.95-"), "backend builds with Rust 1.95: {}", backend.image);
    let embeds_dist =
        backend.all("COPY").iter().any(|c| c.words() == ["--from=frontend", "/src/frontend/dist/", "frontend/dist/"]);
    assert!(embeds_dist, "the backend stage must copy the dashboard build to frontend/dist before cargo runs");
    let runs = backend.runs();
    assert!(runs.contains("cargo build --locked --release -p switchboard"), "backend stage runs: {runs}");
}

#[test]
fn the_runtime_holds_only_the_binary_ca_certificates_and_pg_dump() {
    let file = Dockerfile::load();
    let runtime = file.stage("runtime");
    assert!(file.expand(&runtime.image).starts_with("debian:") && runtime.image.ends_with("-slim"));

    let copies = runtime.all("COPY");
    assert_eq!(copies.len(), 1, "the runtime copies one file: {copies:?}");
    assert_eq!(copies[0].words(), ["--from=backend", "/out/switchboard", "/usr/local/bin/switchboard"]);
    assert!(runtime.all("ADD").is_empty(), "no ADD in the runtime stage");

    let runs = runtime.runs();
    let install = runs
        .split("&&")
        .map(str::trim)
        .find(|step| step.starts_with("apt-get install"))
        .unwrap_or_else(|| panic!("no apt-get install in: {runs}"));
    let packages: Vec<&str> = install.split_whitespace().skip(2).filter(|w| !w.starts_with('-')).collect();
    assert_eq!(packages, ["ca-certificates", "\"postgresql-client-${POSTGRES_MAJOR}\""]);
    assert!(install.contains("--no-install-recommends"));
    assert!(runs.contains("rm -rf /var/lib/apt/lists/*"), "the apt lists are removed");
    assert_eq!(runtime.one("ARG").args, "POSTGRES_MAJOR", "the runtime takes the global POSTGRES_MAJOR");
}

#[test]
fn the_runtime_runs_as_10001_with_the_binary_as_entrypoint_and_healthcheck() {
    let file = Dockerfile::load();
    let runtime = file.stage("runtime");
    assert_eq!(runtime.one("USER").args, "10001:10001");
    let runs = runtime.runs();
    assert!(runs.contains("groupadd --system --gid 10001"), "{runs}");
    assert!(runs.contains("useradd --system --uid 10001 --gid 10001"), "{runs}");

    let entrypoint = runtime.one("ENTRYPOINT").exec_form();
    assert_eq!(entrypoint, ["/usr/local/bin/switchboard"]);
    assert_eq!(runtime.one("CMD").exec_form(), ["serve"]);
    let healthcheck = runtime.one("HEALTHCHECK");
    assert!(healthcheck.args.contains("CMD ["), "HEALTHCHECK in exec form: {}", healthcheck.args);
    assert_eq!(healthcheck.exec_form(), ["/usr/local/bin/switchboard", "healthcheck"]);

    let env = runtime.env();
    let data_dir = env.iter().find(|(k, _)| k == "SWITCHBOARD_SERVER_DATA_DIR").map(|(_, v)| v.as_str());
    assert_eq!(data_dir, Some("/data"));
    assert_eq!(runtime.one("VOLUME").exec_form(), ["/data"], "the data directory is the volume");
    assert!(runs.contains("install -d -o 10001 -g 10001 -m 0700 /data"), "/data belongs to 10001: {runs}");
    let listen = env.iter().find(|(k, _)| k == "SWITCHBOARD_SERVER_LISTEN").map(|(_, v)| v.as_str());
    assert_eq!(listen, Some("0.0.0.0:8080"));
    assert_eq!(runtime.one("EXPOSE").args, "8080");
}

#[test]
fn every_copy_source_is_in_the_build_context() {
    let file = Dockerfile::load();
    let ignore = read(".dockerignore");
    for pattern in ["target", ".git", ".cache", "**/node_modules", "deploy/.env"] {
        assert!(ignore.lines().any(|l| l.trim() == pattern), ".dockerignore must exclude {pattern}");
    }
    for stage in &file.stages {
        for copy in stage.all("COPY") {
            let words = copy.words();
            if words.iter().any(|w| w.starts_with("--from=")) {
                continue;
            }
            let sources = &words[..words.len() - 1];
            for source in sources {
                let relative = source.trim_end_matches('/');
                let exists = repo_root().join(relative).exists();
                assert!(exists, "stage {}: COPY source {source} does not exist", stage.name);
                assert!(
                    !docker_ignored(&ignore, Path::new(relative)),
                    "stage {}: COPY source {source} is excluded by .dockerignore",
                    stage.name
                );
            }
        }
    }
}

#[test]
fn the_dockerignore_model_matches_what_it_should() {
    let ignore = "target\n**/node_modules\n# comment\nfrontend/dist\n";
    assert!(docker_ignored(ignore, Path::new("target")));
    assert!(docker_ignored(ignore, Path::new("frontend/node_modules/x")));
    assert!(docker_ignored(ignore, Path::new("frontend/dist")));
    assert!(!docker_ignored(ignore, Path::new("frontend/src")));
    assert!(!docker_ignored(ignore, Path::new("targets")));
}

#[test]
fn the_supported_postgres_major_is_the_same_in_the_image_and_compose() {
    let file = Dockerfile::load();
    let major = file.global_arg("POSTGRES_MAJOR");
    let compose = super::files::yaml("deploy/compose.yaml");
    let image = compose["services"]["postgres"]["image"].as_str().expect("postgres image");
    assert!(image.starts_with(&format!("postgres:{major}-")), "compose runs {image}, the image ships pg_dump {major}");
}
