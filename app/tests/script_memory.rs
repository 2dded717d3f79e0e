//! A scene whose script asks for terabytes, played by the real binary under a
//! 3 GiB address-space limit: the hook stops with `path:line:column` and
//! `play` exits normally. Before the script size limits it died with
//! "memory allocation of 3087007744 bytes failed" (SIGABRT).

use std::os::unix::process::ExitStatusExt;
use std::process::Command;

mod support;
use support::{path_str, root, scratch};

/// The address space the player may use, KiB (3 GiB, the issue's limit;
/// the debug player itself needs a few hundred MiB of it).
const ADDRESS_SPACE_KIB: u64 = 3 * 1024 * 1024;

#[test]
fn play_survives_a_script_that_doubles_a_string_under_a_3_gib_limit() {
    let dir = scratch("grow");
    let script = dir.join("grow.rhai");
    // 2 bytes doubled 60 times: 2 EiB asked for, 30 doublings past 3 GiB.
    std::fs::write(
        &script,
        "let s = \"\";\nfn fixed_update(dt) {\n    let t = \"ab\";\n    for i in 0..60 {\n        t += t;\n    }\n    s = t;\n}\n",
    )
    .expect("write script");
    let scene = dir.join("grow.ron");
    std::fs::write(
        &scene,
        format!(
            r#"(
    settings: (gravity: (x: 0.0, y: -9.81), seed: 1),
    objects: [
        (id: 1, name: "Ground", transform: (x: 0.0, y: -0.5), body: (kind: Fixed, shapes: [Cuboid(hx: 12.0, hy: 0.5)])),
        (id: 2, name: "Grower", behaviours: [(name: "Script", params: (path: {:?}))]),
        (id: 3, name: "Ball", transform: (x: 0.0, y: 2.0), body: (shapes: [Circle(radius: 0.25)])),
    ],
)"#,
            path_str(&script)
        ),
    )
    .expect("write scene");
    // `ulimit -v` in a shell that then becomes the player: no unsafe
    // pre_exec, and a limit the player itself cannot see or change.
    let out = Command::new("sh")
        .args([
            "-c",
            &format!("ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\""),
            env!("CARGO_BIN_EXE_stepframe"),
            "play",
            path_str(&scene),
            "--frames",
            "30",
        ])
        .current_dir(root())
        .output()
        .expect("the player runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.signal(),
        None,
        "the player was killed by a signal: {stderr}"
    );
    assert!(
        stdout.contains("30 frames, 30 ticks"),
        "every frame ran: {stdout}\n{stderr}"
    );
    let expected = format!(
        "{}:2:21: fixed_update failed: Length of string too large",
        path_str(&script)
    );
    assert!(
        stdout.contains(&expected) || stderr.contains(&expected),
        "wanted `{expected}`: {stdout}\n{stderr}"
    );
    assert_eq!(
        stdout.matches("fixed_update failed").count(),
        1,
        "the hook stops once, and stays stopped: {stdout}"
    );
}
