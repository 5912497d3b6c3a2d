//! The process turns transparent huge pages off for itself unless mimalloc's switch is set.

use gateway_host::memory::{self, PageSize};

fn thp_enabled() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|line| line.strip_prefix("THP_enabled:")).map(|v| v.trim().to_owned())
}

#[test]
fn use_small_pages_turns_transparent_huge_pages_off_for_the_process() {
    if std::env::var_os(memory::MIMALLOC_ALLOW_THP).is_some() {
        assert_eq!(memory::use_small_pages(), PageSize::LeftToAllocator);
        return;
    }
    assert_eq!(memory::use_small_pages(), PageSize::SmallPages);
    assert_eq!(thp_enabled().as_deref(), Some("0"), "/proc/self/status after use_small_pages");
}
