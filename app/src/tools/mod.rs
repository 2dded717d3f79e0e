//! `stepframe trace-diff` and `stepframe check`: proving fixed logic is
//! frame-rate independent, and when it is not, saying which state parted first.
//!
//! | module | what |
//! |---|---|
//! | [`trace_diff`](mod@trace_diff) | comparing two traces line by line, `--all` ranges; the `trace-diff` command |
//! | [`tick_diff`] | one tick's two records taken apart: objects, fields and ULPs, inputs, contacts, subsystems |
//! | [`report`] | the text form of a divergence, shared by `trace-diff`, `check` and `play --sync-test` |
//! | [`matrix`] | the pacing matrix, one in-memory run, shards of the scene × pacing matrix |
//! | [`check`](mod@check) | the `check` command: several scenes, the parallel runs, the table and the report |
//! | [`junit`] | `check --junit`: the runs as JUnit XML |
//! | [`trace_poses`] | a trace's pose records as numbers, and one tick of A against B (the editor's Compare with…) |

pub mod check;
pub mod junit;
pub mod matrix;
pub mod report;
pub mod tick_diff;
pub mod trace_diff;
pub mod trace_poses;

pub use check::{CheckArgs, check};
pub use report::Sides;
pub use trace_diff::{TraceDiff, TraceDiffArgs, diff_traces, trace_diff};
