//! `stepframe check`: proving fixed logic is frame-rate independent, for one
//! scene or for a CI job's share of many.
//!
//! Each scene (with its recording) is run under the pacing matrix of
//! [`super::matrix`], in parallel on every core, each run writing its trace in
//! memory, and each run is compared with the scene's 60 Hz accumulator run.
//!
//! **The comparison rule.** Every run goes on until it has completed the same
//! number of ticks `T` (the recording's length, or `--ticks`): a run at 30 Hz
//! needs half the frames of one at 60 Hz, and a stalled run needs more frames,
//! because the step cap drops the hitch's backlog instead of simulating it. A
//! frame may complete a few ticks past `T`; only ticks `1..=T` are compared. So
//! "matches" means: the same `T` ticks, with byte-identical inputs, contacts,
//! poses and hashes, `frame` aside. The runs also carry subsystem hashes; they
//! do not change the verdict, but when a run does not match, its report starts
//! from the first tick where any of them differs and names the subsystem (and
//! object) whose state changed first, then every differing field.
//!
//! **Several scenes, shards, CI.** `check a.ron --input a-rec.ron b.ron` checks
//! both scenes: an `--input` belongs to the scene named before it (one given
//! before every scene belongs to the first). `--shard i/n` runs only the i-th
//! slice of the scene × pacing matrix ([`super::matrix`]), so n CI jobs share
//! one matrix with no scheduler. `--junit out.xml` writes every run as a JUnit
//! test case ([`super::junit`]). On a terminal, stderr shows a progress line;
//! piped or in CI, nothing is drawn.
//!
//! Exit 0 when every run matches its reference, 1 when one does not (or could
//! not run, or the JUnit file could not be written), 2 for bad arguments or a
//! scene or recording that does not load.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use stepframe_core::{Recording, Registry, Scene};

use super::junit;
use super::matrix::{CaseRun, CheckCase, MatrixRun, Shard, check_matrix, run_case};
use super::report::Sides;
use super::trace_diff::{DiffOptions, Divergence, TraceDiff, diff_traces, diff_traces_with};
use crate::Behaviours;
use crate::compare::tick::{FieldDiff, TickDiff};

/// Arguments of `stepframe check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Scenes to check; each may be followed by `--input` for its recording.
    #[arg(required = true, value_name = "SCENE")]
    pub scenes: Vec<PathBuf>,
    /// Tick-stamped input recording of the scene named before it (repeatable:
    /// one per scene at most).
    #[arg(long, value_name = "RECORDING")]
    pub input: Vec<PathBuf>,
    /// Ticks every run must complete and that are compared (default: the
    /// recording's length, or 600 without one).
    #[arg(long)]
    pub ticks: Option<u64>,
    /// Parallel runs (default: every core).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Write every run as a JUnit XML test case here; a mismatch is a
    /// `<failure>` carrying the divergence report.
    #[arg(long, value_name = "OUT.xml")]
    pub junit: Option<PathBuf>,
    /// Run only the i-th of n slices of the scene × pacing matrix (`1/4` to `4/4`).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
}

/// A scene to check and its recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckTarget {
    /// The scene file.
    pub scene: PathBuf,
    /// Its recording, if any.
    pub input: Option<PathBuf>,
}

/// Pairs each `--input` with the scene named before it on the command line
/// (an `--input` before every scene belongs to the first). Both lists hold
/// `(argument position, path)`.
pub fn pair_inputs(
    scenes: &[(usize, PathBuf)],
    inputs: &[(usize, PathBuf)],
) -> Result<Vec<CheckTarget>, String> {
    let mut targets: Vec<CheckTarget> = scenes
        .iter()
        .map(|(_, scene)| CheckTarget {
            scene: scene.clone(),
            input: None,
        })
        .collect();
    for (at, input) in inputs {
        let owner = scenes.iter().rposition(|(s, _)| s < at).unwrap_or(0);
        let Some(target) = targets.get_mut(owner) else {
            return Err(format!("--input {}: no scene to check", input.display()));
        };
        if let Some(first) = &target.input {
            return Err(format!(
                "{}: two recordings ({} and {}); give each scene one --input, right after it",
                target.scene.display(),
                first.display(),
                input.display()
            ));
        }
        target.input = Some(input.clone());
    }
    Ok(targets)
}

impl CheckArgs {
    /// The scenes and their recordings. `matches` (check's own) tell where
    /// each argument stood; without them the k-th `--input` goes with the k-th
    /// scene.
    pub fn targets(&self, matches: Option<&clap::ArgMatches>) -> Result<Vec<CheckTarget>, String> {
        let at = |id: &str, n: usize, default: fn(usize) -> usize| -> Vec<usize> {
            matches
                .and_then(|m| m.indices_of(id))
                .map(|i| i.collect::<Vec<usize>>())
                .filter(|v| v.len() == n)
                .unwrap_or_else(|| (0..n).map(default).collect())
        };
        let scene_at = at("scenes", self.scenes.len(), |k| 2 * k);
        let input_at = at("input", self.input.len(), |k| 2 * k + 1);
        pair_inputs(
            &scene_at
                .into_iter()
                .zip(self.scenes.iter().cloned())
                .collect::<Vec<_>>(),
            &input_at
                .into_iter()
                .zip(self.input.iter().cloned())
                .collect::<Vec<_>>(),
        )
    }
}

/// A loaded scene of the matrix.
#[derive(Debug)]
pub struct SceneCheck {
    /// Where it came from.
    pub target: CheckTarget,
    /// The scene.
    pub scene: Scene,
    /// The behaviours it names, with a script host of its own and its script
    /// paths resolved from its directory
    /// ([`Behaviours::registry_for_scene`]): every run of this
    /// scene builds its world with it.
    pub registry: Registry,
    /// Its recording.
    pub recording: Option<Recording>,
    /// Ticks compared.
    pub ticks: u64,
}

impl SceneCheck {
    /// `demo.ron with demo-rec.ron`.
    pub fn label(&self) -> String {
        let mut s = self.target.scene.display().to_string();
        if let Some(input) = &self.target.input {
            s.push_str(&format!(" with {}", input.display()));
        }
        s
    }
}

/// The result of one run against its scene's reference.
#[derive(Clone, Debug)]
pub struct CaseOutcome {
    /// Its place in the matrix.
    pub at: MatrixRun,
    /// The case.
    pub case: CheckCase,
    /// The run (its trace emptied once compared), or why it could not run.
    pub run: Result<CaseRun, String>,
    /// Comparison with the reference (None for the reference itself, for a
    /// failed run, or when the reference failed).
    pub diff: Option<TraceDiff>,
    /// Wall time of the run, seconds.
    pub seconds: f64,
}

impl CaseOutcome {
    /// Whether this run fails the check.
    pub fn failed(&self) -> bool {
        self.run.is_err()
            || self
                .diff
                .as_ref()
                .is_some_and(|d| !matches!(d, TraceDiff::Identical { .. }))
    }
}

/// Compares a run with its reference: the verdict by the comparison rule
/// (subsystem hashes left out), the report with them (module docs).
pub fn compare_with_reference(reference: &str, trace: &str) -> TraceDiff {
    let verdict = DiffOptions {
        all: false,
        subsystems: false,
    };
    let result = match diff_traces_with(reference, trace, verdict) {
        Ok(d @ TraceDiff::Identical { .. }) => Ok(d),
        Ok(d) => diff_traces(reference, trace).or(Ok(d)),
        Err(e) => Err(e),
    };
    result.unwrap_or_else(|e| {
        TraceDiff::Differs(Box::new(Divergence {
            first: TickDiff {
                line: e.line,
                tick: e.line as u64,
                fields: vec![FieldDiff {
                    field: "(unparsable line)".into(),
                    a: None,
                    b: Some(e.message.into()),
                    ulps: None,
                }],
                ..TickDiff::default()
            },
            ranges: Vec::new(),
            lengths: None,
        }))
    })
}

/// Runs `f` over `items` on `jobs` threads; results in item order.
fn parallel<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = f(item);
                    *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
                }
            });
        }
    });
    slots
        .into_iter()
        .filter_map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        .collect()
}

/// A run (or why it could not run) and its wall time in seconds.
type TimedRun = (Result<CaseRun, String>, f64);

fn timed(f: impl FnOnce() -> Result<CaseRun, String>) -> TimedRun {
    let t0 = Instant::now();
    let run = f();
    (run, t0.elapsed().as_secs_f64())
}

/// Runs the given runs of the matrix: first the references of every scene
/// they touch, then the other runs on `jobs` threads, each compared with its
/// reference as soon as it finishes (so only `jobs` traces are in memory at
/// once besides the references). `done` is called once per finished run of
/// `runs`. Outcomes come in `runs` order.
pub fn run_matrix(
    scenes: &[SceneCheck],
    runs: &[MatrixRun],
    jobs: usize,
    done: &(dyn Fn(&CaseOutcome) + Sync),
) -> Vec<CaseOutcome> {
    let cases = check_matrix();
    let mut touched: Vec<usize> = runs.iter().map(|r| r.scene).collect();
    touched.dedup();
    let run = |scene: usize, case: usize| {
        let s = &scenes[scene];
        timed(|| {
            run_case(
                &s.scene,
                &s.registry,
                s.recording.as_ref(),
                &cases[case],
                s.ticks,
            )
        })
    };
    let references: Vec<(usize, TimedRun)> =
        parallel(&touched, jobs, |&scene| (scene, run(scene, 0)));
    let reference_of = |scene: usize| references.iter().find(|(s, _)| *s == scene).map(|(_, r)| r);
    parallel(runs, jobs, |&at| {
        let outcome = if at.case == 0 {
            // Reported without its trace, which the other runs still read.
            let without_trace = |r: &CaseRun| CaseRun {
                trace: String::new(),
                ..*r
            };
            let (result, seconds) = match reference_of(at.scene) {
                Some((r, seconds)) => (
                    r.as_ref().map(without_trace).map_err(Clone::clone),
                    *seconds,
                ),
                None => run(at.scene, 0),
            };
            CaseOutcome {
                at,
                case: cases[0].clone(),
                run: result,
                diff: None,
                seconds,
            }
        } else {
            let (mut r, seconds) = run(at.scene, at.case);
            let reference = match reference_of(at.scene) {
                Some((Ok(reference), _)) => Ok(reference),
                Some((Err(e), _)) => Err(format!("the reference run failed: {e}")),
                None => Err("the reference did not run".to_string()),
            };
            let diff = match (&mut r, reference) {
                (Ok(r), Ok(reference)) => {
                    let d = compare_with_reference(&reference.trace, &r.trace);
                    r.trace = String::new();
                    Some(d)
                }
                (Ok(_), Err(e)) => {
                    r = Err(e);
                    None
                }
                (Err(_), _) => None,
            };
            CaseOutcome {
                at,
                case: cases[at.case].clone(),
                run: r,
                diff,
                seconds,
            }
        };
        done(&outcome);
        outcome
    })
}

/// Loads every scene and recording; an error is a bad argument (exit 2).
fn load_scenes(
    targets: Vec<CheckTarget>,
    ticks: Option<u64>,
    behaviours: &Behaviours,
) -> Result<Vec<SceneCheck>, String> {
    targets
        .into_iter()
        .map(|target| {
            let registry = behaviours.registry_for_scene(&target.scene);
            let scene = Scene::load(&target.scene, &registry).map_err(|e| e.to_string())?;
            let recording = match &target.input {
                Some(path) => Some(Recording::load(path).map_err(|e| e.to_string())?),
                None => None,
            };
            let ticks = ticks
                .or(recording.as_ref().map(|r| r.ticks))
                .unwrap_or(600)
                .max(1);
            Ok(SceneCheck {
                target,
                scene,
                registry,
                recording,
                ticks,
            })
        })
        .collect()
}

/// The progress line: drawn on stderr only when it is a terminal.
fn progress_bar(total: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total as u64),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) =
        indicatif::ProgressStyle::with_template("check [{bar:30}] {pos}/{len} runs {elapsed} {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// The table cell of a run.
fn result_cell(o: &CaseOutcome) -> String {
    match (&o.run, &o.diff) {
        (Err(e), _) => format!("FAILED: {e}"),
        (Ok(_), None) => "reference".to_string(),
        (Ok(_), Some(TraceDiff::Identical { .. })) => "match".to_string(),
        (Ok(_), Some(TraceDiff::Differs(d))) => {
            format!("DIFFERS: {}", d.first.headline(Sides::CHECK))
        }
        (Ok(_), Some(d)) => format!("DIFFERS: {d}"),
    }
}

/// The full report of a failing run (its JUnit failure text too).
fn full_report(o: &CaseOutcome) -> Option<String> {
    match (&o.run, &o.diff) {
        (Err(e), _) => Some(format!("could not run: {e}")),
        (Ok(_), Some(TraceDiff::Differs(d))) => Some(d.first.report(Sides::CHECK)),
        (Ok(_), Some(d @ TraceDiff::Length { .. })) => Some(d.to_string()),
        _ => None,
    }
}

fn print_tables(
    scenes: &[SceneCheck],
    outcomes: &[CaseOutcome],
    shard: Option<Shard>,
    jobs: usize,
) {
    for (k, scene) in scenes.iter().enumerate() {
        let rows: Vec<&CaseOutcome> = outcomes.iter().filter(|o| o.at.scene == k).collect();
        if rows.is_empty() {
            continue;
        }
        if k > 0 && outcomes.iter().any(|o| o.at.scene < k) {
            println!();
        }
        let shard = shard.map(|s| format!(", shard {s}")).unwrap_or_default();
        println!(
            "check {}: {} runs, ticks 1..={} compared with 60 Hz / accumulator ({jobs} jobs{shard})",
            scene.label(),
            rows.len(),
            scene.ticks
        );
        println!(
            "{:<36} {:<14} {:>7} {:>9} {:>6}  result",
            "pacing", "strategy", "frames", "dropped", "errors"
        );
        for o in rows {
            let (frames, dropped, errors) = match &o.run {
                Ok(r) => (
                    r.frames.to_string(),
                    format!("{:.3}", r.dropped_time),
                    r.errors.to_string(),
                ),
                Err(_) => ("-".into(), "-".into(), "-".into()),
            };
            println!(
                "{:<36} {:<14} {:>7} {:>9} {:>6}  {}",
                o.case.label(),
                o.case.strategy.name(),
                frames,
                dropped,
                errors,
                result_cell(o)
            );
        }
    }
}

/// The JUnit suites: one per scene the shard touched.
fn junit_suites(scenes: &[SceneCheck], outcomes: &[CaseOutcome]) -> Vec<junit::Suite> {
    let mut suites: Vec<junit::Suite> = Vec::new();
    for o in outcomes {
        let name = scenes[o.at.scene].label();
        if suites.last().is_none_or(|s| s.name != name) {
            suites.push(junit::Suite {
                name: name.clone(),
                cases: Vec::new(),
            });
        }
        let result = match (&o.run, full_report(o)) {
            (Err(e), _) => junit::CaseResult::Error { message: e.clone() },
            (Ok(_), Some(report)) => junit::CaseResult::Failure {
                message: report.lines().next().unwrap_or_default().to_string(),
                report,
            },
            (Ok(_), None) => junit::CaseResult::Passed,
        };
        if let Some(suite) = suites.last_mut() {
            suite.cases.push(junit::Case {
                name: o.case.name(),
                classname: name,
                seconds: o.seconds,
                result,
            });
        }
    }
    suites
}

/// Runs check (module docs) on scenes whose behaviours come from
/// `behaviours`. `matches` are the sub-command's own, to pair each
/// `--input` with its scene.
pub fn check(
    args: CheckArgs,
    matches: Option<&clap::ArgMatches>,
    behaviours: &Behaviours,
) -> ExitCode {
    let bad = |e: String| {
        eprintln!("stepframe check: {e}");
        ExitCode::from(2)
    };
    let scenes = match args
        .targets(matches)
        .and_then(|t| load_scenes(t, args.ticks, behaviours))
    {
        Ok(s) => s,
        Err(e) => return bad(e),
    };
    let junit_file = match &args.junit {
        Some(path) => match std::fs::File::create(path) {
            Ok(f) => Some(std::io::BufWriter::new(f)),
            Err(e) => return bad(format!("cannot create {}: {e}", path.display())),
        },
        None => None,
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(1)
    });
    let runs = args.shard.unwrap_or(Shard::ALL).runs(scenes.len());
    let bar = progress_bar(runs.len());
    let outcomes = run_matrix(&scenes, &runs, jobs, &|o| {
        bar.set_message(o.case.name());
        bar.inc(1);
    });
    bar.finish_and_clear();

    print_tables(&scenes, &outcomes, args.shard, jobs);
    let failures: Vec<&CaseOutcome> = outcomes.iter().filter(|o| o.failed()).collect();
    // The run that parts from its reference earliest says most; ties go to
    // matrix order.
    let earliest = failures.iter().min_by_key(|o| match &o.diff {
        Some(TraceDiff::Differs(d)) => d.first.tick,
        Some(TraceDiff::Length { common, .. }) => *common as u64 + 1,
        _ => 0,
    });
    if let Some(o) = earliest
        && let Some(report) = full_report(o)
    {
        println!(
            "\nfirst divergence: {}, {}\n{report}",
            scenes[o.at.scene].label(),
            o.case.name()
        );
    }
    let mut code = if failures.is_empty() {
        let compared = outcomes.iter().filter(|o| o.at.case != 0).count();
        if compared == 0 {
            println!("no run to compare with its reference in this shard");
        } else {
            println!(
                "all {compared} runs match the reference: the fixed logic is frame-rate independent"
            );
        }
        ExitCode::SUCCESS
    } else {
        println!("{} run(s) do not match the reference", failures.len());
        ExitCode::from(1)
    };
    if let (Some(out), Some(path)) = (junit_file, &args.junit)
        && let Err(e) = junit::write_junit(out, &junit_suites(&scenes, &outcomes))
    {
        eprintln!("stepframe check: {}: {e}", path.display());
        code = ExitCode::from(1);
    }
    code
}
