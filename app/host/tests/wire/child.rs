//! A host in a real child process, on a socket it inherits.
//!
//! # The pattern: this test binary is also the child
//!
//! `app/host` has no binary of its own, so a test that needs a second
//! process runs this test binary again with a filter that selects one
//! test, [`child_entry`], and [`MODE_VAR`] saying what the child should
//! do. Run normally (no [`MODE_VAR`]), `child_entry` returns at once. The
//! parent side is [`spawn_host`], exactly as the editor uses it; the child
//! side is [`join_parent`]. Every wait is bounded: the parent's reads and
//! the handshake by [`BOUND`], and the child's reads too, so a child whose
//! parent failed ends by itself.

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

use stepframe_host::wire::child::{SOCKET_VAR, inherited_socket, join_parent, spawn_host};
use stepframe_host::wire::{Connection, Role, WireError};

use crate::support::{BOUND, Msg, handshake};

/// The environment variable that makes this binary a child: its value is
/// the mode.
const MODE_VAR: &str = "STEPFRAME_WIRE_TEST_CHILD";

/// This test binary as a child running `mode`.
fn child(mode: &str) -> Command {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    cmd.args([
        "--exact",
        "child::child_entry",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(MODE_VAR, mode)
    .stdin(Stdio::null());
    cmd
}

/// Spawns `mode` as a host and accepts it.
fn host(mode: &str, stdout: Stdio) -> (std::process::Child, Connection) {
    let mut cmd = child(mode);
    cmd.stdout(stdout).stderr(Stdio::null());
    let (child, conn) = spawn_host(cmd, &handshake(Role::Editor)).unwrap();
    conn.set_read_timeout(Some(BOUND)).unwrap();
    (child, conn)
}

/// The child side: what a re-executed test binary does (see the module
/// docs). Not a test of its own: run directly, it does nothing.
#[test]
fn child_entry() {
    let Ok(mode) = std::env::var(MODE_VAR) else {
        return;
    };
    if mode == "probe" {
        // A grandchild: the variable came down, the socket must not have.
        let fd = std::env::var(SOCKET_VAR)
            .ok()
            .and_then(|v| v.split(':').next()?.parse::<i32>().ok());
        let open =
            fd.is_some_and(|fd| std::fs::symlink_metadata(format!("/proc/self/fd/{fd}")).is_ok());
        let took = !matches!(inherited_socket(), Ok(None));
        std::process::exit(i32::from(open) + 2 * i32::from(took));
    }
    let mut ours = handshake(Role::Host);
    if mode == "other-build" {
        ours.build.exe_modified_ns += 1;
    }
    let mut conn = match join_parent(&ours) {
        Ok(Some(c)) => c,
        Ok(None) => panic!("child {mode}: no inherited socket"),
        Err(e) => {
            eprintln!("child {mode}: {e}");
            std::process::exit(5);
        }
    };
    conn.set_read_timeout(Some(BOUND)).unwrap();
    match mode.as_str() {
        "echo" => loop {
            // Chatter on both standard streams between messages.
            println!("stdout line from user code");
            eprintln!("stderr line from user code");
            match conn.recv::<Msg>() {
                Ok(m) => conn.send(&m).unwrap(),
                Err(WireError::Closed) => std::process::exit(0),
                Err(e) => panic!("child echo: {e}"),
            }
        },
        "abort" => {
            let _ = conn.recv::<Msg>();
            std::process::abort();
        }
        "grandparent" => {
            let status = child("probe").status().unwrap();
            conn.send(&Msg::Step {
                tick: 0,
                frames: 0,
                delta: status.code().unwrap_or(-1) as i16,
            })
            .unwrap();
            let _ = conn.recv::<Msg>();
        }
        other => panic!("unknown child mode {other}"),
    }
}

#[test]
fn a_child_host_talks_over_its_inherited_socket_and_its_stdout_stays_apart() {
    let (mut child, mut conn) = host("echo", Stdio::piped());
    assert_eq!(conn.peer().role, Role::Host);
    let sent = [
        Msg::Stop,
        Msg::Wide(u128::MAX, i128::MIN),
        Msg::Note {
            text: "println! goes to the Log, not the wire".into(),
            name: Some("user".into()),
        },
    ];
    for m in &sent {
        conn.send(m).unwrap();
        let back: Msg = conn.recv().unwrap();
        assert!(back.same(m), "{back:?} != {m:?}");
    }
    drop(conn);
    // The child ends on `Closed` (its own reads are bounded too).
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert!(
        out.matches("stdout line from user code").count() >= sent.len(),
        "what the child printed went to its stdout: {out:?}"
    );
}

#[test]
fn a_child_that_aborts_ends_the_parents_reads_with_closed() {
    let (mut child, mut conn) = host("abort", Stdio::null());
    conn.send(&Msg::Stop).unwrap();
    assert!(matches!(conn.recv::<Msg>(), Err(WireError::Closed)));
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(6), "SIGABRT: {status:?}");
}

#[test]
fn a_child_of_another_build_is_refused_naming_both_and_is_ended() {
    let mut cmd = child("other-build");
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let ours = handshake(Role::Editor);
    match spawn_host(cmd, &ours) {
        Err(WireError::Build { ours: a, theirs: b }) => {
            assert_eq!(a, ours.build);
            assert_eq!(b.exe_modified_ns, ours.build.exe_modified_ns + 1);
        }
        other => panic!("expected a build mismatch, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn a_grandchild_inherits_neither_the_socket_nor_the_right_to_take_it() {
    let (mut child, mut conn) = host("grandparent", Stdio::null());
    match conn.recv::<Msg>().unwrap() {
        // 0: the descriptor is not open in the grandchild, and
        // `inherited_socket` there says "not started as a host".
        Msg::Step { delta, .. } => assert_eq!(delta, 0, "probe exit code"),
        other => panic!("got {other:?}"),
    }
    drop(conn);
    assert!(child.wait().unwrap().success());
}

#[test]
fn this_process_was_not_started_as_a_host() {
    // The test runner did not hand this process a socket.
    assert!(matches!(inherited_socket(), Ok(None)));
    assert!(matches!(join_parent(&handshake(Role::Host)), Ok(None)));
}
