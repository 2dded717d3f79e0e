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
/// `resume` while the last call ended suspended (its report's
/// `suspended`), at most `max_resumes` times (module docs). `resume` is
/// the call a host makes: straight on the pipeline, or through a
/// [`Session`](crate::Session) so it is logged.
pub fn finish_frame(
    mut report: FrameReport,
    mut resume: impl FnMut() -> FrameReport,
    max_resumes: u64,
) -> Result<WholeFrame, FrameNeverEnds> {
    let mut resumes = 0;
    while report.suspended.is_some() {
        if resumes == max_resumes {
            return Err(FrameNeverEnds { resumes });
        }
        resumes += 1;
        let more = resume();
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
    finish_frame(first, || p.resume(), max_resumes)
}

/// Runs `p` in whole outer frames of `dt` seconds until tick `target` is
/// complete, and stops exactly at its end (suspended there, as a rewind
/// stops: [`Pipeline::set_stop_after_tick`]); any other suspension on the
/// way is resumed, as a host with nobody at the controls does. What the
/// editor's what-if branch runs to stay in lockstep with the live session.
/// Gives up after `max_frames` frames or resumes, with the count. A
/// pipeline already at or past `target` is left as it is.
pub fn run_to_tick(
    p: &mut Pipeline,
    target: u64,
    dt: f64,
    max_frames: u64,
) -> Result<(), FrameNeverEnds> {
    if p.stepper().completed_ticks() >= target {
        return Ok(());
    }
    p.set_stop_after_tick(Some(target));
    let mut calls = 0;
    while p.stepper().completed_ticks() < target {
        if calls == max_frames {
            p.set_stop_after_tick(None);
            return Err(FrameNeverEnds { resumes: calls });
        }
        calls += 1;
        if p.suspension().is_some() {
            p.resume();
        } else {
            p.step_frame(dt);
        }
    }
    p.set_stop_after_tick(None);
    Ok(())
}
