//! `check`'s runs in child processes: one process per run of the matrix, so
//! a run that aborts, overflows its stack, runs out of memory or sticks in a
//! hook fails that run alone (its table cell and its JUnit `<error>` name
//! the fault: object, behaviour, hook, tick) and every other run still
//! reports.
//!
//! The parent ([`Children`]) runs this executable again for each run with
//! the user's own `check` arguments and two hidden ones, `--matrix-run
//! <scene>:<case>` and `--run-out <file>`, under the supervisor of
//! `stepframe_host::supervise` with the `--stuck-hook-limit` and
//! `--memory-limit-mib` of the check. The child ([`run_one`]) loads only its
//! scene, makes its one run with the fault marker installed, and writes the
//! run (frames, dropped time, error lines, trace) as JSON to the file. The
//! parent reads it back and compares the trace with the reference, as for a
//! run on a thread of its own process (`--in-process`).
//!
//! What it costs: a process start and a scene load per run. On `demo.ron`
//! (18 runs of 600 ticks) that is measured by `check_parallel_speedup`
//! against `--jobs 1`, start-up included.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use indicatif::ProgressBar;
use stepframe_core::{HookBeacon, Pipeline, WallClock};
use stepframe_host::supervise::{Ended, FaultMarker, Limits, SceneNames, configure, supervise};

use super::cases::{CheckArgs, SceneCheck, load_scenes};
use super::matrix::{CaseRun, MatrixRun, check_matrix, run_case};
use crate::Behaviours;
use crate::player::Isolation;
use crate::player::supervise::{relay_to_stderr, this_executable};

/// The parent's side: starts one supervised child per run.
#[derive(Debug)]
pub struct Children<'a> {
    /// This `check`'s command line: the program, then its arguments.
    line: &'a [OsString],
    /// Where `check` stands in it (the arguments before it are the program's).
    at: usize,
    /// Each child's limits.
    limits: Limits,
    /// The loaded scenes, to name a fault's objects.
    scenes: &'a [SceneCheck],
    /// The runs' result files; removed with it.
    dir: tempfile::TempDir,
    /// The progress line, hidden while a child's stderr line is written.
    bar: ProgressBar,
}

impl<'a> Children<'a> {
    /// Children for the runs of `scenes`, from this process's command line.
    pub fn new(
        line: &'a [OsString],
        isolation: &Isolation,
        scenes: &'a [SceneCheck],
        bar: ProgressBar,
    ) -> Result<Children<'a>, String> {
        let at = line
            .iter()
            .skip(1)
            .position(|a| a == "check")
            .map(|k| k + 1)
            .ok_or("no `check` in the command line")?;
        let dir = tempfile::Builder::new()
            .prefix("stepframe-check-")
            .tempdir()
            .map_err(|e| format!("a directory for the runs' results: {e}"))?;
        Ok(Children {
            line,
            at,
            limits: isolation.limits(),
            scenes,
            dir,
            bar,
        })
    }

    /// Makes run `at` in a supervised child and reads it back; a fault is
    /// the run's error, named.
    pub fn run(&self, at: MatrixRun) -> Result<CaseRun, String> {
        let out = self
            .dir
            .path()
            .join(format!("{}-{}.json", at.scene, at.case));
        let mut args: Vec<OsString> = self.line[1..=self.at].to_vec();
        args.extend([
            "--matrix-run".into(),
            at.to_string().into(),
            "--run-out".into(),
            out.clone().into(),
        ]);
        args.extend(self.line[self.at + 1..].iter().cloned());
        let mut cmd = this_executable(&args).map_err(|e| format!("cannot start a run: {e}"))?;
        let marker = FaultMarker::create().map_err(|e| e.to_string())?;
        configure(&mut cmd, &marker, &self.limits);
        let bar = self.bar.clone();
        let relay = move |line: &[u8]| bar.suspend(|| relay_to_stderr(line));
        let ended = supervise(cmd, &marker, &self.limits, &WallClock::system(), relay)
            .map_err(|e| e.to_string())?;
        match ended {
            Ended::Exited(0) => read_run(&out),
            Ended::Exited(code) => Err(read_run(&out)
                .err()
                .unwrap_or_else(|| format!("its process exited with code {code}"))),
            Ended::Faulted(mut fault) => {
                let s = &self.scenes[at.scene];
                let mut pipeline = Pipeline::new(s.scene.settings.time);
                if pipeline.load_scene(&s.scene, &s.registry).is_ok() {
                    fault.name_with(&SceneNames::of(&pipeline));
                }
                Err(fault.to_string())
            }
        }
    }
}

/// A run as its child wrote it.
fn read_run(path: &Path) -> Result<CaseRun, String> {
    let text = std::fs::read(path)
        .map_err(|e| format!("its process wrote no result ({}: {e})", path.display()))?;
    serde_json::from_slice::<Result<CaseRun, String>>(&text)
        .map_err(|e| format!("its result does not read back ({}: {e})", path.display()))?
}

/// The child's side: loads the scene of run `at` (pairing `--input`s as the
/// parent did), makes the run with `beacon` installed, and writes it (or
/// why it could not run) to `out`. Exit 0 once it is written, 1 if it
/// cannot be.
pub fn run_one(
    args: &CheckArgs,
    matches: Option<&clap::ArgMatches>,
    behaviours: &Behaviours,
    at: MatrixRun,
    out: &PathBuf,
    beacon: Option<&HookBeacon>,
) -> ExitCode {
    let result = (|| {
        let target = args
            .targets(matches)?
            .into_iter()
            .nth(at.scene)
            .ok_or_else(|| format!("no scene {} to check", at.scene))?;
        let scene = load_scenes(vec![target], args.ticks, behaviours)?
            .pop()
            .ok_or("no scene loaded")?;
        let case = check_matrix()
            .into_iter()
            .nth(at.case)
            .ok_or_else(|| format!("no case {} in the matrix", at.case))?;
        run_case(
            &scene.scene,
            &scene.registry,
            scene.recording.as_ref(),
            &case,
            scene.ticks,
            beacon.map(|b| (b, scene.target.scene.as_path())),
        )
    })();
    let written = std::fs::File::create(out)
        .map_err(|e| e.to_string())
        .and_then(|f| {
            use std::io::Write;
            let mut w = std::io::BufWriter::new(f);
            serde_json::to_writer(&mut w, &result).map_err(|e| e.to_string())?;
            w.flush().map_err(|e| e.to_string())
        });
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("stepframe check: {}: {e}", out.display());
            ExitCode::from(1)
        }
    }
}
