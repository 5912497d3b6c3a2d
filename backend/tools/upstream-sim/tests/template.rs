use upstream_sim::Directive;
use upstream_sim::template::{ID_SENTINEL, Ids};
use upstream_sim::turn::{Flavor, TurnSpec};

#[test]
fn rendering_patches_every_id_and_keeps_other_bytes() {
    let directive = Directive::parse("events=17 bytes=24 reasoning=1").expect("parses");
    let spec = TurnSpec::resolve(Flavor::Codex, "gpt-5.4", false, &directive, None, false);
    let template = spec.build();
    let ids = Ids::fresh();
    let rendered = template.sse_whole.render(&ids);
    let text = std::str::from_utf8(&rendered).expect("utf-8");
    assert!(!text.contains(ID_SENTINEL));
    assert!(!text.contains("1111111111"));
    assert_eq!(text.matches(&ids.with_prefix("resp_")).count(), 3);
    assert_eq!(rendered.len(), template.sse_whole.len());
    let by_event: usize = template.events.iter().map(|e| e.sse.render(&ids).len()).sum();
    assert_eq!(by_event, rendered.len());
    let other = Ids::fresh();
    assert_ne!(ids.hex(), other.hex());
}
