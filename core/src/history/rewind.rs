//! Going back: [`Session::rewind_to_tick`] restores the latest keyframe at
//! or before the target and replays the logged calls from it, with the
//! user's breakpoints set aside and a stop at the target's end, so the
//! session lands suspended at exactly the committed state it had then.
//! Worked numbers: keyframes every 120 frames at 60 Hz with one tick a
//! frame, a rewind to tick 250 restores the keyframe of tick 240 and
//! replays 10 ticks.

use super::*;

impl History {
    /// [`Session::rewind_to_tick`] on the session's pipeline `p`.
    pub(super) fn rewind_to_tick(
        &mut self,
        p: &mut Pipeline,
        target: u64,
    ) -> Result<(), RewindError> {
        let latest = self.latest_for(p.stepper().completed_ticks());
        let user_debugger = p.debugger().clone();
        let observer = p.take_tick_observer();
        let watch = p.take_tick_watch();
        let replayed = self.replay(p, latest, target);
        p.set_debugger(user_debugger);
        p.set_tick_observer(observer);
        p.set_tick_watch(watch);
        // The session stands somewhere else now (unless the rewind was
        // refused before touching it): no edit was made there yet.
        if !matches!(
            replayed,
            Err(RewindError::TooOld { .. }
                | RewindError::InTheFuture { .. }
                | RewindError::Corrupt { .. })
        ) {
            self.forget_undo();
        }
        let (start, end, tape) = replayed?;
        self.tape = tape;
        self.latest_tick = latest;
        self.position = end;
        self.partial = (end > start).then(|| (end - 1, target));
        Ok(())
    }

    /// [`Session::replay_into`]; `live_tick` is the live session's
    /// completed ticks.
    pub(super) fn replay_into(
        &self,
        scratch: &mut Pipeline,
        live_tick: u64,
        target: u64,
    ) -> Result<(), RewindError> {
        let latest = self.latest_for(live_tick);
        self.replay(scratch, latest, target).map(|_| ())
    }

    /// The latest tick a rewind may target, given the live session's ticks.
    fn latest_for(&self, live_tick: u64) -> u64 {
        self.latest_tick.max(if self.position == self.calls.len() {
            live_tick
        } else {
            0
        })
    }

    /// Restores the newest keyframe at or before `target` into `p` and
    /// replays the logged calls (with their recorded debuggers) until the end
    /// of `target`, leaving `p` suspended there. Returns the range of calls
    /// replayed and the tape in force at its end.
    fn replay(
        &self,
        p: &mut Pipeline,
        latest: u64,
        target: u64,
    ) -> Result<(usize, usize, Option<Replay>), RewindError> {
        let begun = self.begin(p, latest, target, target)?;
        run_calls(&self.calls, p, begun)
    }

    /// The first half of a replay: the newest keyframe at or before
    /// `from` (at most `target`; a replay over several keyframe spans
    /// starts from an older one than `target`'s own) restored into `p`
    /// (with its tape), and where the calls to replay from it start.
    pub(super) fn begin(
        &self,
        p: &mut Pipeline,
        latest: u64,
        from: u64,
        target: u64,
    ) -> Result<Begun, RewindError> {
        if target > latest {
            return Err(RewindError::InTheFuture { target, latest });
        }
        let from = from.min(target);
        let Some(k) = self
            .keyframes
            .iter()
            .rposition(|k| k.snapshot.tick() <= from)
        else {
            return Err(RewindError::TooOld {
                target,
                oldest: self.oldest_tick().unwrap_or(latest),
            });
        };
        let keyframe = &self.keyframes[k];
        keyframe
            .restore_into(p)
            .map_err(|error| RewindError::Corrupt {
                tick: keyframe.snapshot.tick(),
                error,
            })?;
        let tape = keyframe.tape.clone();
        if self.manages_tape {
            install(p, &tape);
        }
        Ok(Begun {
            start: (keyframe.call - self.first_call) as usize,
            tape,
            target,
        })
    }

    /// [`Session::replay_into_each`]: the keyframes restored here one after
    /// the other (`at_keyframe` sees each pipeline there), then every
    /// replay's calls run at once, a thread each.
    pub(super) fn replay_into_each(
        &self,
        live_tick: u64,
        jobs: &mut [(&mut Pipeline, u64, u64)],
        mut at_keyframe: impl FnMut(usize, &mut Pipeline),
    ) -> Vec<Result<(), RewindError>> {
        let latest = self.latest_for(live_tick);
        let begun: Vec<Result<Begun, RewindError>> = jobs
            .iter_mut()
            .enumerate()
            .map(|(i, (p, from, target))| {
                let b = self.begin(p, latest, *from, *target);
                if b.is_ok() {
                    at_keyframe(i, p);
                }
                b
            })
            .collect();
        // Each thread gets its own copy of the calls it replays: a logged
        // call may hold a made behaviour (a spawn), which is `Send` but not
        // `Sync`. A job's calls end at the next keyframe past its target
        // (the log's end without one): a span's worth, copied in microseconds.
        let owned: Vec<Result<(VecDeque<Logged>, Begun), RewindError>> = begun
            .into_iter()
            .map(|b| {
                let b = b?;
                let end = self
                    .keyframes
                    .iter()
                    .find(|k| k.snapshot.tick() > b.target)
                    .map_or(self.calls.len(), |k| (k.call - self.first_call) as usize);
                let calls: VecDeque<Logged> = self
                    .calls
                    .range(b.start..end.max(b.start))
                    .cloned()
                    .collect();
                Ok((calls, Begun { start: 0, ..b }))
            })
            .collect();
        std::thread::scope(|scope| {
            let runs: Vec<_> = jobs
                .iter_mut()
                .zip(owned)
                .map(|((p, _, _), job)| {
                    let p: &mut Pipeline = p;
                    scope.spawn(move || {
                        let (calls, b) = job?;
                        run_calls(&calls, p, b).map(|_| ())
                    })
                })
                .collect();
            runs.into_iter()
                .map(|run| {
                    run.join()
                        .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
                })
                .collect()
        })
    }

    /// Whether the session stands where a rewind left it, with the rewound
    /// branch still in the log (another rewind may go forward again): the
    /// next live call cuts it.
    pub fn rewound(&self) -> bool {
        self.position < self.calls.len() || self.partial.is_some()
    }

    /// Latest tick the log reaches (rewinds can go up to it).
    pub fn latest_tick(&self) -> u64 {
        self.latest_tick
    }
}

/// A replay whose keyframe is restored: where its calls start, the tape
/// in force there, and the tick it ends at.
#[derive(Debug)]
pub(super) struct Begun {
    /// Index in the log of the keyframe's first call.
    start: usize,
    /// The tape in force at the keyframe.
    tape: Option<Replay>,
    /// The tick the replay ends at.
    target: u64,
}

/// The second half of a replay ([`History::begin`]): the logged calls from
/// the keyframe (with their recorded debuggers) until the end of the
/// target tick, leaving `p` suspended there. Needs only the log, so a
/// replay can run on a thread of its own. Returns the range of calls
/// replayed and the tape in force at its end.
fn run_calls(
    calls: &VecDeque<Logged>,
    p: &mut Pipeline,
    begun: Begun,
) -> Result<(usize, usize, Option<Replay>), RewindError> {
    let Begun {
        start,
        mut tape,
        target,
    } = begun;
    let mut end = start;
    let mut reached = p.stepper().completed_ticks() == target;
    // The debugger in force at the keyframe is the one logged with the first
    // call after it (logging restarts at every keyframe).
    for (i, logged) in calls.iter().enumerate().skip(start) {
        if reached {
            break;
        }
        if let Some(d) = &logged.debugger {
            p.set_debugger(d.for_replay());
        }
        let stop = logged.stop_after.map_or(target, |s| s.min(target));
        p.set_stop_after_tick(Some(stop));
        if let Call::SetTape(t) = &logged.call {
            tape = t.clone();
        }
        replay(p, &logged.call);
        end = i + 1;
        // The first stop at the end of the target tick: the requested one, or
        // a recorded breakpoint that fired on that very tick.
        reached = p
            .suspension()
            .is_some_and(|s| s.end_of_tick && s.tick == target);
    }
    p.set_stop_after_tick(None);
    let now = p.stepper().completed_ticks();
    if now != target {
        return Err(RewindError::NotReached {
            target,
            reached: now,
        });
    }
    if p.suspension().is_none() {
        // Landed exactly on a keyframe, between frames: suspend there too.
        p.pause();
    }
    Ok((start, end, tape))
}

pub(super) fn replay(p: &mut Pipeline, call: &Call) -> FrameReport {
    match call {
        Call::Frame { dt, inputs } => {
            for e in inputs {
                p.push_input(e.clone());
            }
            p.step_frame(*dt)
        }
        Call::StepOneFrame { dt, inputs } => {
            // A frame stepped while suspended may be the rest of an interrupted
            // one, which begins no frame: the input goes to the next tick.
            for e in inputs {
                p.push_input_to_next_tick(e.clone());
            }
            p.step_one_frame(*dt)
        }
        Call::Resume { inputs } => {
            for e in inputs {
                p.push_input_to_next_tick(e.clone());
            }
            p.resume()
        }
        Call::StepTick { inputs } => {
            for e in inputs {
                p.push_input_to_next_tick(e.clone());
            }
            p.step_tick()
        }
        Call::Pause => {
            p.pause();
            not_run(p)
        }
        Call::SetTape(tape) => {
            install(p, tape);
            not_run(p)
        }
        Call::SetSettings(settings) => {
            // Checked when the call was logged: it cannot be refused now.
            let _ = p.set_settings(*settings);
            not_run(p)
        }
        Call::Edit(edit) => {
            // Applied when the call was logged, to this very state: a
            // replay applies it again the same way.
            if let Err(e) = p.apply_edit(edit) {
                p.log_line(
                    crate::world::LogLevel::Error,
                    format!("a logged edit did not apply again in a replay: {e}"),
                );
            }
            not_run(p)
        }
    }
}

/// The report of a call that runs nothing.
pub(super) fn not_run(p: &Pipeline) -> FrameReport {
    FrameReport {
        kind: crate::pipeline::FrameKind::NotRun,
        suspended: p.suspension().cloned(),
        ..FrameReport::default()
    }
}

/// Makes `tape` the pipeline's tick input (none: live input only).
pub(super) fn install(p: &mut Pipeline, tape: &Option<Replay>) {
    p.set_tick_input(
        tape.clone()
            .map(|t| Box::new(t) as Box<dyn TickInputSource>),
    );
}

/// Two debuggers with the same breakpoints (ids, filters, enabled, match counts).
pub(super) fn same_breakpoints(a: &Debugger, b: &Debugger) -> bool {
    a.breakpoints() == b.breakpoints()
}
