use gateway_core::trace_context::trace_id;

#[test]
fn a_well_formed_traceparent_gives_its_trace_id() {
    let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    assert_eq!(trace_id(header), Some("4bf92f3577b34da6a3ce929d0e0e4736"));
    // A later version may add fields.
    assert_eq!(
        trace_id("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x"),
        Some("4bf92f3577b34da6a3ce929d0e0e4736")
    );
}

#[test]
fn malformed_traceparents_are_ignored() {
    for header in [
        "",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
    ] {
        assert_eq!(trace_id(header), None, "{header}");
    }
}
