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

use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use super::cases::{CaseOutcome, CheckArgs, SceneCheck, compare_with_reference, load_scenes};
use super::matrix::{CaseRun, MatrixRun, Shard, check_matrix, run_case};
use super::{isolated, junit, verdict};
use crate::Behaviours;
use crate::player::Launch;

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
