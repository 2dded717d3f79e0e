//! the channels: telemetry, events and views in order.

use super::*;
use stepframe_app::editor::protocol::{BreakpointCommand, SceneCommand};

#[test]
fn an_unread_view_is_replaced_but_every_telemetry_frame_arrives() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(end, Pacing::Hz(60), None);
    ui.commands
        .send(Command::Scene(SceneCommand::Load {
            path: demo(),
            play: true,
        }))
        .expect("the worker end is alive");
    // A UI that does not read for 100 frames.
    for _ in 0..100 {
        assert!(w.pump(DT));
    }
    // One view waits: the newest (100 frames of 1/60 s at 60 Hz = tick 100).
    let views: Vec<_> = ui.views.try_iter().collect();
    assert_eq!(views.len(), 1);
    assert_eq!(views[0].clock.frame_index, 100);
    assert_eq!(views[0].clock.simulation_tick, 100);
    // Every frame's telemetry, in order, none lost, after the one load.
    let events: Vec<Event> = ui.events.try_iter().collect();
    let frames = frames_of(&events);
    assert_eq!(frames.len(), 100);
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f.clock.frame_index, i as u64 + 1);
        assert_eq!(f.report.ticks, 1);
    }
    let loaded: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::Loaded { .. }))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(loaded.len(), 1);
    let first_frames = events
        .iter()
        .position(|e| matches!(e, Event::Frames(_)))
        .expect("frames");
    assert!(
        loaded[0] < first_frames,
        "the load comes before its session's frames"
    );
}

#[test]
fn a_frames_telemetry_comes_before_the_log_lines_and_the_suspension_it_caused() {
    // faults.ron's first fault panics in Start at frame 1: the error line
    // names frame 1, whose record must already have arrived.
    let faults = demo().parent().expect("scenes").join("faults.ron");
    let (ui, mut w) = playing(faults);
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    let mut b = Breakpoint::on_hook(HookKind::FixedUpdate);
    b.condition.ticks = Some((3, 3));
    send(Command::Breakpoints(BreakpointCommand::Add(b)));
    pump(&mut w, 5);
    let events: Vec<Event> = ui.events.try_iter().collect();
    let mut seen_frames = 0u64;
    let mut checked = (0, 0);
    for e in &events {
        match e {
            Event::Frames(batch) => {
                seen_frames = batch.last().map_or(seen_frames, |f| f.report.frame_index)
            }
            Event::Log(lines) => {
                for line in lines {
                    assert!(
                        line.frame <= seen_frames,
                        "log of frame {} before its record (have {seen_frames})",
                        line.frame
                    );
                    checked.0 += 1;
                }
            }
            Event::Suspended(s) => {
                assert!(
                    s.frame <= seen_frames,
                    "suspension before its frame's record"
                );
                checked.1 += 1;
            }
            _ => {}
        }
    }
    assert!(
        checked.0 >= 1 && checked.1 == 1,
        "{checked:?} in {events:#?}"
    );
}

#[test]
fn suspension_and_resume_are_announced_once_each() {
    let (ui, mut w) = playing(demo());
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    w.pump(DT);
    // The player is object 20 in the demo; break in its FixedUpdate from tick 5.
    let mut b = Breakpoint::on(HookKind::FixedUpdate, ObjectId(20));
    b.condition.ticks = Some((5, 5));
    send(Command::Breakpoints(BreakpointCommand::Add(b)));
    pump(&mut w, 10);
    send(Command::Run(Run::Play));
    pump(&mut w, 3);
    let events: Vec<Event> = ui
        .events
        .try_iter()
        .filter(|e| matches!(e, Event::Suspended(_) | Event::Resumed))
        .collect();
    // A new worker is paused with nothing loaded; playing the scene resumes
    // it, the breakpoint suspends at the end of tick 5, Play resumes.
    assert_eq!(events.len(), 3, "{events:?}");
    assert!(matches!(events[0], Event::Resumed));
    match &events[1] {
        Event::Suspended(s) => {
            assert_eq!(s.tick, 5);
            assert!(s.end_of_tick);
            assert!(matches!(&s.reason, SuspendReason::Breakpoint(hit)
                if hit.object == ObjectId(20) && hit.hook == HookKind::FixedUpdate && hit.tick == 5));
        }
        other => panic!("expected a suspension, got {other:?}"),
    }
    assert!(matches!(events[2], Event::Resumed));
}

#[test]
fn the_paced_thread_runs_on_while_the_ui_reads_nothing() {
    let (ui, end) = worker::channels();
    let w = Worker::new(end, Pacing::Hz(60), None);
    let thread = worker::spawn(w, ui.commands.clone()).expect("a thread");
    ui.commands
        .send(Command::Scene(SceneCommand::Load {
            path: demo(),
            play: true,
        }))
        .expect("the worker is alive");
    // A frozen UI: nothing is read until the worker has run 36 frames (0.6 s
    // at 60 Hz on an idle machine; a loaded one takes longer, which changes
    // nothing here). The test only looks at how much is waiting in the
    // ordered channel, so the worker is never answered meanwhile.
    let t0 = Instant::now();
    while ui.events.len() < 40 {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the worker stopped with {} messages waiting for the UI",
            ui.events.len()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let frames = frames_of(&ui.events.try_iter().collect::<Vec<_>>());
    let views: Vec<_> = ui.views.try_iter().collect();
    assert_eq!(views.len(), 1, "latest wins: one view waiting");
    // Every frame so far is in the telemetry, and the last view is at most a
    // frame or two older than the last telemetry frame.
    let last = frames.last().map(|f| f.clock.frame_index).unwrap_or(0);
    assert_eq!(frames.len() as u64, last, "no frame lost");
    assert!(views[0].clock.frame_index <= last);
    // A worker blocked on the UI would have run at most one frame.
    assert!(last >= 30, "only {last} frames");
    // Paced at 60 Hz, never faster: frame k runs no earlier than its
    // deadline, (k - 1) periods after the first, however fast the machine.
    // (A late frame only moves later deadlines later.)
    let period = 1.0 / 60.0;
    let paced: f64 = frames[1..].iter().map(|f| f.real_dt).sum();
    assert!(
        paced >= (frames.len() - 1) as f64 * period * 0.99,
        "{} frames after the first in {paced} s: faster than 60 Hz",
        frames.len() - 1
    );
    // Pause is applied promptly and no frame runs after it.
    ui.commands.send(Command::Run(Run::Pause)).expect("alive");
    let t0 = Instant::now();
    let paused = loop {
        if let Ok(Event::Suspended(s)) = ui.events.recv_timeout(Duration::from_secs(30)) {
            break s;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "no suspension event"
        );
    };
    assert!(matches!(paused.reason, SuspendReason::Pause));
    // A negative check needs a window; a slow machine only makes it stricter
    // (no frame may run in it), so it cannot fail for want of speed.
    std::thread::sleep(Duration::from_millis(200));
    let later = frames_of(&ui.events.try_iter().collect::<Vec<_>>()).len();
    assert_eq!(later, 0, "frames ran while paused");
    drop(thread);
}
