//! Local stop sequences (`src/chat/stop.rs`).

use gateway_protocol::chat::StopFilter;

fn run(stops: &[&str], pieces: &[&str]) -> (String, bool) {
    let mut filter = StopFilter::new(stops.iter().map(|s| (*s).to_owned()).collect());
    let mut out = String::new();
    for piece in pieces {
        out.push_str(&filter.push(piece));
    }
    out.push_str(&filter.finish());
    (out, filter.stopped())
}

#[test]
fn a_stop_split_across_pieces_cuts_exactly_before_it() {
    assert_eq!(run(&["END"], &["abc E", "N", "D tail"]), ("abc ".to_owned(), true));
}

#[test]
fn a_partial_prefix_that_never_completes_is_released_at_the_end() {
    assert_eq!(run(&["END"], &["abc E", "N"]), ("abc EN".to_owned(), false));
    assert_eq!(run(&["END"], &["EN", "x"]), ("ENx".to_owned(), false));
}

#[test]
fn the_earliest_completed_stop_wins_and_nothing_after_it_is_released() {
    assert_eq!(run(&["xyz", "b"], &["a", "b", "xyz"]), ("a".to_owned(), true));
}

#[test]
fn held_back_text_is_only_what_may_start_a_stop() {
    let mut filter = StopFilter::new(vec!["🙂👋".to_owned()]);
    assert_eq!(filter.push("hi 🙂"), "hi ");
    assert_eq!(filter.push("!"), "🙂!");
}

#[test]
fn no_stops_pass_text_through() {
    assert_eq!(run(&[], &["a", "b"]), ("ab".to_owned(), false));
    assert_eq!(run(&[""], &["a"]), ("a".to_owned(), false));
}

#[test]
fn apply_cuts_a_whole_text() {
    assert_eq!(StopFilter::apply(&["👍🏽".to_owned()], "ok 👍🏽 done"), ("ok ".to_owned(), true));
}
