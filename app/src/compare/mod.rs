//! Two runs' ticks compared, for everyone who compares them: `trace-diff`
//! and `check` (two trace files, line by line) and the editor's Compare
//! with… (the live session as run A, a trace file or a fork as run B).
//! Keeping it here, beside both, is what makes "differs" mean the same in a
//! report and on screen: a field differs when its bits differ.
//!
//! [`poses`] (the session host's `traced`, which Compare with… and forks
//! measure with) holds a trace's pose records as numbers, the live
//! session's tick in the same form, and a tick of A against B.
//!
//! | module | what |
//! |---|---|
//! | [`tick`] | one tick's two records taken apart: objects, fields and ULPs, inputs, contacts, subsystems |

pub mod tick;

/// The pose records of a trace (the session host's: its Compare with… and
/// forks measure with them).
pub use stepframe_host::traced as poses;
