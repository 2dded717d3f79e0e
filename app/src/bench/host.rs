//! The session host in a child process (the editor's default) against the
//! host on a thread of the editor's own process (`edit --in-process`): the
//! same scene for both, in one run, rounds alternated where a round is
//! short enough to repeat, so a neighbour's load falls on both sides.
//!
//! | figure | what | target |
//! |---|---|---|
//! | `editor_frame_ms_child` | `editor_frame_ms` (the UI thread's CPU per frame, stress.ron live, 60 Hz) with a child host | ratio ≤ 1.10 against a host on a thread |
//! | `step_latency_ms` | a single-tick step (F10) sent to the new live view taken, demo.ron suspended, child host | median ≤ 2 ms |
//! | `host_stream_share` | frames a second at the uncapped display rate, a front end taking every view, stress.ron | child ≥ 0.95 of thread |
//! | `host_restart_ms` | the child host killed after 10 s of demo.ron to a new one restored and suspended | ≤ 1000 ms |
//! | `host_rss_ratio` | resident memory after 60 s of demo.ron live: the editor's process and its host's | ≤ 1.3 of the one-process editor |
//!
//! The editor figures (frame CPU, memory) draw the real [`Editor`]
//! headless (`super::editor_frame`), with
//! [`EditorConfig::process`] naming this executable as the host program,
//! which is what `stepframe edit` starts. The others need a front end with
//! no UI ([`FrontEnd::take`], as a soak has): a [`Host`] here is started
//! as the editor starts its own (its `host::start`, private to the
//! editor): a child of this executable run as `stepframe host`, with the
//! fault marker, the default limits and the build's handshake, or a worker
//! thread behind the in-process socket pair, each carrying every message
//! through the wire's codec. What differs from the editor: the child's
//! stdout is dropped and its stderr goes to the bench's own, where the
//! editor reads both into its Log.
//!
//! [`Editor`]: crate::editor::Editor

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use crossbeam_channel::{Receiver, RecvTimeoutError};
use stepframe_host::link::{self, Bridge};
use stepframe_host::protocol::{
    Command, DisplayRate, Event, JournalEntry, LiveView, Outbound, Run, SceneCommand,
};
use stepframe_host::supervise::{FaultMarker, Limits};
use stepframe_host::wire::{BuildId, Handshake, Role, child};
use stepframe_host::worker::{self, FrontEnd, Taken, Waker, Worker, WorkerThread};

use super::editor_frame::{FrameCost, Headless, stress_frame_cost};
use super::{Figure, Scenes};
use crate::editor::EditorConfig;

/// A bound on every wait, not a speed: a start, a load or a step takes
/// well under a second on an idle machine.
pub(super) const BOUND: Duration = Duration::from_secs(60);

/// Where a [`Host`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Place {
    /// A child process of this executable (`stepframe host`).
    Child,
    /// A worker thread of this process.
    Thread,
}

/// How a [`Host`] is run, and what its front end holds of it.
enum Runner {
    /// A child process.
    Child {
        /// The process (killed and reaped when the host is dropped).
        child: Child,
        /// The page its pipeline announces every hook call in: what names
        /// the tick a killed host died at.
        marker: FaultMarker,
        /// The bridge threads to its socket (held: they end with it).
        _bridge: Bridge,
    },
    /// A worker thread, stopped and joined when dropped.
    Thread {
        /// The thread.
        _thread: WorkerThread,
        /// The bridge threads of both ends (held: they end with it).
        _bridges: [Bridge; 2],
    },
}

/// A session host and a front end with no UI (module docs).
pub(super) struct Host {
    /// Commands out, everything the host sends in.
    pub(super) front: FrontEnd,
    /// A message arrived (the front end's waker, the editor's repaint).
    woke: Receiver<()>,
    /// Who runs the host.
    runner: Runner,
}

impl Host {
    /// A host at `place`, running frames at `rate`, started as the editor
    /// starts its own (module docs).
    pub(super) fn start(place: Place, rate: DisplayRate) -> anyhow::Result<Host> {
        let (wake, woke) = crossbeam_channel::bounded(1);
        let waker: Waker = std::sync::Arc::new(move || {
            let _ = wake.try_send(());
        });
        let (front, runner) = match place {
            Place::Child => {
                let program = std::env::current_exe().context("finding this executable")?;
                let marker = FaultMarker::create().context("creating the fault marker")?;
                let mut cmd = std::process::Command::new(&program);
                cmd.arg("host").stdin(Stdio::null()).stdout(Stdio::null());
                stepframe_host::supervise::configure(&mut cmd, &marker, &Limits::default());
                // Nobody relays a pipe here: what the host says goes to the
                // bench's own stderr.
                cmd.stderr(Stdio::inherit());
                let (child, connection) = child::spawn_host(
                    cmd,
                    &Handshake::expecting(Role::Editor, BuildId::of_executable(&program)),
                )
                .with_context(|| format!("starting {} host", program.display()))?;
                let (front, bridge) = link::connect(connection, Some(waker))?;
                front.send(Command::Run(Run::SetDisplayRate(rate)));
                let runner = Runner::Child {
                    child,
                    marker,
                    _bridge: bridge,
                };
                (front, runner)
            }
            Place::Thread => {
                let (front, end, bridges) = link::in_process(Some(waker.clone()))?;
                let end = end.with_waker(waker.clone());
                let registries = crate::Behaviours::built_in().registries();
                let build = move || Worker::new(end, rate, registries);
                let thread = worker::spawn(build, front.commands.clone(), Some(waker))?;
                let runner = Runner::Thread {
                    _thread: thread,
                    _bridges: bridges,
                };
                (front, runner)
            }
        };
        Ok(Host {
            front,
            woke,
            runner,
        })
    }

    /// Takes what the host sends ([`FrontEnd::take`]: each live view is
    /// acknowledged, so the host may send the next), waking when a message
    /// arrives, until `done` is true of a take.
    pub(super) fn take_until(
        &self,
        what: &str,
        mut done: impl FnMut(Taken) -> bool,
    ) -> anyhow::Result<()> {
        let deadline = Instant::now() + BOUND;
        loop {
            if done(self.front.take()) {
                return Ok(());
            }
            match self.woke.recv_deadline(deadline) {
                Ok(()) => {}
                Err(RecvTimeoutError::Timeout) => {
                    anyhow::bail!("waited {} s for {what}", BOUND.as_secs())
                }
                Err(RecvTimeoutError::Disconnected) => {
                    // Every message came before the last wake-up.
                    anyhow::ensure!(done(self.front.take()), "the host ended before {what}");
                    return Ok(());
                }
            }
        }
    }

    /// Opens `scene`, playing or suspended at tick 0 (the preview), and
    /// returns the first live view of it that says so.
    pub(super) fn load(&self, scene: &Path, play: bool) -> anyhow::Result<LiveView> {
        let path = std::path::absolute(scene).unwrap_or_else(|_| scene.to_path_buf());
        self.front
            .send(Command::Scene(SceneCommand::Load { path, play }));
        let (mut loaded, mut view) = (false, None);
        self.take_until("the scene to load", |taken| {
            loaded |= taken
                .events
                .iter()
                .any(|e| matches!(e, Event::Loaded { .. }));
            if loaded
                && let Some(live) = taken.live
                && live.world.suspension.is_some() != play
            {
                view = Some(live);
            }
            view.is_some()
        })?;
        view.context("the scene to load")
    }

    /// Suspends a playing session and waits for a live view that shows it.
    fn pause(&self) -> anyhow::Result<()> {
        self.front.send(Command::Run(Run::Pause));
        self.take_until("the pause", |taken| {
            taken.live.is_some_and(|v| v.world.suspension.is_some())
        })
    }

    /// One single tick (F10) of a suspended session: the wall time from
    /// the command sent to the live view past `tick` taken.
    fn step_tick(&self, tick: u64) -> anyhow::Result<Duration> {
        let sent = Instant::now();
        self.front.send(Command::Run(Run::StepTick));
        self.take_until("the stepped view", |taken| {
            taken
                .live
                .is_some_and(|v| v.world.clock.simulation_tick > tick)
        })?;
        Ok(sent.elapsed())
    }
}

impl Host {
    /// The CPU seconds (user and system) the child host has used so far;
    /// `None` for a host on a thread.
    pub(super) fn child_cpu_s(&self) -> Option<f64> {
        match &self.runner {
            Runner::Child { child, .. } => cpu_s(&child.id().to_string()),
            Runner::Thread { .. } => None,
        }
    }
}

/// The CPU seconds (user and system, every thread) process `pid` ("self"
/// for this one) has used, from `/proc/<pid>/stat` (clock ticks of 10 ms).
pub(super) fn cpu_s(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // utime and stime are the 12th and 13th fields after the name, which
    // may hold spaces.
    let mut after = stat[stat.rfind(')')? + 1..].split_whitespace().skip(11);
    let user: f64 = after.next()?.parse().ok()?;
    let system: f64 = after.next()?.parse().ok()?;
    Some((user + system) / 100.0)
}

impl Drop for Host {
    fn drop(&mut self) {
        if let Runner::Child { child, .. } = &mut self.runner
            && child.try_wait().ok().flatten().is_none()
        {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// The value at quantile `q` of `sorted` (nearest rank).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len().max(1));
    sorted.get(rank - 1).copied().unwrap_or(f64::NAN)
}

/// `editor_frame_ms_child`: `editor_frame_ms` with the host in a child
/// process, against the host on a thread; fresh editors, alternated, two
/// rounds of each (one with `--quick`), the cheaper round of each kept.
pub(super) fn editor_frame_child(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let scene = scenes.join("stress.ron");
    let program = std::env::current_exe().context("finding this executable")?;
    let rounds = if scale < 1.0 { 1 } else { 2 };
    let (mut child, mut thread): (Option<FrameCost>, Option<FrameCost>) = (None, None);
    let keep = |best: &mut Option<FrameCost>, cost: FrameCost| {
        if best.as_ref().is_none_or(|b| cost.total_ms() < b.total_ms()) {
            *best = Some(cost);
        }
    };
    for _ in 0..rounds {
        let c = stress_frame_cost(EditorConfig::process(scene.clone(), program.clone()), scale)?;
        keep(&mut child, c);
        keep(
            &mut thread,
            stress_frame_cost(EditorConfig::threaded(scene.clone()), scale)?,
        );
    }
    let (child, thread) = (
        child.context("no round ran")?,
        thread.context("no round ran")?,
    );
    Ok(vec![
        Figure::ratio(
            "editor_frame_ms_child",
            child.total_ms(),
            "ms UI CPU per frame",
            thread.total_ms(),
            format!(
                "the default workspace at 1600x1000 while stress.ron ({} objects) plays live, \
                 {} frames at 60 Hz, UI thread CPU, host in a child process ({:.2} ms run_ui + \
                 {:.2} ms tessellating, live tick {}) against the host on a thread ({:.2} + \
                 {:.2} ms, tick {}); cheaper of {rounds} alternated rounds each",
                child.objects,
                child.frames,
                child.layout_ms,
                child.tessellate_ms,
                child.tick,
                thread.layout_ms,
                thread.tessellate_ms,
                thread.tick,
            ),
        )
        .at_most(1.10),
    ])
}

/// `step_latency_ms`: single-tick steps of demo.ron, suspended, from the
/// command sent to the stepped live view taken; both hosts loaded once and
/// stepped in alternate blocks of 20, after 10 unmeasured steps each.
pub(super) fn step_latency(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let demo = scenes.join("demo.ron");
    let steps = ((200.0 * scale) as usize).max(40);
    let hosts = [
        Host::start(Place::Child, DisplayRate::default())?,
        Host::start(Place::Thread, DisplayRate::default())?,
    ];
    let mut ticks = [0; 2];
    for (h, tick) in hosts.iter().zip(&mut ticks) {
        *tick = h.load(&demo, false)?.world.clock.simulation_tick;
        for _ in 0..10 {
            h.step_tick(*tick)?;
            *tick += 1;
        }
    }
    let mut ms: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    while ms[0].len() < steps {
        for (i, h) in hosts.iter().enumerate() {
            for _ in 0..20.min(steps - ms[i].len()) {
                ms[i].push(h.step_tick(ticks[i])?.as_secs_f64() * 1000.0);
                ticks[i] += 1;
            }
        }
    }
    for v in &mut ms {
        v.sort_by(f64::total_cmp);
    }
    let [child, thread] = &ms;
    let median = quantile(child, 0.5);
    Ok(vec![
        Figure::value(
            "step_latency_ms",
            median,
            "ms median",
            format!(
                "{steps} single-tick steps (Run::StepTick, F10) of demo.ron, suspended, from the \
                 command sent to the stepped live view taken by a front end with no UI, host in a \
                 child process: median {median:.3} ms, p99 {:.3} ms, max {:.3} ms; the host on a \
                 thread, stepped in alternate blocks of 20: median {:.3} ms, p99 {:.3} ms",
                quantile(child, 0.99),
                quantile(child, 1.0),
                quantile(thread, 0.5),
                quantile(thread, 0.99),
            ),
        )
        .at_most(2.0),
    ])
}

/// What one window of play at the uncapped rate measured.
#[derive(Clone, Copy, Debug, Default)]
struct Stream {
    /// Frames the host ran a second, by its own clock (frames counted in
    /// the telemetry over the real time it measured for them).
    fps: f64,
    /// Live views the front end took a second, by the wall clock.
    views_per_s: f64,
}

/// One window of `window` of play at the uncapped rate on `host`, after
/// a quarter second unmeasured; the session is suspended again after.
fn stream_round(host: &Host, window: Duration) -> anyhow::Result<Stream> {
    host.front.send(Command::Run(Run::Play));
    let settle = Instant::now() + Duration::from_millis(250);
    host.take_until("the session to play", |_| Instant::now() >= settle)?;
    let (mut frames, mut real, mut views) = (0usize, 0.0, 0usize);
    let start = Instant::now();
    host.take_until("the window to pass", |taken| {
        for e in &taken.events {
            if let Event::Frames(batch) = e {
                frames += batch.len();
                real += batch.iter().map(|f| f.real_dt).sum::<f64>();
            }
        }
        views += usize::from(taken.live.is_some());
        start.elapsed() >= window
    })?;
    let wall = start.elapsed().as_secs_f64();
    host.pause()?;
    Ok(Stream {
        fps: frames as f64 / real.max(f64::MIN_POSITIVE),
        views_per_s: views as f64 / wall,
    })
}

/// `host_stream_share`: frames a second at the uncapped display rate with
/// a front end taking every view, stress.ron (its live view is the
/// largest the bundled scenes send), child host against the host on a
/// thread: both loaded once, then three alternated windows of 2 s each
/// (0.5 s with `--quick`), the other host suspended meanwhile; the best
/// window of each kept.
pub(super) fn stream_share(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let stress = scenes.join("stress.ron");
    let window = Duration::from_secs_f64((2.0 * scale).max(0.5));
    let hosts = [
        Host::start(Place::Child, DisplayRate::Uncapped)?,
        Host::start(Place::Thread, DisplayRate::Uncapped)?,
    ];
    for h in &hosts {
        h.load(&stress, false)?;
    }
    let mut best = [Stream::default(); 2];
    for _ in 0..3 {
        for (h, best) in hosts.iter().zip(&mut best) {
            let s = stream_round(h, window)?;
            best.fps = best.fps.max(s.fps);
            best.views_per_s = best.views_per_s.max(s.views_per_s);
        }
    }
    let [child, thread] = best;
    let cap = DisplayRate::UNCAPPED_MAX_HZ;
    Ok(vec![
        Figure::ratio(
            "host_stream_share",
            child.fps,
            "frames/s",
            thread.fps,
            format!(
                "stress.ron at the uncapped display rate (at most {cap} frames a second), a front \
                 end with no UI taking every live view: host in a child process {:.1} frames/s \
                 ({:.1} views/s taken) against the host on a thread {:.1} frames/s ({:.1} \
                 views/s); frames by the host's own clock, best of 3 alternated {:.1} s windows \
                 each",
                child.fps,
                child.views_per_s,
                thread.fps,
                thread.views_per_s,
                window.as_secs_f64(),
            ),
        )
        .at_least(0.95),
    ])
}

/// Journal entries in the events of `taken`, appended to `journal`.
pub(super) fn keep_journal(journal: &mut Vec<JournalEntry>, events: Vec<Event>) {
    for e in events {
        if let Event::Journal(entries) = e {
            journal.extend(entries);
        }
    }
}

/// Sends `journal` to `host` as a restart does (or a rebuild, with
/// `fresh_files`) and waits for the session restored, suspended, at the
/// tick `Restored` names: the time of its `Restored` event and of that live
/// view, from now.
pub(super) fn restore(
    host: &Host,
    journal: Vec<JournalEntry>,
    stop_after: Option<u64>,
    fresh_files: bool,
) -> anyhow::Result<(Duration, Duration, u64)> {
    let start = Instant::now();
    host.front.send(Command::Restore {
        journal,
        stop_after,
        fresh_files,
    });
    let (mut restored, mut at) = (None, None);
    host.take_until("the session restored", |taken| {
        for e in &taken.events {
            if let Event::Restored { tick, .. } = e {
                restored = Some((*tick, start.elapsed()));
            }
        }
        if let Some((tick, _)) = restored
            && taken.live.is_some_and(|v| {
                v.world.suspension.is_some() && v.world.clock.simulation_tick == tick
            })
        {
            at = Some(start.elapsed());
        }
        at.is_some()
    })?;
    let (tick, event) = restored.context("no Restored event")?;
    Ok((event, at.context("no restored view")?, tick))
}

/// `host_restart_ms`: demo.ron played for 10 s of simulated time (1 s with
/// `--quick`) at 60 Hz on a child host, the front end keeping the journal
/// as the editor does; the child killed (SIGKILL), and timed from the kill
/// to a new child's restored live view: the link's end and the reaping,
/// the new child's start and handshake, the journal done again up to the
/// tick before the one the marker names (as the editor's restart stops),
/// and the view. The same journal restored in a host on a thread is the
/// reference, printed in the note.
pub(super) fn restart(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let demo = scenes.join("demo.ron");
    let play_ticks = ((600.0 * scale) as u64).max(60);
    let rate = DisplayRate::default();
    let mut host = Host::start(Place::Child, rate)?;
    let mut journal = Vec::new();
    let path = std::path::absolute(&demo).unwrap_or(demo);
    host.front
        .send(Command::Scene(SceneCommand::Load { path, play: true }));
    let mut tick = 0;
    host.take_until("10 s of play", |taken| {
        if let Some(v) = &taken.live {
            tick = v.world.clock.simulation_tick;
        }
        keep_journal(&mut journal, taken.events);
        tick >= play_ticks
    })?;
    let Runner::Child { child, marker, .. } = &mut host.runner else {
        anyhow::bail!("the restart figure's host is not a child process");
    };
    let killed = Instant::now();
    child.kill().context("killing the host")?;
    // What the host sent before it died still counts: read to the link's end.
    loop {
        match host.front.inbound.recv_deadline(killed + BOUND) {
            Ok(Outbound::Event(e)) => keep_journal(&mut journal, vec![*e]),
            Ok(_) => {}
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => anyhow::bail!("the killed host's link never ended"),
        }
    }
    let status = child.wait().context("reaping the host")?;
    let noticed = killed.elapsed();
    let fault_tick = marker
        .beacon()
        .current()
        .map_or(marker.beacon().last_tick(), |c| c.tick);
    let stop_after = Some(fault_tick.saturating_sub(1));
    drop(host);
    let entries = journal.len();
    let frames = journal
        .iter()
        .filter(|e| matches!(e, JournalEntry::Frame { .. }))
        .count();
    let new = Host::start(Place::Child, rate)?;
    let up = killed.elapsed();
    let (event, view, at) = restore(&new, journal.clone(), stop_after, false)?;
    let total = up + view;
    drop(new);
    let thread_start = Instant::now();
    let reference = Host::start(Place::Thread, rate)?;
    let thread_up = thread_start.elapsed();
    let (_, thread_view, thread_at) = restore(&reference, journal, stop_after, false)?;
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    Ok(vec![
        Figure::value(
            "host_restart_ms",
            ms(total),
            "ms",
            format!(
                "demo.ron played live at 60 Hz to tick {tick} on a child host, killed ({status}); \
                 from the kill: link ended and host reaped at {:.1} ms, a new child started and \
                 past its handshake at {:.1} ms, Restored (the journal's {entries} entries, \
                 {frames} frames, done again to tick {at}, stop_after {}) at {:.1} ms, its \
                 suspended live view taken at {:.1} ms. The same journal restored in a new host \
                 on a thread: {:.1} ms to start, {:.1} ms to its view at tick {thread_at}",
                ms(noticed),
                ms(up),
                fault_tick.saturating_sub(1),
                ms(up + event),
                ms(total),
                ms(thread_up),
                ms(thread_up + thread_view),
            ),
        )
        .at_most(1000.0),
    ])
}

/// Resident memory of a process, KiB, from `/proc/<pid>/status`.
#[derive(Clone, Copy, Debug)]
struct Rss {
    /// `VmRSS`: all of it.
    total: u64,
    /// `RssAnon`: the heap and the stacks, what a heap trim hands back.
    anon: u64,
}

impl Rss {
    /// The rest: the executable's and the libraries' pages touched (code,
    /// data) and shared memory, which stay resident once touched.
    fn mapped(self) -> u64 {
        self.total.saturating_sub(self.anon)
    }
}

/// The resident memory of process `pid` ("self" for this one).
fn rss(pid: &str) -> anyhow::Result<Rss> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).with_context(|| {
        format!("reading /proc/{pid}/status (resident memory is read from procfs)")
    })?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .with_context(|| format!("no {name} in /proc/{pid}/status"))
    };
    Ok(Rss {
        total: field("VmRSS:")?,
        anon: field("RssAnon:")?,
    })
}

/// The one child of this process running `host`: the headless editor's
/// session host.
fn host_child_pid() -> anyhow::Result<String> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").context("listing /proc")? {
        let Ok(entry) = entry else { continue };
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The parent is the second field after the name, which may hold spaces.
        let parent = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().nth(1));
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let host = cmdline.split(|&b| b == 0).nth(1) == Some(b"host".as_slice());
        if parent == Some(me.as_str()) && host {
            found.push(pid);
        }
    }
    anyhow::ensure!(
        found.len() == 1,
        "expected one host child of this process, found {}",
        found.len()
    );
    Ok(found.remove(0))
}

/// The resident memory of a fresh process of this executable: a child
/// host, started and past its first live view, with no scene. What the
/// editor's own process holds before it has done anything, here where
/// this process already holds what earlier figures left.
fn fresh_process_kib() -> anyhow::Result<u64> {
    let host = Host::start(Place::Child, DisplayRate::default())?;
    host.take_until("the idle host's first view", |taken| taken.live.is_some())?;
    let Runner::Child { child, .. } = &host.runner else {
        anyhow::bail!("not a child");
    };
    Ok(rss(&child.id().to_string())?.total)
}

/// What [`editor_rss`] read, KiB.
struct Resident {
    /// This process, before the editor started.
    before: Rss,
    /// This process, after the play.
    after: Rss,
    /// The editor's host child after the play, if it has one.
    host: Option<u64>,
}

/// The headless editor `config` describes, drawn at 60 Hz for `play` of
/// demo.ron live once the scene plays: this process's resident memory
/// before and then, and the host child's, if it has one.
fn editor_rss(config: EditorConfig, play: Duration) -> anyhow::Result<Resident> {
    let child = matches!(config.driver, crate::editor::Driver::Process { .. });
    let before = rss("self")?;
    let mut editor = Headless::start(config)?;
    let deadline = Instant::now() + BOUND;
    while editor.live().is_none_or(|(tick, _)| tick == 0) {
        anyhow::ensure!(
            Instant::now() < deadline,
            "demo.ron never played in the editor"
        );
        editor.paced_frame();
    }
    let start = Instant::now();
    while start.elapsed() < play {
        editor.paced_frame();
    }
    let live = editor.app().published().worker_stopped.is_none();
    anyhow::ensure!(live, "the editor's host stopped while demo.ron played");
    let after = rss("self")?;
    let host = if child {
        Some(rss(&host_child_pid()?)?.total)
    } else {
        None
    };
    Ok(Resident {
        before,
        after,
        host,
    })
}

/// Hands the heap's free pages back to the system (glibc's
/// `malloc_trim(0)`, every arena), so memory an editor freed is not still
/// resident when the next one is measured: the next would reuse it and
/// seem to grow by less. Nothing elsewhere (off glibc the figure says the
/// heap was not trimmed).
fn trim_heap() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: malloc_trim takes no pointer and may be called at any
        // time from any thread: it takes each arena's lock in turn.
        unsafe {
            malloc_trim(0);
        }
        true
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    false
}

/// `host_rss_ratio`: resident memory after 60 s of demo.ron live (6 s
/// with `--quick`) in the headless editor, the editor's process and its
/// host child together, against the one-process editor (host on a thread).
/// One run of each (a minute each is too long to repeat).
///
/// Both editors run in this process, which is not a fresh one: so each
/// editor's process counts as a fresh process of this executable (an idle
/// host child's `VmRSS`) plus what the editor grew this one by. The
/// two-process editor runs first, so in a fresh bench (`--only`) its growth
/// is all its own. The one-process editor runs second, the heap trimmed
/// before it ([`trim_heap`]): its heap and stacks (`RssAnon`) count from its
/// own start, and its mapped pages (the executable's code and data touched,
/// which no trim hands back) from before the first, since the editor code
/// the first touched is code it runs too. Pages only the first touched (the
/// child's start, its output relay) then count for it, a small lean in the
/// child's favour. The note gives the second's growth counted all from its
/// own start (what it reused from the first counts for nothing: the ratio's
/// upper bound) and all from before the first (everything the first left
/// counts for it: the lower bound).
pub(super) fn rss_ratio(scale: f64, scenes: &Scenes) -> anyhow::Result<Vec<Figure>> {
    let demo = scenes.join("demo.ron");
    let play = Duration::from_secs_f64((60.0 * scale).max(6.0));
    let program = std::env::current_exe().context("finding this executable")?;
    let fresh = fresh_process_kib()? as f64;
    let trimmed = trim_heap();
    let two = editor_rss(EditorConfig::process(demo.clone(), program), play)?;
    trim_heap();
    let one = editor_rss(EditorConfig::threaded(demo), play)?;
    let host = two.host.context("the two-process editor's host child")? as f64;
    let grown = |after: u64, before: u64| after as f64 - before as f64;
    let editor = fresh + grown(two.after.total, two.before.total);
    let one_process = fresh
        + grown(one.after.anon, one.before.anon)
        + grown(one.after.mapped(), two.before.mapped());
    let own_start = fresh + grown(one.after.total, one.before.total);
    let before_first = fresh + grown(one.after.total, two.before.total);
    let mib = |kib: f64| kib / 1024.0;
    let ratio = |one_process: f64| (editor + host) / one_process;
    Ok(vec![
        Figure::ratio(
            "host_rss_ratio",
            mib(editor + host),
            "MiB resident",
            mib(one_process),
            format!(
                "VmRSS after {:.0} s of demo.ron live in the headless editor (default workspace \
                 at 60 Hz; no window, no GPU): editor process {:.1} MiB + host child {:.1} MiB, \
                 run first, against the one-process editor {:.1} MiB. Each editor process \
                 counted as a fresh process of this executable ({:.1} MiB, an idle host child) \
                 plus what it grew this one by (heap trimmed before each: {trimmed}; this \
                 process held {:.1} MiB before the first, {:.1} MiB before the second); the \
                 one-process editor's growth all counted from its own start: ratio {:.3}, all \
                 from before the first: {:.3}",
                play.as_secs_f64(),
                mib(editor),
                mib(host),
                mib(one_process),
                mib(fresh),
                mib(two.before.total as f64),
                mib(one.before.total as f64),
                ratio(own_start),
                ratio(before_first),
            ),
        )
        .at_most(1.3),
    ])
}
