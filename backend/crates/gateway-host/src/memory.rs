//! How the process takes memory from the kernel: in 4 KiB pages, not transparent huge pages.
//!
//! mimalloc advises its arenas for transparent huge pages (`MADV_HUGEPAGE`). On a kernel whose
//! THP mode is `madvise` (the common default) every 2 MiB region it touches then becomes
//! resident whole: the gateway started at ≈ 150 MB RSS before its first request, and 10,000
//! open streams over TLS + HTTP/2 cost 472 MB instead of 327 MB (`scripts/bench` (d);
//! docs/performance.md, Tuning notes: The gateway turns transparent huge pages off for itself).
//! Like Redis and most databases, the gateway turns THP off for itself.

/// mimalloc's own switch: when it is set, mimalloc decides (`MIMALLOC_ALLOW_THP=1` keeps huge
/// pages, `0` turns them off the same way).
pub const MIMALLOC_ALLOW_THP: &str = "MIMALLOC_ALLOW_THP";

/// What [`use_small_pages`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageSize {
    /// Transparent huge pages are off for this process (and the processes it starts).
    SmallPages,
    /// `MIMALLOC_ALLOW_THP` is set: left to mimalloc.
    LeftToAllocator,
    /// The kernel refused or has no such switch; nothing changed.
    Unchanged,
}

/// Turns transparent huge pages off for the process (Linux `PR_SET_THP_DISABLE`), unless
/// `MIMALLOC_ALLOW_THP` says otherwise. Called first thing in `main`, before the heap grows;
/// it applies to every later page fault, in mappings made before it too.
pub fn use_small_pages() -> PageSize {
    if std::env::var_os(MIMALLOC_ALLOW_THP).is_some() {
        return PageSize::LeftToAllocator;
    }
    disable_thp()
}

#[cfg(target_os = "linux")]
fn disable_thp() -> PageSize {
    match nix::sys::prctl::set_thp_disable(true) {
        Ok(()) => PageSize::SmallPages,
        Err(_) => PageSize::Unchanged,
    }
}

#[cfg(not(target_os = "linux"))]
fn disable_thp() -> PageSize {
    PageSize::Unchanged
}
