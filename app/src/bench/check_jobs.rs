//! `check_parallel_speedup`: `stepframe check demo.ron --jobs 2` against
//! `--jobs 1`, wall time, each the fastest of two runs of this very binary
//! (a child process, so the figure times what a user runs, start-up and
//! scene loading included). With `--jobs 4` beside them for how it grows:
//! past the cores there is nothing more to gain. Each run of the check is a
//! supervised process of its own (`crate::tools::isolated`), or, when the
//! bench itself runs `--in-process`, a thread of the check's process.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use super::{Figure, Scenes};

/// Wall seconds of `stepframe check <scene> --jobs <jobs>`; with
/// `in_process`, its runs on its own threads (`--in-process`) instead of
/// one supervised process each.
fn check_seconds(scene: &Path, jobs: usize, in_process: bool) -> anyhow::Result<f64> {
    let exe = std::env::current_exe()?;
    let t = Instant::now();
    let status = Command::new(exe)
        .arg("check")
        .arg(scene)
        .args(["--jobs", &jobs.to_string()])
        .args(in_process.then_some("--in-process"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    let secs = t.elapsed().as_secs_f64();
    anyhow::ensure!(status.success(), "check --jobs {jobs} failed: {status}");
    Ok(secs)
}

pub(super) fn check_parallel_speedup(_: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let scene = scenes.join("demo.ron");
    // A bench run --in-process (the fault marker off) times check the same way.
    let in_process = scenes.beacon.is_none();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let (mut one, mut two, mut four) = (f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..2 {
        one = one.min(check_seconds(&scene, 1, in_process)?);
        two = two.min(check_seconds(&scene, 2, in_process)?);
        four = four.min(check_seconds(&scene, 4, in_process)?);
    }
    Ok(vec![
        Figure::ratio(
            "check_parallel_speedup",
            two,
            "s (--jobs 2)",
            one,
            format!(
                "check demo.ron: --jobs 2 {two:.2} s against --jobs 1 {one:.2} s; --jobs 4 {four:.2} s ({:.2} of --jobs 1) on {cores} cores; fastest of 2 runs each",
                four / one
            ),
        )
        .at_most(0.6),
    ])
}
