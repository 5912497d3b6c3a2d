//! The bounded expiring map: entries live their TTL (tokio paused time), the oldest write is
//! evicted over capacity, a rewrite renews an entry.

use std::time::Duration;

use gateway_core::expiring_map::ExpiringMap;

#[tokio::test(start_paused = true)]
async fn an_entry_lives_its_ttl_and_no_longer() {
    let map = ExpiringMap::new(8, Duration::from_secs(3600));
    map.insert("a", 1);
    tokio::time::advance(Duration::from_secs(3599)).await;
    assert_eq!(map.get(&"a"), Some(1));
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(map.get(&"a"), None, "expired at the TTL");
    assert!(map.is_empty());
}

#[tokio::test(start_paused = true)]
async fn a_rewrite_renews_and_the_oldest_write_is_evicted_over_capacity() {
    let map = ExpiringMap::new(2, Duration::from_secs(60));
    map.insert("a", 1);
    map.insert("b", 2);
    tokio::time::advance(Duration::from_secs(30)).await;
    map.insert("a", 3);
    tokio::time::advance(Duration::from_secs(40)).await;
    assert_eq!(map.get(&"a"), Some(3), "renewed by the rewrite");
    map.insert("c", 4);
    assert_eq!(map.get(&"b"), None, "b expired");
    map.insert("d", 5);
    assert_eq!(map.len(), 2);
    assert_eq!(map.get(&"a"), None, "the oldest write goes first");
    assert_eq!((map.get(&"c"), map.get(&"d")), (Some(4), Some(5)));
    assert_eq!(map.remove(&"c"), Some(4));
    assert_eq!(map.len(), 1);
}
