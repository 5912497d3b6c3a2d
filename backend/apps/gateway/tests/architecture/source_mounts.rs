//! Production sources hold no test mounts: tests live in each package's `tests/`.

use std::path::{Path, PathBuf};

const MOUNTS: &[&str] = &["#[cfg(test)]", "#[path", "include!("];

/// Every `.rs` file under a `src/` directory below `dir`, skipping build output.
fn source_files(dir: &Path, inside_src: bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if matches!(name.as_str(), "target" | "node_modules" | "tests" | ".git") {
                continue;
            }
            source_files(&path, inside_src || name == "src", out);
        } else if inside_src && name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// Lines of `text` that mount tests, as `file:line: text`.
pub fn mounts_in(file: &str, text: &str) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = line.trim_start();
            !code.starts_with("//") && MOUNTS.iter().any(|m| code.contains(m))
        })
        .map(|(i, line)| format!("{file}:{}: {}", i + 1, line.trim()))
        .collect()
}

#[test]
fn no_production_source_mounts_tests() {
    let backend = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    source_files(&backend, false, &mut files);
    assert!(files.len() > 10, "expected to scan the backend sources, found {}", files.len());
    let found: Vec<String> = files
        .iter()
        .flat_map(|f| mounts_in(&f.display().to_string(), &std::fs::read_to_string(f).unwrap_or_default()))
        .collect();
    assert!(found.is_empty(), "test mounts in src/ (move them to the package's tests/):\n{}", found.join("\n"));
}

#[test]
fn the_mount_check_finds_each_kind_of_mount() {
    let text = "fn a() {}\n#[cfg(test)]\nmod tests;\n#[path = \"x.rs\"]\nmod x;\ninclude!(\"y.rs\");\n// #[cfg(test)] in a comment is fine\n";
    assert_eq!(mounts_in("f.rs", text).len(), 3);
}
