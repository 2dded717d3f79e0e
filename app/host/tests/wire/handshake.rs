//! The handshake: both sides learn each other's role and build; another
//! version, build or role is refused with both values named; a loopback
//! port lets in only the holder of its token and keeps listening after a
//! refusal.

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::time::Duration;

use stepframe_host::wire::handshake::{MAGIC, Refusal, Reply};
use stepframe_host::wire::loopback::{LoopbackListener, connect_loopback};
use stepframe_host::wire::{
    BuildId, HANDSHAKE_MAX_BYTES, Hello, PROTOCOL_VERSION, Reader, Role, Token, WireError, Writer,
    in_process,
};

use crate::support::{BOUND, Msg, handshake};

#[test]
fn both_sides_learn_each_others_role_and_build() {
    let (mut editor, mut host) =
        in_process(&handshake(Role::Editor), &handshake(Role::Host)).unwrap();
    assert_eq!(editor.peer().role, Role::Host);
    assert_eq!(host.peer().role, Role::Editor);
    assert_eq!(editor.peer().build, BuildId::of_this_process());
    assert_eq!(editor.peer().protocol, PROTOCOL_VERSION);
    host.send(&Msg::Stop).unwrap();
    assert!(matches!(editor.recv::<Msg>().unwrap(), Msg::Stop));
}

#[test]
fn the_build_is_the_crate_version_and_the_running_executables_file() {
    let build = BuildId::of_this_process();
    assert_eq!(build.version, env!("CARGO_PKG_VERSION"));
    let exe = std::fs::metadata(std::env::current_exe().unwrap()).unwrap();
    assert_eq!(build.exe_bytes, exe.len());
    let modified = exe
        .modified()
        .unwrap()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    assert_eq!(u128::from(build.exe_modified_ns), modified.as_nanos());
}

#[test]
fn a_host_of_another_build_is_refused_naming_both_builds() {
    let editor = handshake(Role::Editor);
    let mut host = handshake(Role::Host);
    host.build.exe_bytes += 1;
    match in_process(&editor, &host) {
        Err(WireError::Build { ours, theirs }) => {
            assert_eq!(ours, editor.build);
            assert_eq!(theirs, host.build);
            let text = WireError::Build { ours, theirs }.to_string();
            assert!(
                text.contains(&format!("{} bytes", host.build.exe_bytes)),
                "{text}"
            );
        }
        other => panic!("expected a build mismatch, got {other:?}"),
    }
}

#[test]
fn two_editors_are_refused_for_their_role() {
    match in_process(&handshake(Role::Editor), &handshake(Role::Editor)) {
        Err(WireError::Role {
            expected: Role::Host,
            found: Role::Editor,
        }) => {}
        other => panic!("expected a role mismatch, got {other:?}"),
    }
}

/// A raw loopback connection to `addr` with frames of the handshake cap.
fn raw(addr: SocketAddr) -> (Reader<TcpStream>, Writer<TcpStream>) {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(BOUND)).unwrap();
    let w = s.try_clone().unwrap();
    (
        Reader::new(s, HANDSHAKE_MAX_BYTES),
        Writer::new(w, HANDSHAKE_MAX_BYTES),
    )
}

fn hello(protocol: u32, token: Option<Token>) -> Hello {
    Hello {
        magic: MAGIC,
        protocol,
        build: BuildId::of_this_process(),
        role: Role::Host,
        token,
    }
}

#[test]
fn another_protocol_version_is_refused_and_both_sides_name_both_versions() {
    let listener = LoopbackListener::bind(handshake(Role::Editor)).unwrap();
    let addr = listener.addr().unwrap();
    let (mut r, mut w) = raw(addr);
    w.send(&hello(
        PROTOCOL_VERSION + 98,
        Some(listener.token().clone()),
    ))
    .unwrap();
    match listener.accept() {
        Err(WireError::Version { ours, theirs }) => {
            assert_eq!((ours, theirs), (PROTOCOL_VERSION, PROTOCOL_VERSION + 98))
        }
        other => panic!("expected a version mismatch, got {other:?}"),
    }
    let reply: Reply = r.recv().unwrap();
    assert_eq!(
        reply.refused,
        Some(Refusal::Version {
            ours: PROTOCOL_VERSION,
            theirs: PROTOCOL_VERSION + 98
        })
    );

    // A listener of another version, as the connector sees it.
    let old = TcpListener::bind("127.0.0.1:0").unwrap();
    let old_addr = old.local_addr().unwrap();
    let answer = std::thread::spawn(move || {
        let (s, _) = old.accept().unwrap();
        s.set_read_timeout(Some(BOUND)).unwrap();
        let mut r = Reader::new(s.try_clone().unwrap(), HANDSHAKE_MAX_BYTES);
        let _: Hello = r.recv().unwrap();
        let mut w = Writer::new(s, HANDSHAKE_MAX_BYTES);
        let mut h = hello(7, None);
        h.role = Role::Editor;
        w.send(&Reply {
            hello: h,
            refused: None,
        })
        .unwrap();
    });
    match connect_loopback(old_addr, Token::random().unwrap(), &handshake(Role::Host)) {
        Err(WireError::Version { ours, theirs: 7 }) => assert_eq!(ours, PROTOCOL_VERSION),
        other => panic!("expected a version mismatch, got {other:?}"),
    }
    answer.join().unwrap();
}

#[test]
fn a_wrong_token_is_refused_and_the_listener_keeps_listening() {
    let listener = LoopbackListener::bind(handshake(Role::Editor)).unwrap();
    let addr = listener.addr().unwrap();
    assert!(addr.ip().is_loopback(), "bound to {addr}");
    let intruder = std::thread::spawn(move || {
        connect_loopback(addr, Token::random().unwrap(), &handshake(Role::Host))
    });
    assert!(matches!(listener.accept(), Err(WireError::Token)));
    assert!(matches!(intruder.join().unwrap(), Err(WireError::Token)));

    // No token at all.
    let (mut r, mut w) = raw(addr);
    w.send(&hello(PROTOCOL_VERSION, None)).unwrap();
    assert!(matches!(listener.accept(), Err(WireError::Token)));
    assert_eq!(r.recv::<Reply>().unwrap().refused, Some(Refusal::Token));

    // The holder of the token gets in, on the same listener.
    let token = listener.token().clone();
    let player = std::thread::spawn(move || {
        let mut c = connect_loopback(addr, token, &handshake(Role::Host)).unwrap();
        c.set_read_timeout(Some(BOUND)).unwrap();
        c.send(&Msg::Stop).unwrap();
        c.recv::<Msg>().unwrap()
    });
    let mut editor = listener.accept().unwrap();
    editor.set_read_timeout(Some(BOUND)).unwrap();
    assert!(matches!(editor.recv::<Msg>().unwrap(), Msg::Stop));
    editor
        .send(&Msg::Note {
            text: "welcome".into(),
            name: None,
        })
        .unwrap();
    assert!(matches!(player.join().unwrap(), Msg::Note { text, .. } if text == "welcome"));
}

#[test]
fn a_stranger_on_the_port_is_refused_without_an_answer() {
    let listener = LoopbackListener::bind(handshake(Role::Editor)).unwrap();
    let addr = listener.addr().unwrap();
    // An HTTP client: "GET " read as a length is far over the handshake cap.
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    match listener.accept() {
        Err(WireError::Oversized { len, cap }) => {
            assert_eq!(len, u64::from(u32::from_le_bytes(*b"GET ")));
            assert_eq!(cap, HANDSHAKE_MAX_BYTES);
        }
        other => panic!("expected oversized, got {other:?}"),
    }
    // A small frame without the magic.
    let mut s2 = TcpStream::connect(addr).unwrap();
    s2.write_all(&[
        9, 0, 0, 0, b'h', b'e', b'l', b'l', b'o', b'!', b'!', b'!', b'!',
    ])
    .unwrap();
    match listener.accept() {
        Err(WireError::NotStepframe { found }) => assert_eq!(&found, b"hello!!!"),
        other => panic!("expected not-stepframe, got {other:?}"),
    }
    // Neither was answered: the listener closed both.
    s2.set_read_timeout(Some(BOUND)).unwrap();
    let mut r = Reader::new(s2, HANDSHAKE_MAX_BYTES);
    assert!(matches!(r.recv::<Reply>(), Err(WireError::Closed)));
    drop(s);
}

#[test]
fn a_silent_connector_is_dropped_after_the_handshake_timeout() {
    let listener = LoopbackListener::bind(stepframe_host::wire::Handshake {
        // The timeout is what is tested: a short one, so the test is quick.
        timeout: Duration::from_millis(50),
        ..handshake(Role::Editor)
    })
    .unwrap();
    let addr = listener.addr().unwrap();
    let _silent = TcpStream::connect(addr).unwrap();
    assert!(matches!(listener.accept(), Err(WireError::TimedOut)));
    // And the next one is served.
    let token = listener.token().clone();
    let player = std::thread::spawn(move || connect_loopback(addr, token, &handshake(Role::Host)));
    listener.accept().unwrap();
    player.join().unwrap().unwrap();
}

#[test]
fn a_connector_will_not_dial_off_the_machine() {
    // TEST-NET-1, reserved for documentation: refused before any packet.
    let addr: SocketAddr = "192.0.2.1:6007".parse().unwrap();
    match connect_loopback(addr, Token::random().unwrap(), &handshake(Role::Host)) {
        Err(WireError::NotLoopback { addr: a }) => assert_eq!(a, addr),
        other => panic!("expected not-loopback, got {other:?}"),
    }
}

#[test]
fn a_token_travels_as_32_hex_digits_and_debug_does_not_show_it() {
    let t = Token::random().unwrap();
    let text = t.to_string();
    assert_eq!(text.len(), 32);
    assert!(text.chars().all(|c| c.is_ascii_hexdigit()));
    let back: Token = text.parse().unwrap();
    assert!(back.matches(&t));
    assert!(!format!("{t:?}").contains(&text[..8]));
    assert!("abc".parse::<Token>().is_err());
    assert!("zz".repeat(16).parse::<Token>().is_err());
    assert!(!Token::random().unwrap().matches(&t));
}
