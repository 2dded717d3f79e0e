//! The worker's channels, its own thread and the pacing loop that runs it.
//!
//! Pacing loop, at 60 Hz: the deadline of the next frame is the previous
//! deadline + 16.67 ms; until then the worker waits on the command channel
//! (so a step or pause takes effect within microseconds, not at the next
//! frame); at the deadline it runs a frame with the real time since the
//! previous one. A late frame moves the deadline to now + period rather than
//! bursting to catch up: the pipeline's accumulator already owes the ticks.
//! While suspended the worker waits on the channel and burns no CPU (it
//! wakes twice a second only to look at the scene's file, `scene_watch`;
//! while a plotted watch is being filled from the history it fills one span
//! a turn between commands until done), and the first frame after a resume
//! measures from the resume, not from the pause.
//! Uncapped pacing is the same loop at [`DisplayRate::UNCAPPED_MAX_HZ`] (240
//! frames a second): every per-frame consumer (the timeline's ring, the
//! rewind history's keyframe every 120 frames, the events the UI drains) is
//! sized for a rate, and an unbounded one fills them all in seconds.
//!
//! Recovery: hook panics are caught inside the pipeline, but a bug in the
//! worker itself would end its thread. [`spawn`] catches that unwind at the top
//! of the thread, hands the panic message to [`WorkerThread::stopped`] and wakes
//! the front end; the front end shows it and can start a new worker that does
//! the session's journal again ([`Command::Restore`]).
//!
//! A stuck hook: an endless loop in a behaviour never returns, so the thread
//! neither dies nor answers. The thread announces every hook call on a
//! [`HookBeacon`]; [`WorkerThread::hook_running`] reads it from the UI, which
//! times the call itself (`app`'s watchdog). [`WorkerThread::cpu_time`] reads
//! the thread's CPU time from `/proc` (the loop keeps a core busy), and
//! [`WorkerThread::detach`] walks away from it: the thread is left running
//! (nothing can stop it) while a new worker takes over.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TryRecvError};
use stepframe_core::{FramePacer, HookBeacon, HookCall};

use super::Worker;
use super::outbox::Waker;
use super::scene::SUSPENDED_LOOK_EVERY;
use crate::protocol::{Command, DisplayRate};

/// A worker running on its own thread; dropping it stops the thread.
#[derive(Debug)]
pub struct WorkerThread {
    /// For the shutdown command on drop.
    commands: Sender<Command>,
    /// The thread, joined on drop.
    join: Option<JoinHandle<()>>,
    /// How the thread ended: one message, sent as it ends.
    exit: Receiver<String>,
    /// The hook call the worker is inside, if any (written by its pipeline).
    beacon: HookBeacon,
    /// The thread's Linux task id, once it has started (for its CPU time).
    tid: Receiver<u32>,
    /// `tid` once read.
    tid_seen: std::cell::OnceCell<Option<u32>>,
}

impl WorkerThread {
    /// `None` while the worker runs; once its thread has ended, why: the panic
    /// message of a worker bug, or a note that it returned. Never blocks (the
    /// thread is joined on drop, not here), so the UI can ask every frame.
    pub fn stopped(&self) -> Option<String> {
        match self.exit.try_recv() {
            Ok(message) => Some(message),
            Err(TryRecvError::Empty) => self
                .join
                .as_ref()
                .filter(|j| j.is_finished())
                .map(|_| "the worker thread ended without saying why".to_string()),
            Err(TryRecvError::Disconnected) => {
                Some("the worker thread ended without saying why".to_string())
            }
        }
    }

    /// The hook call the worker's session is inside right now, if any. The
    /// same [`HookCall::call`] read again later means the same call is still
    /// running: the caller times it with its own clock.
    pub fn hook_running(&self) -> Option<HookCall> {
        self.beacon.current()
    }

    /// CPU time the worker thread has used so far, from
    /// `/proc/self/task/<tid>/schedstat` (nanoseconds), or `stat`'s user and
    /// system ticks at 100 a second where schedstat is missing. `None` off
    /// Linux or before the thread said who it is.
    pub fn cpu_time(&self) -> Option<Duration> {
        let tid = (*self.tid_seen.get_or_init(|| self.tid.try_recv().ok()))?;
        thread_cpu_time(tid)
    }

    /// Walks away from the thread without waiting for it: it is asked to shut
    /// down (which it does if its hook ever returns) and never joined. A
    /// thread stuck in an endless hook goes on running, and holding what it
    /// holds, until the process ends.
    pub fn detach(mut self) {
        let _ = self.commands.send(Command::Shutdown);
        // Dropping the handle detaches the thread; `Drop` then has nothing to join.
        drop(self.join.take());
    }
}

/// The Linux task id of the calling thread (`/proc/thread-self` points at
/// `<pid>/task/<tid>`).
fn current_tid() -> Option<u32> {
    let link = std::fs::read_link("/proc/thread-self").ok()?;
    link.file_name()?.to_str()?.parse().ok()
}

/// CPU time of task `tid` of this process (see [`WorkerThread::cpu_time`]).
fn thread_cpu_time(tid: u32) -> Option<Duration> {
    let task = format!("/proc/self/task/{tid}");
    if let Ok(text) = std::fs::read_to_string(format!("{task}/schedstat"))
        && let Some(ns) = text.split_whitespace().next().and_then(|n| n.parse().ok())
    {
        return Some(Duration::from_nanos(ns));
    }
    let stat = std::fs::read_to_string(format!("{task}/stat")).ok()?;
    // Fields after the command name (which may hold spaces, in parentheses):
    // utime and stime are the 14th and 15th fields, the 12th and 13th after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(11);
    let utime: u64 = fields.next()?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

impl Drop for WorkerThread {
    fn drop(&mut self) {
        let _ = self.commands.send(Command::Shutdown);
        if let Some(join) = self.join.take() {
            let _ = join.join();
        }
    }
}

/// Starts the worker `build` makes on a thread that paces itself (see the
/// module docs); it is built there, under the same catch. `commands` is a
/// sender on the worker's command channel, kept for shutdown. A panic
/// anywhere in the worker (outside the pipeline's own `catch_unwind` around
/// hooks) is caught at the top of the thread, after the worker and its
/// channels are dropped: its message goes to [`WorkerThread::stopped`] and
/// `waker` is called so the front end notices at once.
pub fn spawn(
    build: impl FnOnce() -> Worker + Send + 'static,
    commands: Sender<Command>,
    waker: Option<Waker>,
) -> std::io::Result<WorkerThread> {
    let (exit_tx, exit) = crossbeam_channel::bounded(1);
    let (tid_tx, tid) = crossbeam_channel::bounded(1);
    let beacon = HookBeacon::new();
    let announce = beacon.clone();
    let join = std::thread::Builder::new()
        .name("stepframe-worker".into())
        .spawn(move || {
            if let Some(id) = current_tid() {
                let _ = tid_tx.send(id);
            }
            // The worker is dropped by the unwind and never used again.
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                let mut worker = build();
                worker.set_hook_beacon(announce);
                run_paced(worker)
            }));
            let message = match outcome {
                Ok(()) => "the worker thread returned".to_string(),
                Err(payload) => panic_text(payload.as_ref()),
            };
            let _ = exit_tx.send(message);
            if let Some(wake) = waker {
                wake();
            }
        })?;
    Ok(WorkerThread {
        commands,
        join: Some(join),
        exit,
        beacon,
        tid,
        tid_seen: std::cell::OnceCell::new(),
    })
}

/// The message of a panic payload (`panic!` with a literal or a format string),
/// or a placeholder for any other payload.
pub fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with a non-text payload".to_string()
    }
}

/// Seed of the editor's irregular pacing (any fixed value: the same frames
/// every run).
const IRREGULAR_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// Frame lengths for [`DisplayRate::Irregular`]: core's seeded irregular deltas
/// (4 to 40 ms), with a 150 ms stall every 64 frames (longer than
/// `max_delta` × 0.5, so the step cap and dropped time show up in the
/// timeline).
fn irregular_pacer() -> FramePacer {
    FramePacer::irregular(IRREGULAR_SEED).with_stall_every(64, 0.150)
}

fn period(pacing: DisplayRate, irregular: &mut FramePacer) -> Duration {
    match pacing {
        DisplayRate::Hz(hz) => Duration::from_secs_f64(1.0 / f64::from(hz.max(1))),
        DisplayRate::Uncapped => {
            Duration::from_secs_f64(1.0 / f64::from(DisplayRate::UNCAPPED_MAX_HZ))
        }
        DisplayRate::Irregular => Duration::from_secs_f64(irregular.next_dt()),
    }
}

/// Applies `first` and every command already waiting, then answers the
/// newest view request of the batch. False once the worker must end.
fn apply_batch(worker: &mut Worker, first: Command, commands: &Receiver<Command>) -> bool {
    if !worker.handle(first) {
        return false;
    }
    while let Ok(command) = commands.try_recv() {
        if !worker.handle(command) {
            return false;
        }
    }
    worker.answer_requests();
    true
}

/// Runs `worker` on the calling thread, paced to its display rate (the
/// module docs' loop), until a [`Command::Shutdown`] or until its front end
/// is gone: what a host process's main thread does.
pub fn run_here(worker: Worker) {
    run_paced(worker);
}

fn run_paced(mut worker: Worker) {
    let commands = worker.out.commands().clone();
    let mut irregular = irregular_pacer();
    let mut cadence = Cadence::starting(Instant::now());
    let mut fills = FillPacer::default();
    loop {
        if worker.is_suspended() && worker.is_filling() {
            // Suspended with a plotted watch's history to fill: one span a
            // turn, answering any command first.
            match commands.try_recv() {
                Ok(command) => {
                    if !apply_batch(&mut worker, command, &commands) {
                        return;
                    }
                }
                Err(TryRecvError::Empty) => {
                    worker.fill_step_wide();
                }
                Err(TryRecvError::Disconnected) => return,
            }
            worker.publish();
            cadence = Cadence::starting(Instant::now());
            continue;
        }
        if worker.is_suspended() {
            // Nothing runs while suspended: wait for a command, looking at
            // the scene's file twice a second (`scene_watch`).
            worker.publish();
            match commands.recv_timeout(SUSPENDED_LOOK_EVERY) {
                Ok(command) => {
                    if !apply_batch(&mut worker, command, &commands) {
                        return;
                    }
                }
                Err(RecvTimeoutError::Timeout) => worker.look_at_scene_file(),
                Err(RecvTimeoutError::Disconnected) => return,
            }
            worker.publish();
            cadence = Cadence::starting(Instant::now());
            continue;
        }
        // Running: wait for the deadline, applying commands as they come.
        while let Some(wait) = cadence.wait(Instant::now()) {
            match commands.recv_timeout(wait) {
                Ok(command) => {
                    if !apply_batch(&mut worker, command, &commands) {
                        return;
                    }
                    if worker.is_suspended() {
                        break;
                    }
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        if worker.is_suspended() {
            continue;
        }
        let now = Instant::now();
        let p = period(worker.display_rate(), &mut irregular);
        let dt = cadence.frame(now, p);
        worker.frame(dt);
        // At most one span of a plotted watch's history fill a frame, in the
        // slack before the next frame (`watches`, [`FillPacer`]).
        if worker.is_filling() {
            let at = Instant::now();
            if fills.due(at, cadence.wait(at).unwrap_or_default()) {
                worker.fill_step();
                fills.ran(at, at.elapsed());
            }
        }
    }
}

/// A playing worker's frame deadlines: frame k runs no earlier than
/// (k − 1) periods after the first, however fast the machine, and a late
/// frame moves only the deadlines after it (the next is a period after
/// the late one, not a burst to catch up). Times are passed in, so the
/// cadence is tested on made-up instants rather than on the wall clock.
#[derive(Clone, Copy, Debug)]
struct Cadence {
    /// When the last frame ran (or the cadence started).
    last: Instant,
    /// When the next frame may run.
    deadline: Instant,
}

impl Cadence {
    /// A cadence whose first frame may run at `now`.
    fn starting(now: Instant) -> Cadence {
        Cadence {
            last: now,
            deadline: now,
        }
    }

    /// How long to wait at `now` before the next frame may run; `None`
    /// once it may.
    fn wait(&self, now: Instant) -> Option<Duration> {
        (now < self.deadline).then(|| self.deadline - now)
    }

    /// A frame runs at `now`, the next one period `period` after the
    /// deadline it met (or after `now`, if it ran a whole period late).
    /// Returns the real time since the last frame: the frame's delta.
    fn frame(&mut self, now: Instant, period: Duration) -> f64 {
        let dt = now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.deadline += period;
        if self.deadline < now {
            self.deadline = now + period;
        }
        dt
    }
}

/// When a playing worker runs a span of a plotted watch's history fill
/// (`watches`): only in the slack before the next frame's deadline, so the
/// live frames keep their cadence and the viewport stays smooth (a span a
/// frame, unconditionally, made every frame late by a span's replay for the
/// ~10 s a fill took). A span that never fits (a heavy world, a busy
/// machine) still runs once a second, so the fill finishes, at the cost of
/// one late frame a second rather than every frame.
#[derive(Debug, Default)]
struct FillPacer {
    /// What a span has been taking: the newest, or a quarter of the way
    /// from the old figure to it, whichever is larger (spans grow as the
    /// history's keyframes spread, and an estimate too low costs a frame).
    cost: Option<Duration>,
    /// When the last span ran.
    last: Option<Instant>,
}

impl FillPacer {
    /// A span runs at least this often, slack or not.
    const AT_LEAST_EVERY: Duration = Duration::from_secs(1);

    /// Whether a span may run at `now` with `slack` left before the next
    /// frame. The first runs at once: it measures what a span costs.
    fn due(&self, now: Instant, slack: Duration) -> bool {
        let Some(cost) = self.cost else {
            return true;
        };
        cost <= slack
            || self
                .last
                .is_none_or(|l| now.duration_since(l) >= FillPacer::AT_LEAST_EVERY)
    }

    /// A span ran at `at` and took `took`.
    fn ran(&mut self, at: Instant, took: Duration) {
        self.cost = Some(match self.cost {
            Some(c) => took.max((c * 3 + took) / 4),
            None => took,
        });
        self.last = Some(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fill_span_runs_in_the_slack_before_the_next_frame_or_once_a_second() {
        let ms = Duration::from_millis;
        let t0 = Instant::now();
        let mut f = FillPacer::default();
        assert!(f.due(t0, ms(0)), "the first span measures the cost");
        f.ran(t0, ms(6));
        // 6 ms spans: they fit 10 ms of slack, not 4.
        assert!(f.due(t0 + ms(16), ms(10)));
        assert!(!f.due(t0 + ms(16), ms(4)));
        // Without slack, one still runs once a second has passed.
        assert!(!f.due(t0 + ms(999), ms(0)));
        assert!(f.due(t0 + ms(1000), ms(0)));
        // A span that took longer raises the estimate at once; a shorter one
        // lowers it a quarter of the way.
        f.ran(t0 + ms(1000), ms(12));
        assert!(!f.due(t0 + ms(1016), ms(10)));
        f.ran(t0 + ms(2000), ms(4));
        assert_eq!(f.cost, Some(ms(10)));
        assert!(f.due(t0 + ms(2016), ms(10)));
    }

    #[test]
    fn frames_keep_to_their_deadlines_and_a_late_one_moves_only_the_ones_after() {
        let ms = Duration::from_millis;
        let t0 = Instant::now();
        let p = ms(16);
        let mut c = Cadence::starting(t0);
        assert_eq!(c.wait(t0), None, "the first frame runs at once");
        c.frame(t0, p);
        // Early: it waits out the rest of the period, never runs faster.
        assert_eq!(c.wait(t0 + ms(10)), Some(ms(6)));
        // A frame woken a little late keeps the grid: the next deadline is
        // two periods after the first, not a period after it ran.
        let dt = c.frame(t0 + ms(17), p);
        assert!((dt - 0.017).abs() < 1e-9, "{dt}");
        assert_eq!(c.wait(t0 + ms(17)), Some(ms(15)));
        // A frame a whole period late (a stall): the next is a period after
        // it, not a burst of frames to catch up.
        let dt = c.frame(t0 + ms(100), p);
        assert!((dt - 0.083).abs() < 1e-9, "{dt}");
        assert_eq!(c.wait(t0 + ms(100)), Some(p));
        assert_eq!(c.wait(t0 + ms(116)), None);
        // Over many frames run as soon as allowed, the rate is the period's.
        let mut c = Cadence::starting(t0);
        let mut now = t0;
        let mut total = 0.0;
        for _ in 0..60 {
            if let Some(w) = c.wait(now) {
                now += w;
            }
            total += c.frame(now, p);
        }
        assert!((total - 59.0 * 0.016).abs() < 1e-9, "{total}");
    }

    #[test]
    fn the_timeline_ring_holds_an_hour_at_every_pacing() {
        let mut irregular = irregular_pacer();
        for pacing in DisplayRate::CHOICES {
            // The shortest period the loop waits, against the ring's size.
            let shortest = match pacing {
                DisplayRate::Irregular => {
                    let dts: Vec<f64> = (0..6_400).map(|_| irregular.next_dt()).collect();
                    // Irregular frames vary: an hour of them is an hour of
                    // their mean.
                    dts.iter().sum::<f64>() / dts.len() as f64
                }
                _ => period(pacing, &mut irregular).as_secs_f64(),
            };
            let held = shortest * pacing.hour_of_frames() as f64;
            assert!(held >= 3_599.9, "{pacing:?}: the ring holds {held} s");
        }
        // Uncapped has a cap, and a frame is still shorter than a 60 Hz tick.
        let p = period(DisplayRate::Uncapped, &mut irregular);
        assert!(p >= Duration::from_secs_f64(1.0 / 240.0), "{p:?}");
        assert!(p.as_secs_f64() <= 0.25 / 60.0 + 1e-6, "{p:?}");
    }
}
