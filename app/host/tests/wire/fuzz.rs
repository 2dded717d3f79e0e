//! Fuzzing the wire with proptest, as the scene and format fuzzers do
//! (docs/reliability-fuzz.md): random bytes, damaged frames of real
//! messages, lengths over the cap, and handshakes of other versions or no
//! magic, fed to a reader or to a loopback listener. The property, for
//! every case: no panic; every error is the variant for what was wrong
//! and says so (a truncation got fewer bytes than it expected, an
//! oversized length is over the cap, a malformed payload gives a reason);
//! the largest single allocation stays within the cap in force (serde's
//! own up-front reservation for a sequence, at most 1 MiB, aside); and
//! frames of random messages round-trip.
//!
//! Cases: `STEPFRAME_FUZZ_CASES` per property (default 256). A long run:
//!
//! ```text
//! STEPFRAME_FUZZ_CASES=100000 cargo test --release -p stepframe-host --test wire fuzz
//! ```

use std::io::Write;
use std::net::{Shutdown, TcpStream};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestRunner};
use stepframe_host::wire::handshake::MAGIC;
use stepframe_host::wire::loopback::LoopbackListener;
use stepframe_host::wire::{
    BuildId, HANDSHAKE_MAX_BYTES, Hello, MAX_FRAME_BYTES, PROTOCOL_VERSION, Reader, Role,
    WireError, Writer,
};

use crate::alloc_probe::largest_allocation;
use crate::support::{Msg, handshake, msg};

/// serde reserves at most this much for a sequence before its elements
/// arrive (`serde::de::size_hint::cautious`), whatever length it is told.
const SERDE_RESERVE: usize = 1 << 20;

fn cases() -> u32 {
    std::env::var("STEPFRAME_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

pub(crate) fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    })
}

/// `Ok` when `e` is a reader's error that says what was wrong with input
/// read under `cap`.
fn says_what_was_wrong(e: &WireError, cap: u32) -> Result<(), String> {
    let ok = match e {
        WireError::Closed => true,
        WireError::Truncated { expected, got } => got < expected,
        WireError::Oversized { len, cap: c } => *c == cap && *len > u64::from(cap),
        WireError::Malformed { len, reason } => *len <= cap as usize && !reason.is_empty(),
        _ => false,
    };
    if ok && !e.to_string().is_empty() {
        Ok(())
    } else {
        Err(format!("unexpected error for input under cap {cap}: {e:?}"))
    }
}

/// Reads messages from `bytes` under `cap` until the first error; checks
/// the error, the allocations, and that the reader stays quiet after it.
fn read_all(bytes: &[u8], cap: u32) -> Result<Vec<Msg>, String> {
    let mut reader = Reader::new(bytes, cap);
    let mut got = Vec::new();
    // Each frame takes at least its 4-byte header.
    for _ in 0..=bytes.len() / 4 + 1 {
        let (result, largest) = largest_allocation(|| reader.recv::<Msg>());
        if largest > (cap as usize).max(SERDE_RESERVE) {
            return Err(format!("allocated {largest} bytes under cap {cap}"));
        }
        match result {
            Ok(m) => got.push(m),
            Err(WireError::Malformed { .. }) => {}
            Err(e) => {
                says_what_was_wrong(&e, cap)?;
                return Ok(got);
            }
        }
    }
    Err("the reader never reached the end of its input".into())
}

/// Frames of `msgs`, back to back.
fn frames(msgs: &[Msg]) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), MAX_FRAME_BYTES);
    for m in msgs {
        w.send(m).unwrap();
    }
    w.get_ref().clone()
}

fn check(name: &str, result: Result<(), proptest::test_runner::TestError<impl std::fmt::Debug>>) {
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
}

#[test]
fn valid_frames_of_random_messages_round_trip() {
    let result = runner().run(&proptest::collection::vec(msg(), 1..6), |msgs| {
        let bytes = frames(&msgs);
        let mut reader = Reader::new(&bytes[..], MAX_FRAME_BYTES);
        for m in &msgs {
            let back: Msg = reader
                .recv()
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(back.same(m), "{back:?} != {m:?}");
        }
        prop_assert!(matches!(reader.recv::<Msg>(), Err(WireError::Closed)));
        Ok(())
    });
    check("round trip", result);
}

#[test]
fn random_bytes_never_panic_and_every_error_says_what_was_wrong() {
    let caps = prop_oneof![
        Just(16u32),
        Just(HANDSHAKE_MAX_BYTES),
        Just(MAX_FRAME_BYTES)
    ];
    let input = (proptest::collection::vec(any::<u8>(), 0..2048), caps);
    let result = runner().run(&input, |(bytes, cap)| {
        let outcome = std::panic::catch_unwind(|| read_all(&bytes, cap));
        match outcome {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(broken)) => Err(TestCaseError::fail(broken)),
            Err(_) => Err(TestCaseError::fail("panic")),
        }
    });
    check("random bytes", result);
}

/// One way to damage a stream of frames.
#[derive(Clone, Debug)]
enum Damage {
    /// Flip one bit.
    Flip(Index, u8),
    /// Cut the stream there.
    Truncate(Index),
    /// Delete a span.
    Delete(Index, usize),
    /// Set a frame's length to this (over the cap, or wrong).
    Length(Index, u32),
    /// Insert random bytes.
    Insert(Index, Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        (any::<Index>(), 0u8..8).prop_map(|(i, b)| Damage::Flip(i, b)),
        any::<Index>().prop_map(Damage::Truncate),
        (any::<Index>(), 1usize..32).prop_map(|(i, n)| Damage::Delete(i, n)),
        (
            any::<Index>(),
            prop_oneof![
                Just(u32::MAX),
                Just(MAX_FRAME_BYTES + 1),
                0u32..64,
                any::<u32>()
            ]
        )
            .prop_map(|(i, n)| Damage::Length(i, n)),
        (
            any::<Index>(),
            proptest::collection::vec(any::<u8>(), 1..16)
        )
            .prop_map(|(i, b)| Damage::Insert(i, b)),
    ]
}

fn apply(bytes: &mut Vec<u8>, d: &Damage) {
    if bytes.is_empty() {
        return;
    }
    match d {
        Damage::Flip(i, b) => {
            let k = i.index(bytes.len());
            bytes[k] ^= 1 << b;
        }
        Damage::Truncate(i) => bytes.truncate(i.index(bytes.len())),
        Damage::Delete(i, n) => {
            let k = i.index(bytes.len());
            let end = (k + n).min(bytes.len());
            bytes.drain(k..end);
        }
        Damage::Length(i, n) => {
            // Over the 4 bytes at a position: the first header, or the
            // middle of one, as a reader out of step would see it.
            let k = i.index(bytes.len().saturating_sub(3).max(1));
            let end = (k + 4).min(bytes.len());
            let le = n.to_le_bytes();
            bytes[k..end].copy_from_slice(&le[..end - k]);
        }
        Damage::Insert(i, b) => {
            let k = i.index(bytes.len() + 1);
            bytes.splice(k..k, b.iter().copied());
        }
    }
}

#[test]
fn damaged_frames_of_real_messages_never_panic_and_the_intact_ones_still_read() {
    let input = (
        proptest::collection::vec(msg(), 1..5),
        proptest::collection::vec(damage(), 1..4),
    );
    let result = runner().run(&input, |(msgs, damages)| {
        let clean = frames(&msgs);
        let mut bytes = clean.clone();
        for d in &damages {
            apply(&mut bytes, d);
        }
        // The bytes before the first damaged one are whole frames that
        // must come back as they were sent.
        let intact = clean.iter().zip(&bytes).take_while(|(a, b)| a == b).count();
        let outcome = std::panic::catch_unwind(|| read_all(&bytes, MAX_FRAME_BYTES));
        let got = match outcome {
            Ok(Ok(got)) => got,
            Ok(Err(broken)) => return Err(TestCaseError::fail(broken)),
            Err(_) => return Err(TestCaseError::fail("panic")),
        };
        let mut end = 0;
        for (i, m) in msgs.iter().enumerate() {
            end += 4 + stepframe_host::wire::encode(m, Vec::new()).unwrap().len();
            if end > intact {
                break;
            }
            prop_assert!(
                got.get(i).is_some_and(|g| g.same(m)),
                "intact frame {i} did not come back"
            );
        }
        Ok(())
    });
    check("damaged frames", result);
}

/// What a connector can send as its first frame.
#[derive(Clone, Debug)]
enum Opening {
    /// Random bytes, raw (no frame).
    Raw(Vec<u8>),
    /// A hello of another protocol version.
    Version(u32),
    /// A frame starting with other magic.
    Magic([u8; 8], Vec<u8>),
    /// A good hello, damaged.
    Damaged(Vec<Damage>),
}

fn opening() -> impl Strategy<Value = Opening> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..1200).prop_map(Opening::Raw),
        any::<u32>()
            .prop_filter("another version", |v| *v != PROTOCOL_VERSION)
            .prop_map(Opening::Version),
        (
            any::<[u8; 8]>(),
            proptest::collection::vec(any::<u8>(), 0..64)
        )
            .prop_filter("other magic", |(m, _)| *m != MAGIC)
            .prop_map(|(m, rest)| Opening::Magic(m, rest)),
        proptest::collection::vec(damage(), 1..4).prop_map(Opening::Damaged),
    ]
}

fn hello_frame(protocol: u32) -> Vec<u8> {
    let mut w = Writer::new(Vec::new(), HANDSHAKE_MAX_BYTES);
    w.send(&Hello {
        magic: MAGIC,
        protocol,
        build: BuildId::of_this_process(),
        role: Role::Host,
        token: None,
    })
    .unwrap();
    w.get_ref().clone()
}

#[test]
fn bad_handshakes_are_refused_with_what_was_wrong_and_the_listener_keeps_listening() {
    let listener = LoopbackListener::bind(handshake(Role::Editor)).unwrap();
    let addr = listener.addr().unwrap();
    let result = runner().run(&opening(), |open| {
        let bytes = match &open {
            Opening::Raw(b) => b.clone(),
            Opening::Version(v) => hello_frame(*v),
            Opening::Magic(m, rest) => {
                let mut payload = m.to_vec();
                payload.extend(rest);
                let mut f = (payload.len() as u32).to_le_bytes().to_vec();
                f.extend(payload);
                f
            }
            Opening::Damaged(ds) => {
                let mut b = hello_frame(PROTOCOL_VERSION);
                for d in ds {
                    apply(&mut b, d);
                }
                b
            }
        };
        // The whole opening, then the end of what this connector sends:
        // the listener never waits on it.
        let mut s = TcpStream::connect(addr).map_err(|e| TestCaseError::fail(e.to_string()))?;
        s.write_all(&bytes)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        s.shutdown(Shutdown::Write)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            largest_allocation(|| listener.accept())
        }));
        let Ok((result, largest)) = outcome else {
            return Err(TestCaseError::fail("panic"));
        };
        prop_assert!(
            largest <= HANDSHAKE_MAX_BYTES as usize,
            "allocated {largest} bytes before the handshake was through"
        );
        let e = match result {
            // No token: never let in.
            Ok(_) => return Err(TestCaseError::fail("let in without the token")),
            Err(e) => e,
        };
        prop_assert!(!e.to_string().is_empty());
        match (&open, &e) {
            (Opening::Version(v), WireError::Version { ours, theirs }) => {
                prop_assert_eq!((*ours, *theirs), (PROTOCOL_VERSION, *v))
            }
            (Opening::Version(_), other) => {
                return Err(TestCaseError::fail(format!("version: got {other:?}")));
            }
            (Opening::Magic(m, _), WireError::NotStepframe { found }) => prop_assert_eq!(found, m),
            (Opening::Magic(..), other) => {
                return Err(TestCaseError::fail(format!("magic: got {other:?}")));
            }
            (_, WireError::Token) => {}
            (_, other) => says_what_was_wrong(other, HANDSHAKE_MAX_BYTES)
                .or_else(|_| match other {
                    WireError::NotStepframe { .. } | WireError::Version { .. } => Ok(()),
                    WireError::Io(_) => Ok(()),
                    _ => Err(format!("got {other:?}")),
                })
                .map_err(TestCaseError::fail)?,
        }
        Ok(())
    });
    check("handshakes", result);
}
