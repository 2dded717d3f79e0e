//! Frames: a little-endian length, then the postcard payload; the cap
//! holds at both ends; a cut frame, an early end and a timeout each say
//! what happened.

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::time::Duration;

use stepframe_host::wire::{
    MAX_FRAME_BYTES, Reader, Role, Stream, WireError, Writer, encode, in_process,
};

use crate::alloc_probe::largest_allocation;
use crate::support::{BOUND, Msg, handshake};

#[test]
fn a_frame_is_a_little_endian_length_then_the_postcard_payload() {
    let mut out = Writer::new(Vec::new(), 1024);
    out.send(&(7u8, "hi")).unwrap();
    // postcard: a u8 as itself, a string as a varint length and its bytes.
    let wire = out.get_ref().clone();
    assert_eq!(wire, [4, 0, 0, 0, 7, 2, b'h', b'i']);
    let mut back = Reader::new(&wire[..], 1024);
    let (n, s): (u8, String) = back.recv().unwrap();
    assert_eq!((n, s.as_str()), (7, "hi"));
    assert!(matches!(back.recv::<u8>(), Err(WireError::Closed)));
}

#[test]
fn a_message_over_the_cap_is_refused_at_the_sender_and_nothing_is_written() {
    let mut out = Writer::new(Vec::new(), 16);
    // 100 bytes and their 1-byte length: a 101-byte payload.
    match out.send(&vec![0u8; 100]) {
        Err(WireError::Oversized { len: 101, cap: 16 }) => {}
        other => panic!("expected oversized 101 > 16, got {other:?}"),
    }
    assert!(out.get_ref().is_empty(), "nothing written");
    // The writer is still usable: nothing half-written went out.
    out.send(&3u8).unwrap();
    assert_eq!(out.get_ref(), &[1, 0, 0, 0, 3]);
}

#[test]
fn a_length_over_the_cap_is_refused_before_anything_is_allocated_for_it() {
    let wire = [0xff, 0xff, 0xff, 0x7f, 1, 2, 3];
    let mut back = Reader::new(&wire[..], 1024);
    let (result, largest) = largest_allocation(|| back.recv::<Msg>());
    match result {
        Err(WireError::Oversized {
            len: 0x7fff_ffff,
            cap: 1024,
        }) => {}
        other => panic!("expected oversized, got {other:?}"),
    }
    assert!(
        largest < 1024,
        "allocated {largest} bytes for a refused frame"
    );
    // Where the next frame starts is unknown now.
    assert!(matches!(back.recv::<Msg>(), Err(WireError::Broken { .. })));
}

#[test]
fn a_cut_header_and_a_cut_payload_are_truncated_with_both_counts() {
    let mut back = Reader::new(&[3u8, 0, 0][..], 1024);
    match back.recv::<u8>() {
        Err(WireError::Truncated {
            expected: 4,
            got: 3,
        }) => {}
        other => panic!("expected a cut header, got {other:?}"),
    }
    let mut back = Reader::new(&[5u8, 0, 0, 0, 1, 2][..], 1024);
    match back.recv::<u8>() {
        Err(WireError::Truncated {
            expected: 9,
            got: 6,
        }) => {}
        other => panic!("expected a cut payload, got {other:?}"),
    }
}

#[test]
fn bytes_left_after_the_message_make_it_malformed_and_the_next_frame_still_reads() {
    // A u8 frame carrying two bytes, then a good one.
    let wire = [2u8, 0, 0, 0, 9, 9, 1, 0, 0, 0, 5];
    let mut back = Reader::new(&wire[..], 1024);
    match back.recv::<u8>() {
        Err(WireError::Malformed { len: 2, reason }) => {
            assert!(reason.contains("1 bytes left over"), "{reason}")
        }
        other => panic!("expected malformed, got {other:?}"),
    }
    assert_eq!(back.recv::<u8>().unwrap(), 5);
}

#[test]
fn a_payload_of_another_type_is_malformed_with_the_decoders_reason() {
    // A 3-byte payload: a string claiming 200 bytes (varint 0xc8 0x01)
    // with 1 there.
    let wire = [3u8, 0, 0, 0, 0xc8, 0x01, b'x'];
    let mut back = Reader::new(&wire[..], 1024);
    match back.recv::<String>() {
        Err(WireError::Malformed { len: 3, reason }) => assert!(!reason.is_empty()),
        other => panic!("expected malformed, got {other:?}"),
    }
}

#[test]
fn a_read_timeout_inside_a_frame_loses_nothing() {
    let (a, mut b) = UnixStream::pair().unwrap();
    let mut back = Reader::new(Stream::Unix(a), 1024);
    // The timeout is what is tested: a short one, so the test is quick.
    back.set_timeout(Some(Duration::from_millis(20))).unwrap();
    let frame = {
        let mut w = Writer::new(Vec::new(), 1024);
        w.send(&Msg::Note {
            text: "split".into(),
            name: None,
        })
        .unwrap();
        w.get_ref().clone()
    };
    // Nothing yet, then half a header, then half the payload.
    assert!(matches!(back.recv::<Msg>(), Err(WireError::TimedOut)));
    b.write_all(&frame[..2]).unwrap();
    assert!(matches!(back.recv::<Msg>(), Err(WireError::TimedOut)));
    b.write_all(&frame[2..6]).unwrap();
    assert!(matches!(back.recv::<Msg>(), Err(WireError::TimedOut)));
    b.write_all(&frame[6..]).unwrap();
    back.set_timeout(Some(BOUND)).unwrap();
    match back.recv::<Msg>().unwrap() {
        Msg::Note { text, name: None } => assert_eq!(text, "split"),
        other => panic!("got {other:?}"),
    }
}

#[test]
fn the_halves_of_a_connection_work_from_two_threads_each_way() {
    let (editor, host) = in_process(&handshake(Role::Editor), &handshake(Role::Host)).unwrap();
    editor.set_read_timeout(Some(BOUND)).unwrap();
    host.set_read_timeout(Some(BOUND)).unwrap();
    let (mut editor_in, mut editor_out) = editor.split();
    let (mut host_in, mut host_out) = host.split();
    const N: u64 = 2_000;
    // Each side writes from one thread while another reads: a socket's
    // buffer fills long before 2,000 messages, so a half that blocked the
    // other would deadlock here.
    let writer = std::thread::spawn(move || {
        for tick in 0..N {
            host_out
                .send(&Msg::Step {
                    tick,
                    frames: 1,
                    delta: 0,
                })
                .unwrap();
        }
        host_out
    });
    let commands = std::thread::spawn(move || {
        for tick in 0..N {
            editor_out.send(&Msg::Wide(u128::from(tick), -1)).unwrap();
        }
        editor_out
    });
    for expected in 0..N {
        match editor_in.recv::<Msg>().unwrap() {
            Msg::Step { tick, .. } => assert_eq!(tick, expected),
            other => panic!("got {other:?}"),
        }
    }
    for expected in 0..N {
        match host_in.recv::<Msg>().unwrap() {
            Msg::Wide(v, -1) => assert_eq!(v, u128::from(expected)),
            other => panic!("got {other:?}"),
        }
    }
    let host_out = writer.join().unwrap();
    commands.join().unwrap();
    // Shutting down wakes the other side's reader with `Closed`.
    host_out.shutdown().unwrap();
    assert!(matches!(editor_in.recv::<Msg>(), Err(WireError::Closed)));
}

#[test]
fn a_recovery_point_sized_message_crosses_in_one_frame() {
    let (mut editor, host) = in_process(&handshake(Role::Editor), &handshake(Role::Host)).unwrap();
    editor.set_read_timeout(Some(BOUND)).unwrap();
    // 12 MB: about what the 10,000-ball pile's engine state takes
    // (docs/protocol.md), a pattern so a shifted byte shows.
    let big: Vec<u8> = (0..12_000_000u32).map(|i| (i % 251) as u8).collect();
    let sent = Msg::Bytes(big.clone());
    let (_, mut host_out) = host.split();
    let writer = std::thread::spawn(move || host_out.send(&sent).map(|()| host_out));
    match editor.recv::<Msg>().unwrap() {
        Msg::Bytes(got) => assert!(got == big, "the bytes differ"),
        other => panic!("got {other:?}"),
    }
    writer.join().unwrap().unwrap();
    assert!(
        encode(&Msg::Bytes(big), Vec::new()).unwrap().len() < MAX_FRAME_BYTES as usize,
        "the cap leaves room for it"
    );
}

/// Values a file writes with fields left out (an empty list, an absent
/// option, a named priority) cross the wire whole: postcard reads fields
/// by position, so a field left out would make the reader take the next
/// one's bytes (a host once died on the first `Recording` it sent).
#[test]
fn what_a_file_leaves_out_still_crosses_the_wire_and_reads_back_the_same() {
    use stepframe_core::{BodyDesc, Priority, Recording, Shape};
    fn round_trip<T>(value: &T) -> T
    where
        T: serde::Serialize + serde::de::DeserializeOwned,
    {
        let bytes = encode(value, Vec::new()).expect("encodes");
        stepframe_host::wire::decode(&bytes).expect("reads back")
    }
    let recording = Recording::new(60);
    assert!(recording.edits.is_empty(), "the field a file leaves out");
    assert_eq!(round_trip(&(recording.clone(), 7u8)), (recording, 7u8));
    let body = BodyDesc::dynamic(Shape::Circle { radius: 0.5 });
    assert!(body.soft.is_none(), "the field a file leaves out");
    assert_eq!(round_trip(&(body.clone(), 7u8)), (body, 7u8));
    let named = [Priority(-100), Priority(-50), Priority::DEFAULT];
    assert_eq!(round_trip(&named), named);
    // A file still leaves them out, and still names a priority.
    let text = ron::to_string(&Recording::new(60)).expect("RON");
    assert!(!text.contains("edits"), "{text}");
    assert_eq!(ron::to_string(&Priority(-100)).expect("RON"), "Early");
}
