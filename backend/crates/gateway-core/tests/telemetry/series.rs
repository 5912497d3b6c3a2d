use gateway_core::telemetry::series::{NAME_NONE, NAME_OTHER, NameTable, SeriesTable};

#[test]
fn a_key_registers_once_and_is_found_again() {
    let table: SeriesTable<(&str, u16), u32> = SeriesTable::new(8, 0);
    let mut registered = 0;
    for _ in 0..3 {
        let handle = table.get(("a", 1), |_| {
            registered += 1;
            7
        });
        assert_eq!(*handle, 7);
    }
    assert_eq!(registered, 1);
    assert_eq!(*table.get(("b", 1), |_| 9), 9);
    assert_eq!(table.len(), 2);
}

#[test]
fn a_full_table_answers_with_the_overflow_handle() {
    let table: SeriesTable<u32, u32> = SeriesTable::new(4, 99);
    for key in 0..4 {
        assert_eq!(*table.get(key, |k| k), key);
    }
    assert_eq!(*table.get(1000, |k| k), 99, "no slot left");
    assert_eq!(table.len(), 4);
}

#[test]
fn names_intern_to_stable_indexes_up_to_capacity() {
    let names = NameTable::new(2, true);
    let a = names.index("gpt-5");
    assert_eq!(names.index("gpt-5"), a);
    let b = names.index("gpt-5-mini");
    assert_ne!(a, b);
    assert_eq!(names.name(a), "gpt-5");
    assert_eq!(names.name(b), "gpt-5-mini");
    assert_eq!(names.index("a-third-model"), NAME_OTHER);
    assert_eq!(names.name(NAME_OTHER), "other");
    assert_eq!(names.name(NAME_NONE), "none");
}

#[test]
fn a_switched_off_model_label_is_always_other() {
    let names = NameTable::new(8, false);
    assert_eq!(names.index("gpt-5"), NAME_OTHER);
}
