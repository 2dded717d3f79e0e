//! `stepframe run SCENE`: the scene in a window of its own, as a player
//! sees it, with no editor around it; `--debug` lets an editor attach.
//!
//! Both the window and `--headless` drive one [`Debugger`]: once per
//! frame, [`Debugger::frame`]`(raw_dt)` with the real time since the last
//! frame, then the newest live view is drawn with its presentation poses
//! (interpolated by `interpolation_alpha` between the last two committed
//! poses while running; the committed ones while suspended). That is the
//! same `step_frame` the editor's host calls, at the display's pace: eframe
//! waits for vsync between frames, and `--headless` sleeps to a fixed rate
//! (`--hz`, 60 by default) for machines without a display (CI).
//!
//! | key (window) | does |
//! |---|---|
//! | the scene's bindings | the scene's actions (input through its action map; gamepads too, module `gamepad`) |
//! | F3 | the clock overlay: clock fields, accumulator, dropped time |
//! | F6 | pause or resume: a paused frame does not call the pipeline, so neither clock advances |
//!
//! Closing the window ends the process (exit status 0); so does the end of
//! `--seconds N`, which bounds a run (tests, demos).
//!
//! With `--debug`, the player listens on 127.0.0.1 and prints one line on
//! its standard output, `attach 127.0.0.1:PORT token HEX` ([`AttachLine`]),
//! for the editor's Attach… (or its Run in player, which reads it). The
//! token is new each run; a connection without it is refused and logged
//! on stderr (`stepframe_host::debug`).

mod gamepad;
mod pacing;
mod window;

use std::cell::RefCell;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

use stepframe_host::debug::{AttachLine, Debugger};
use stepframe_host::protocol::DisplayRate;

use pacing::FramePacing;

/// `stepframe run`'s arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct RunArgs {
    /// The scene to play.
    pub scene: PathBuf,
    /// Listen on 127.0.0.1 for the editor, and print the address and the
    /// run's token (`attach ADDRESS token TOKEN`).
    #[arg(long)]
    pub debug: bool,
    /// No window: the same loop at a fixed rate (`--hz`), for machines
    /// without a display.
    #[arg(long)]
    pub headless: bool,
    /// Frames a second of `--headless` (the window follows the display);
    /// the display rate `--pacing-report` counts dropped frames against.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub hz: u32,
    /// End after this many seconds of real time.
    #[arg(long, value_name = "N")]
    pub seconds: Option<f64>,
    /// At the end, print how evenly the frames came: the mean and 99th
    /// percentile frame time, and the frames dropped against `--hz`.
    #[arg(long)]
    pub pacing_report: bool,
}

/// Runs `stepframe run` (module docs) for the game `name`
/// ([`crate::Game::new`]), whose name the window and its messages carry.
pub fn run(name: &str, args: RunArgs, behaviours: &crate::Behaviours) -> ExitCode {
    let (debugger, line) = match start(&args, behaviours) {
        Ok(started) => started,
        Err(e) => {
            eprintln!("{name} run: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(line) = line {
        // One line, flushed: the editor's Run in player reads it.
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
    let end = args
        .seconds
        .map(|s| Instant::now() + Duration::from_secs_f64(s.max(0.0)));
    let pacing = args
        .pacing_report
        .then(|| Rc::new(RefCell::new(FramePacing::default())));
    let status = if args.headless {
        headless(debugger, args.hz, end, pacing.clone())
    } else {
        window::run(name, debugger, &args.scene, end, pacing.clone())
    };
    if let Some(pacing) = pacing {
        let report = pacing.borrow().report(1.0 / f64::from(args.hz));
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{report}");
        let _ = out.flush();
    }
    status
}

/// The session on `args.scene`, playing, listening if `--debug`.
fn start(
    args: &RunArgs,
    behaviours: &crate::Behaviours,
) -> anyhow::Result<(Debugger, Option<AttachLine>)> {
    let scene = std::path::absolute(&args.scene)?;
    if !scene.is_file() {
        anyhow::bail!("no scene file at {}", scene.display());
    }
    let rate = if args.headless {
        DisplayRate::Hz(args.hz)
    } else {
        DisplayRate::Hz(60)
    };
    let mut debugger = Debugger::new(behaviours.registries(), rate);
    debugger.load(scene, true);
    let line = if args.debug {
        Some(debugger.listen()?)
    } else {
        None
    };
    Ok((debugger, line))
}

/// Prints the session's errors (a scene that does not load) on stderr;
/// true when the scene failed to load (nothing to play).
fn report_errors(debugger: &mut Debugger) -> bool {
    let mut fatal = false;
    for error in debugger.take_errors() {
        // Not `eprintln!`, which panics on a failed write: the editor that
        // started this player (Run in player) may have quit and closed
        // the pipe.
        let _ = writeln!(
            std::io::stderr(),
            "stepframe run: {}",
            crate::editor::words::error(&error)
        );
        fatal |= debugger.live().is_none_or(|l| l.scene_path.is_none());
    }
    fatal
}

/// The loop without a window: a frame every `1/hz` s of real time, each
/// handed the real time since the last (and recorded in `pacing`).
fn headless(
    mut debugger: Debugger,
    hz: u32,
    end: Option<Instant>,
    pacing: Option<Rc<RefCell<FramePacing>>>,
) -> ExitCode {
    let period = Duration::from_secs_f64(1.0 / f64::from(hz));
    let mut last = Instant::now();
    let mut next = last + period;
    let mut first = true;
    loop {
        let now = Instant::now();
        if end.is_some_and(|end| now >= end) {
            return ExitCode::SUCCESS;
        }
        let raw_dt = now.duration_since(last).as_secs_f64();
        if let Some(pacing) = &pacing
            && !first
        {
            pacing.borrow_mut().record(raw_dt);
        }
        first = false;
        last = now;
        if !debugger.frame(raw_dt) {
            return ExitCode::SUCCESS;
        }
        if report_errors(&mut debugger) {
            return ExitCode::FAILURE;
        }
        let now = Instant::now();
        if next > now {
            std::thread::sleep(next - now);
            next += period;
        } else {
            // Late: pace from now rather than run frames back to back.
            next = now + period;
        }
    }
}
