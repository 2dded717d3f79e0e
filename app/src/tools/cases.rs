//! What `stepframe check` runs and what it found, below the runs
//! themselves: its arguments and each scene's target, the scenes loaded
//! with their recordings, one case's outcome and the comparison with the
//! reference run. [`check`](mod@super::check) runs the matrix, [`super::isolated`]
//! runs one case in a child process, [`super::verdict`] prints them; all
//! three read these, and none of these reads them.

use std::path::PathBuf;

use stepframe_core::{Recording, Registry, Scene};

use super::matrix::{CaseRun, CheckCase, MatrixRun, Shard};
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

/// Loads every scene and recording; an error is a bad argument (exit 2).
pub fn load_scenes(
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
