//! The `switchboard` binary.

/// mimalloc (its v2 line: docs/performance.md, Tuning notes: mimalloc's v2 line, not v3)
/// returns freed memory to the system promptly (glibc's per-thread arenas keep what a burst of
/// streams used) and allocates faster on the hot path.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // Before the heap grows: mimalloc's arenas in 4 KiB pages (docs/performance.md, Tuning
    // notes: The gateway turns transparent huge pages off for itself).
    gateway_host::memory::use_small_pages();
    switchboard::cli::main()
}
