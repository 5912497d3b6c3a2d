//! The `switchboard` binary.

/// mimalloc returns freed memory to the system promptly (glibc's per-thread arenas keep what
/// a burst of streams used) and allocates faster on the hot path.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    switchboard::cli::main()
}
