use gateway_core::catalog::CatalogBook;
use gateway_core::provider::ModelInfo;

#[test]
fn every_installed_catalog_is_a_new_generation() {
    let book = CatalogBook::new(vec![ModelInfo { id: "gpt-a".to_owned(), owned_by: "openai" }]);
    assert_eq!(book.generation(), 0);
    book.install("pro", None, vec![ModelInfo { id: "gpt-b".to_owned(), owned_by: "openai" }]);
    assert_eq!(book.generation(), 1);
    assert!(book.supports("pro", "gpt-b"));
    book.install("plus", Some("e1".to_owned()), Vec::new());
    assert_eq!(book.generation(), 2);
}
