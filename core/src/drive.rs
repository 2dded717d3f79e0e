//! Driving a session with nobody at the controls: a headless run (the player,
//! `check`, the sync test, the soak) has no one to press Resume, so a frame
//! that suspends (a `request_break`, a fault under the Break policy) is
//! resumed at once until it ends, and its calls' reports are merged into the
//! frame's one report ([`FrameReport::absorb`]). A frame that suspends on
//! every resume would never end: after `max_resumes` resumes it is given up,
//! with the count.

use crate::pipeline::Pipeline;
use crate::report::FrameReport;

/// A frame that kept suspending: resumed this many times, still not ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a frame suspended {resumes} times in a row and never ended")]
pub struct FrameNeverEnds {
    /// Resumes made before giving up.
    pub resumes: u64,
}

/// One whole frame: the frame's report (merged over its resumes) and how
/// many suspensions were resumed.
#[derive(Clone, Debug, PartialEq)]
pub struct WholeFrame {
    /// The frame's report, every call merged.
    pub report: FrameReport,
    /// Suspensions resumed on the way.
    pub resumes: u64,
}

/// Takes the report of the call that started a frame, then resumes with
/// `resume` while `p` is suspended, at most `max_resumes` times (module
/// docs). `resume` is the call a host makes: straight on the pipeline, or
/// through the rewind history so it is logged.
pub fn finish_frame(
    p: &mut Pipeline,
    mut report: FrameReport,
    mut resume: impl FnMut(&mut Pipeline) -> FrameReport,
    max_resumes: u64,
) -> Result<WholeFrame, FrameNeverEnds> {
    let mut resumes = 0;
    while p.suspension().is_some() {
        if resumes == max_resumes {
            return Err(FrameNeverEnds { resumes });
        }
        resumes += 1;
        let more = resume(p);
        report.absorb(&more);
    }
    Ok(WholeFrame { report, resumes })
}

/// [`finish_frame`] for a frame of `dt` seconds straight on the pipeline.
pub fn run_frame(
    p: &mut Pipeline,
    dt: f64,
    max_resumes: u64,
) -> Result<WholeFrame, FrameNeverEnds> {
    let first = p.step_frame(dt);
    finish_frame(p, first, Pipeline::resume, max_resumes)
}
