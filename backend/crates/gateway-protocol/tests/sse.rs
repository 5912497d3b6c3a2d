use gateway_protocol::SseFramer;

fn frames_of(chunks: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut framer = SseFramer::new();
    let mut out = Vec::new();
    for chunk in chunks {
        framer.push(chunk);
        while let Some(frame) = framer.next_frame().expect("frame") {
            out.push(frame.raw.to_vec());
        }
    }
    out
}

#[test]
fn frames_are_the_exact_bytes_received_whatever_the_chunking() {
    let stream: &[u8] = b"event: response.created\ndata: {\"a\":1}\n\nevent: response.completed\ndata: {\"b\":2}\n\n";
    let whole = frames_of(&[stream]);
    assert_eq!(whole.len(), 2);
    assert_eq!(whole.concat(), stream);
    for split in 1..stream.len() {
        let (a, b) = stream.split_at(split);
        assert_eq!(frames_of(&[a, b]), whole, "split at {split}");
    }
    let bytes: Vec<&[u8]> = stream.chunks(1).collect();
    assert_eq!(frames_of(&bytes), whole);
}

#[test]
fn crlf_frames_and_comments_are_recognised() {
    let frames = frames_of(&[b": ping\r\n\r\nevent: x\r\ndata: {}\r\n\r\n"]);
    assert_eq!(frames.len(), 2);
    let mut framer = SseFramer::new();
    framer.push(b": ping\r\n\r\nevent: x\r\ndata: {}\r\n\r\n");
    let ping = framer.next_frame().expect("ok").expect("frame");
    assert!(ping.is_comment());
    let event = framer.next_frame().expect("ok").expect("frame");
    assert_eq!(event.event_name(), Some("x"));
    assert_eq!(event.data().as_deref(), Some(&b"{}"[..]));
}

#[test]
fn multi_line_data_is_joined_and_a_truncated_tail_is_kept() {
    let mut framer = SseFramer::new();
    framer.push(b"data: {\"a\":\ndata: 1}\n\ndata: {\"partial\"");
    let frame = framer.next_frame().expect("ok").expect("frame");
    assert_eq!(frame.data().as_deref(), Some(&b"{\"a\":\n1}"[..]));
    assert_eq!(frame.event_name(), None);
    assert!(framer.next_frame().expect("ok").is_none());
    assert!(framer.has_remainder());
    assert_eq!(&framer.take_remainder()[..], b"data: {\"partial\"");
}
