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
//! **Errors fail a run.** A run that logged an error (a hook panic, a script
//! error, a rejected write) fails, with its lines in the report and its JUnit
//! case a failure: a game whose FixedUpdate panics in every run is not
//! "frame-rate independent" because every run panics alike. Errors of objects
//! that carry a `Faulty` behaviour are injected on purpose and fail nothing,
//! the rule of `stepframe play` ([`super::verdict`]).
//!
//! **Each run in a process of its own** ([`super::isolated`]), so one run that
//! aborts, overflows its stack, runs out of memory or sticks in a hook fails
//! alone, named, and the others report; `--in-process` runs them on threads.
//!
//! Exit 0 when every run matches its reference and logged no error, 1 when
//! one does not (or logged one, or could not run, or the JUnit file could not
//! be written), 2 for bad arguments or a scene or recording that does not
//! load.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use stepframe_core::{Recording, Registry, Scene};

use super::matrix::{CaseRun, CheckCase, MatrixRun, Shard, check_matrix, run_case};
use super::trace_diff::{DiffOptions, Divergence, TraceDiff, diff_traces, diff_traces_with};
use super::{isolated, junit, verdict};
use crate::Behaviours;
use crate::compare::tick::{FieldDiff, TickDiff};
use crate::player::Launch;

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
    /// The supervisor's limits for each run's process, or none
    /// (`--in-process`: every run on a thread of this process).
    #[command(flatten)]
    pub isolation: crate::player::Isolation,
    /// A run's child process: the one run of the matrix to make,
    /// `<scene>:<case>` ([`super::isolated`]).
    #[arg(long, hide = true, value_name = "SCENE:CASE", requires = "run_out")]
    pub matrix_run: Option<MatrixRun>,
    /// A run's child process: where its result goes.
    #[arg(long, hide = true, value_name = "PATH", requires = "matrix_run")]
    pub run_out: Option<PathBuf>,
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
    /// Whether this run fails the check: it could not run, it does not
    /// match its reference, or it logged an error the scene did not inject
    /// on purpose.
    pub fn failed(&self) -> bool {
        self.run.is_err() || self.diverged() || !self.errors().is_empty()
    }

    /// Whether it ran and does not match its reference.
    pub fn diverged(&self) -> bool {
        self.diff
            .as_ref()
            .is_some_and(|d| !matches!(d, TraceDiff::Identical { .. }))
    }

    /// The error lines that fail it (none for a run that could not run).
    pub fn errors(&self) -> Vec<&str> {
        match &self.run {
            Ok(r) => r.unexpected_errors().map(|e| e.line.as_str()).collect(),
            Err(_) => Vec::new(),
        }
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

/// How one run of the matrix is made: on this thread
/// ([`run_in_this_process`]), or in a child process ([`super::isolated`]).
pub type Runner<'a> = dyn Fn(MatrixRun) -> Result<CaseRun, String> + Sync + 'a;

/// A runner that makes each run on the calling thread, with no beacon.
pub fn run_in_this_process(
    scenes: &[SceneCheck],
) -> impl Fn(MatrixRun) -> Result<CaseRun, String> + Sync + '_ {
    let cases = check_matrix();
    move |at: MatrixRun| {
        let s = &scenes[at.scene];
        run_case(
            &s.scene,
            &s.registry,
            s.recording.as_ref(),
            &cases[at.case],
            s.ticks,
            None,
        )
    }
}

/// Runs the given runs of the matrix with `runner`: first the references
/// of every scene they touch, then the other runs on `jobs` threads, each
/// compared with its reference as soon as it finishes (so only `jobs`
/// traces are in memory at once besides the references). `done` is called
/// once per finished run of `runs`. Outcomes come in `runs` order.
pub fn run_matrix(
    runs: &[MatrixRun],
    jobs: usize,
    runner: &Runner<'_>,
    done: &(dyn Fn(&CaseOutcome) + Sync),
) -> Vec<CaseOutcome> {
    let cases = check_matrix();
    let mut touched: Vec<usize> = runs.iter().map(|r| r.scene).collect();
    touched.dedup();
    let run = |scene: usize, case: usize| timed(|| runner(MatrixRun { scene, case }));
    let references: Vec<(usize, TimedRun)> =
        parallel(&touched, jobs, |&scene| (scene, run(scene, 0)));
    let reference_of = |scene: usize| references.iter().find(|(s, _)| *s == scene).map(|(_, r)| r);
    parallel(runs, jobs, |&at| {
        let outcome = if at.case == 0 {
            // Reported without its trace, which the other runs still read.
            let without_trace = |r: &CaseRun| CaseRun {
                trace: String::new(),
                errors: r.errors.clone(),
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
pub(super) fn load_scenes(
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

/// Runs check (module docs) on scenes whose behaviours come from
/// `behaviours`. `matches` are the sub-command's own, to pair each
/// `--input` with its scene. Each run goes in a child process of its own
/// unless `launch` runs everything here ([`super::isolated`]); a child made
/// for one run (`--matrix-run`) makes it and writes it out.
pub fn check(
    args: CheckArgs,
    matches: Option<&clap::ArgMatches>,
    behaviours: &Behaviours,
    launch: &Launch,
) -> ExitCode {
    let launch = launch.resolve(&args.isolation);
    if let (Some(at), Some(out)) = (args.matrix_run, &args.run_out) {
        return isolated::run_one(&args, matches, behaviours, at, out, launch.beacon());
    }
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
    let bar = verdict::progress_bar(runs.len());
    let here = run_in_this_process(&scenes);
    let children = match &launch {
        Launch::Supervise(line) => {
            match isolated::Children::new(line, &args.isolation, &scenes, bar.clone()) {
                Ok(c) => Some(c),
                Err(e) => {
                    eprintln!(
                        "stepframe check: cannot supervise the runs ({e}); --in-process runs them without a supervisor"
                    );
                    return ExitCode::from(1);
                }
            }
        }
        Launch::Here(_) => None,
    };
    let in_child = |at: MatrixRun| match &children {
        Some(c) => c.run(at),
        None => here(at),
    };
    let outcomes = run_matrix(&runs, jobs, &in_child, &|o| {
        bar.set_message(o.case.name());
        bar.inc(1);
    });
    bar.finish_and_clear();

    verdict::print_tables(&scenes, &outcomes, args.shard, jobs);
    let mut code = verdict::print_verdict(&scenes, &outcomes);
    if let (Some(out), Some(path)) = (junit_file, &args.junit)
        && let Err(e) = junit::write_junit(out, &verdict::junit_suites(&scenes, &outcomes))
    {
        eprintln!("stepframe check: {}: {e}", path.display());
        code = ExitCode::from(1);
    }
    code
}
