use gateway_admin::backup::RowCounts;
use gateway_admin::backup_daemon::compare_row_counts;

fn counts(pairs: &[(&str, u64)]) -> RowCounts {
    pairs.iter().map(|(t, n)| ((*t).to_owned(), *n)).collect()
}

#[test]
fn equal_counts_pass_and_every_difference_is_named() {
    let dump = counts(&[("a", 1), ("b", 2), ("c", 3)]);
    assert_eq!(compare_row_counts(&dump, &dump.clone()), Ok(()));
    let restored = counts(&[("a", 1), ("b", 5), ("d", 0)]);
    let error = compare_row_counts(&dump, &restored).expect_err("differs");
    assert!(error.contains("b: 2 rows in the dump, 5 restored"), "{error}");
    assert!(error.contains("c: missing after restore"), "{error}");
    assert!(error.contains("d: restored but not in the dump"), "{error}");
}
