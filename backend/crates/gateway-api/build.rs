//! Points the embedded dashboard at `frontend/dist`. The directory is in git (only its
//! `.gitkeep`), so it exists before npm has run: the Rust build never depends on the frontend
//! build, and without `index.html` the binary serves a "dashboard not built" page
//! (`src/spa.rs`). Cargo watches the directory, so a new frontend build is re-embedded.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let dist = manifest.join("../../../frontend/dist");
    println!("cargo:rerun-if-changed={}", dist.display());
    let chosen = if dist.is_dir() {
        dist
    } else {
        // A checkout without the frontend folder: embed nothing.
        let empty = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("dashboard-not-built");
        std::fs::create_dir_all(&empty).expect("OUT_DIR is writable");
        empty
    };
    let chosen = chosen.canonicalize().unwrap_or(chosen);
    println!("cargo:rustc-env=SWITCHBOARD_DASHBOARD_DIR={}", chosen.display());
}
