//! `startup_first_frame_ms`: how long `stepframe edit` takes from its start
//! to its first drawn frame, read from the binary itself: this executable
//! run as `edit <demo.ron> --exit-after-first-frame`, which closes after
//! that frame and prints `first_frame_ms <ms>` (`crate::editor`'s
//! `FirstFrame`). The time runs from the start of the binary's `Game::run`
//! (what the dynamic loader and `main` did before that is in the
//! wall time from the spawn, given in the note), through the window, the
//! GPU context, the host's child process and handshake, to the first frame
//! presented. That frame need not show the scene yet: the host loads it in
//! its own process, and the editor draws what it has.
//!
//! It needs a display: with neither `DISPLAY` nor `WAYLAND_DISPLAY` set the
//! figure says so and has no pass or fail. One run, after one unmeasured
//! run that warms the file cache (a first start reads the executable from
//! disk).

use std::io::BufRead as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use super::rebuild::loadavg;
use super::{Figure, Scenes};

/// The target.
const TARGET_MS: f64 = 500.0;

/// A bound on the child's run, not a speed.
const BOUND: Duration = Duration::from_secs(60);

/// One start of the editor on `scene`: the milliseconds it printed, and
/// the wall milliseconds from the spawn to that line read.
fn start_once(scene: &std::path::Path) -> anyhow::Result<(f64, f64)> {
    let program = std::env::current_exe().context("finding this executable")?;
    let spawned = Instant::now();
    let mut child = Command::new(&program)
        .arg("edit")
        .arg(scene)
        .arg("--exit-after-first-frame")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("starting {} edit", program.display()))?;
    let stdout = child.stdout.take().context("the editor's stdout")?;
    // The line is read on a thread, so a child that never draws is killed
    // at the bound rather than waited on.
    let (tx, rx) = crossbeam_channel::bounded(1);
    std::thread::spawn(move || {
        let mut lines = std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok);
        let line = lines
            .by_ref()
            .find_map(|l| l.strip_prefix("first_frame_ms ").map(str::to_string));
        let _ = tx.send((line, spawned.elapsed()));
        // Read to the end: the editor may say more while it closes.
        lines.for_each(drop);
    });
    let got = rx.recv_timeout(BOUND);
    let wall = got.as_ref().map(|(_, d)| d.as_secs_f64() * 1000.0).ok();
    if got.as_ref().is_err() {
        let _ = child.kill();
    }
    let status = child.wait().context("waiting for the editor")?;
    let line = got
        .ok()
        .and_then(|(l, _)| l)
        .with_context(|| format!("the editor printed no first_frame_ms ({status})"))?;
    let ms: f64 = line
        .trim()
        .parse()
        .with_context(|| format!("first_frame_ms {line:?} is not a number"))?;
    Ok((ms, wall.unwrap_or(f64::NAN)))
}

/// `startup_first_frame_ms` (module docs).
pub(super) fn first_frame(_: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let display = ["DISPLAY", "WAYLAND_DISPLAY"].iter().find_map(|v| {
        std::env::var(v)
            .ok()
            .filter(|s| !s.is_empty())
            .map(|s| format!("{v}={s}"))
    });
    let Some(display) = display else {
        return Ok(vec![Figure::value(
            "startup_first_frame_ms",
            f64::NAN,
            "ms",
            format!(
                "not measured: no display (neither DISPLAY nor WAYLAND_DISPLAY is set); target \
                 <= {TARGET_MS} ms under one (Xvfb will do)"
            ),
        )]);
    };
    let demo = scenes.join("demo.ron");
    let (warm_ms, _) = start_once(&demo)?;
    let (ms, wall) = start_once(&demo)?;
    Ok(vec![
        Figure::value(
            "startup_first_frame_ms",
            ms,
            "ms",
            format!(
                "stepframe edit demo.ron --exit-after-first-frame on {display}: {ms:.1} ms from \
                 the binary's start to its first frame drawn, as it printed; {wall:.1} ms from \
                 the spawn to that line read; the unmeasured warm-up start before it {warm_ms:.1} \
                 ms; load {}",
                loadavg()
            ),
        )
        .at_most(TARGET_MS),
    ])
}
