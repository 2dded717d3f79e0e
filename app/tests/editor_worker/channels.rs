//! the channels: telemetry, events and views in order.

use super::*;
use stepframe_app::editor::protocol::{BreakpointCommand, Outbound, Run, SceneCommand};

#[test]
fn an_unread_view_holds_back_the_next_but_every_telemetry_frame_arrives() {
    let (ui, end) = worker::channels();
    let mut w = Worker::new(
        end,
        DisplayRate::Hz(60),
        stepframe_app::Behaviours::built_in().registries(),
    );
    ui.send(Command::Scene(SceneCommand::Load {
        path: demo(),
        play: true,
    }));
    // A UI that does not read for 100 frames.
    for _ in 0..100 {
        assert!(w.pump(DT));
    }
    // One view waits, never a backlog: at most one is in flight.
    let mut held = Vec::new();
    let waiting: Vec<_> = ui
        .inbound
        .try_iter()
        .filter_map(|m| match m {
            Outbound::Live(v) => Some(*v),
            Outbound::Event(e) => {
                held.push(*e);
                None
            }
            Outbound::Past(_) => panic!("no past view was asked for"),
        })
        .collect();
    assert_eq!(waiting.len(), 1);
    // Once the UI takes it, the next one is the newest state (101 frames of
    // 1/60 s at 60 Hz = tick 101), not the backlog's next.
    ui.send(Command::ViewTaken);
    assert!(w.pump(DT));
    let taken = ui.take();
    let newest = taken.live.expect("the next view");
    assert_eq!(newest.world.clock.frame_index, 101);
    assert_eq!(newest.world.clock.simulation_tick, 101);
    // Every frame's telemetry, in order, none lost, after the one load.
    let mut events = held;
    events.extend(taken.events);
    let frames = frames_of(&events);
    assert_eq!(frames.len(), 101);
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
    let mut h = playing(faults);
    let mut b = Breakpoint::on_hook(HookKind::FixedUpdate);
    b.condition.ticks = Some((3, 3));
    h.send(Command::Breakpoints(BreakpointCommand::Add(b)));
    pump(&mut h, 5);
    let events: Vec<Event> = h.events();
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
    let mut h = playing(demo());
    h.pump(DT);
    // The player is object 20 in the demo; break in its FixedUpdate from tick 5.
    let mut b = Breakpoint::on(HookKind::FixedUpdate, ObjectId(20));
    b.condition.ticks = Some((5, 5));
    h.send(Command::Breakpoints(BreakpointCommand::Add(b)));
    pump(&mut h, 10);
    h.send(Command::Run(Run::Play));
    pump(&mut h, 3);
    let events: Vec<Event> = h
        .events()
        .into_iter()
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
    let registries = stepframe_app::Behaviours::built_in().registries();
    let build = move || Worker::new(end, DisplayRate::Hz(60), registries);
    let thread = worker::spawn(build, ui.commands.clone(), None).expect("a thread");
    ui.send(Command::Scene(SceneCommand::Load {
        path: demo(),
        play: true,
    }));
    // A frozen UI: no view is taken until the worker has run 36 frames
    // (0.6 s at 60 Hz on an idle machine; a loaded one takes longer, which
    // changes nothing here). The test only collects what arrives on the
    // ordered channel and never says it took the view, so the worker is
    // never answered meanwhile.
    let t0 = Instant::now();
    let (mut events, mut views) = (Vec::new(), Vec::new());
    while frames_of(&events).len() < 36 {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "the worker stopped after {} frames with nobody taking its view",
            frames_of(&events).len()
        );
        std::thread::sleep(Duration::from_millis(5));
        for message in ui.inbound.try_iter() {
            match message {
                Outbound::Event(e) => events.push(*e),
                Outbound::Live(v) => views.push(*v),
                Outbound::Past(_) => panic!("no past view was asked for"),
            }
        }
    }
    let frames = frames_of(&events);
    assert_eq!(views.len(), 1, "one view in flight, never a backlog");
    // Every frame so far is in the telemetry, and the view is no newer than
    // the last telemetry frame.
    let last = frames.last().map(|f| f.clock.frame_index).unwrap_or(0);
    assert_eq!(frames.len() as u64, last, "no frame lost");
    assert!(views[0].world.clock.frame_index <= last);
    // A worker blocked on the UI would have run at most one frame. (That
    // the frames keep to 60 Hz deadlines is the host's `Cadence`, tested
    // on made-up instants in `stepframe_host::worker::thread`, not on this
    // machine's clock.)
    assert!(last >= 30, "only {last} frames");
    // Pause is applied promptly and no frame runs after it.
    ui.send(Command::Run(Run::Pause));
    let t0 = Instant::now();
    let paused = loop {
        if let Ok(Outbound::Event(e)) = ui.inbound.recv_timeout(Duration::from_secs(30))
            && let Event::Suspended(s) = *e
        {
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
    let later: Vec<Event> = ui
        .inbound
        .try_iter()
        .filter_map(|m| match m {
            Outbound::Event(e) => Some(*e),
            _ => None,
        })
        .collect();
    let later = frames_of(&later).len();
    assert_eq!(later, 0, "frames ran while paused");
    drop(thread);
}
