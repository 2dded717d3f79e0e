//! `stepframe trace-diff` and `stepframe check`: proving fixed logic is
//! frame-rate independent, and when it is not, saying which state parted first.
//! What two ticks' records differ in is [`crate::compare`]'s, which the
//! editor's Compare with… uses too.
//!
//! | module | what |
//! |---|---|
//! | [`trace_diff`](mod@trace_diff) | comparing two traces line by line, `--all` ranges; the `trace-diff` command |
//! | [`report`] | the text form of a divergence, shared by `trace-diff`, `check` and `play --sync-test` |
//! | [`matrix`] | the pacing matrix, one in-memory run, shards of the scene × pacing matrix |
//! | [`cases`] | what `check` runs and found: its arguments, the scenes with their recordings, one case's outcome, the comparison with the reference |
//! | [`check`](mod@check) | the `check` command: several scenes, the parallel runs, comparing each with its reference |
//! | [`isolated`] | `check`'s runs in child processes: one run's abort, stack overflow, allocation failure or stuck hook fails that run alone |
//! | [`verdict`] | what `check` prints and writes once its runs are in: the tables, the first failures, the counts, the JUnit suites |
//! | [`junit`] | `check --junit`: the runs as JUnit XML |

pub mod cases;
pub mod check;
pub mod isolated;
pub mod junit;
pub mod matrix;
pub mod report;
pub mod trace_diff;
pub mod verdict;

pub use cases::CheckArgs;
pub use check::check;
pub use report::Sides;
pub use trace_diff::{TraceDiff, TraceDiffArgs, diff_traces, trace_diff};
