use gateway_core::catalog::{
    CatalogBook, CatalogEntry, CatalogEntryError, MAX_CATALOG_ENTRY_BYTES, SyncedEntry, pick_entry,
};
use gateway_core::provider::ModelInfo;
use time::OffsetDateTime;

fn model(id: &str) -> ModelInfo {
    ModelInfo { id: id.to_owned(), owned_by: "openai" }
}

fn entry(json: &str) -> CatalogEntry {
    CatalogEntry::parse(json).expect("a valid entry")
}

#[test]
fn every_installed_catalog_is_a_new_generation() {
    let book = CatalogBook::new(vec![model("gpt-a")]);
    assert_eq!(book.generation(), 0);
    book.install("pro", None, vec![model("gpt-b")], Vec::new());
    assert_eq!(book.generation(), 1);
    assert!(book.supports("pro", "gpt-b"));
    book.install("plus", Some("e1".to_owned()), Vec::new(), Vec::new());
    assert_eq!(book.generation(), 2);
}

#[test]
fn an_entry_is_kept_as_sent_with_its_slug_and_priority() {
    let text = r#"{"slug":"gpt-b","priority":3,"base_instructions":"Be brief.","nested":{"x":[1,2]}}"#;
    let kept = entry(text);
    assert_eq!((kept.slug(), kept.priority(), kept.json()), ("gpt-b", Some(3), text));
    assert!(!format!("{kept:?}").contains("Be brief"), "Debug shows the size, not the text: {kept:?}");
    assert_eq!(CatalogEntry::parse(r#"{"priority":1}"#), Err(CatalogEntryError::NoSlug));
    assert_eq!(CatalogEntry::parse(r#"{"slug":""}"#), Err(CatalogEntryError::NoSlug));
    assert_eq!(CatalogEntry::parse(r#"["gpt-b"]"#), Err(CatalogEntryError::NotAnObject));
    assert_eq!(CatalogEntry::parse(r#"{"slug":"gpt-b""#), Err(CatalogEntryError::NotAnObject));
    let padding = "x".repeat(MAX_CATALOG_ENTRY_BYTES);
    let huge = format!(r#"{{"slug":"gpt-b","base_instructions":"{padding}"}}"#);
    assert_eq!(CatalogEntry::parse(&huge), Err(CatalogEntryError::TooLarge(huge.len())));
}

#[test]
fn the_book_keeps_each_plans_entries_of_its_listed_models() {
    let book = CatalogBook::new(vec![model("gpt-a")]);
    assert_eq!(book.entry("pro", "gpt-a"), None, "the fallback has no entries");
    book.install(
        "pro",
        None,
        vec![model("gpt-b"), model("gpt-c")],
        vec![
            entry(r#"{"slug":"gpt-b","base_instructions":"first"}"#),
            entry(r#"{"slug":"gpt-b","base_instructions":"second"}"#),
            entry(r#"{"slug":"gpt-unlisted"}"#),
        ],
    );
    let synced = book.entry("pro", "gpt-b").expect("gpt-b's entry");
    assert!(synced.entry.json().contains("first"), "the first entry of a slug wins");
    assert!(synced.fetched_at <= OffsetDateTime::now_utc());
    assert_eq!(book.entry("pro", "gpt-c"), None, "listed without an entry");
    assert_eq!(book.entry("pro", "gpt-unlisted"), None, "an entry of a model the list lacks is dropped");
    assert_eq!(book.entry("plus", "gpt-b"), None, "other plans have their own catalogs");

    book.install("pro", None, vec![model("gpt-b")], Vec::new());
    assert_eq!(book.entry("pro", "gpt-b"), None, "a new install replaces the plan's entries");
}

#[test]
fn the_entry_of_the_newest_installed_catalog_is_picked_and_ties_go_to_the_smaller_plan() {
    let at = |seconds: i64| OffsetDateTime::from_unix_timestamp(1_800_000_000 + seconds).expect("time");
    let synced = |seconds: i64, text: &str| SyncedEntry { fetched_at: at(seconds), entry: entry(text) };
    let old = r#"{"slug":"gpt-b","base_instructions":"old"}"#;
    let new = r#"{"slug":"gpt-b","base_instructions":"new"}"#;
    let picked = pick_entry([("plus", synced(5, new)), ("pro", synced(1, old))]).expect("one");
    assert_eq!(picked.json(), new);
    let picked = pick_entry([("pro", synced(1, old)), ("plus", synced(5, new))]).expect("one");
    assert_eq!(picked.json(), new, "whatever the order of the candidates");
    for candidates in
        [[("team", synced(3, old)), ("plus", synced(3, new))], [("plus", synced(3, new)), ("team", synced(3, old))]]
    {
        assert_eq!(pick_entry(candidates).expect("one").json(), new, "same instant: `plus` < `team`");
    }
    assert_eq!(pick_entry(Vec::<(&str, SyncedEntry)>::new()), None);
}
