//! input while suspended and edited tapes.

use super::*;
use stepframe_app::editor::protocol::{RecordingCommand, RewindCommand, Run};

#[test]
fn keys_typed_while_suspended_reach_the_tick_f10_steps() {
    let mut h = playing(demo());
    pump(&mut h, 30);
    h.send(Command::Run(Run::Pause));
    h.pump(DT);
    // Space typed in the viewport while suspended, then F10: a lone tick,
    // no outer frame begins, and yet tick 31 receives the press.
    h.send(Command::Run(Run::Input(InputEvent::press(
        InputSource::Key("Space".into()),
    ))));
    h.send(Command::Run(Run::StepTick));
    h.pump(DT);
    assert_eq!(h.view().clock.simulation_tick, 31);
    let at31: Vec<f32> = h.recording.events_at(31).iter().map(|e| e.value).collect();
    assert_eq!(at31, vec![1.0], "tick 31 received the press");
}

/// The demo at one worker pacing: play to tick 500, then "Resume from here"
/// with the recorded tape plus a tap of Space at tick 412 (the Input tab's
/// `ApplyTape`), play on to tick 700 and ask for the past view of tick 600.
fn what_if_in_the_worker(rate: DisplayRate, dt: f64) -> (u64, Recording) {
    let mut h = playing_paced(demo(), rate);
    while h.tick() < 500 {
        h.pump(dt);
    }
    let mut tape = h.recording.clone();
    for value in [1.0, 0.0] {
        tape.insert(RecordedEvent {
            tick: 412,
            source: InputSource::Key("Space".into()),
            value,
        });
    }
    h.send(Command::Recording(RecordingCommand::Apply {
        tape,
        from: 411,
    }));
    h.send(Command::Run(Run::Play));
    // The rewind's view first (tick 411), then the replay's up to 700.
    h.pump(dt);
    while h.tick() < 700 {
        h.pump(dt);
    }
    let received = h.recording.clone();
    h.send(Command::Rewind(RewindCommand::ViewTick(600)));
    h.pump(dt);
    let past = h.take_past().expect("the view of tick 600");
    assert_eq!(past.at_tick, Some(600));
    (past.state_hash, received)
}

#[test]
fn an_edited_tape_applied_in_the_worker_replays_identically_at_30_60_and_144_hz() {
    // No live keys are pressed, so the demo receives only the tap: at every
    // pacing tick 412 gets press and release, and tick 600 is the same state.
    let runs: Vec<(u64, Recording)> = [(30, 1.0 / 30.0), (60, 1.0 / 60.0), (144, 1.0 / 144.0)]
        .into_iter()
        .map(|(hz, dt)| what_if_in_the_worker(DisplayRate::Hz(hz), dt))
        .collect();
    for (hash, received) in &runs {
        let stamps: Vec<(u64, f32)> = received.events.iter().map(|e| (e.tick, e.value)).collect();
        assert_eq!(stamps, vec![(412, 1.0), (412, 0.0)]);
        assert_eq!(*hash, runs[0].0);
    }
    // The same state as a headless run that gets the tap at tick 412 with
    // no rewind at all.
    let mut tap = Recording::new(60);
    for value in [1.0, 0.0] {
        tap.insert(RecordedEvent {
            tick: 412,
            source: InputSource::Key("Space".into()),
            value,
        });
    }
    let registry = stepframe_app::player::registry(&demo());
    let scene = stepframe_core::Scene::load(&demo(), &registry).expect("demo");
    let mut p = stepframe_core::Pipeline::new(scene.settings.time);
    p.load_scene(&scene, &registry).expect("session");
    p.set_tick_input(Some(Box::new(stepframe_core::Replay::new(tap))));
    while p.stepper().completed_ticks() < 600 {
        p.step_frame(DT);
    }
    assert_eq!(
        p.state_hash(),
        runs[0].0,
        "the worker's tick 600 is a headless run's"
    );
    let mut untouched = stepframe_core::Pipeline::new(scene.settings.time);
    untouched.load_scene(&scene, &registry).expect("session");
    while untouched.stepper().completed_ticks() < 600 {
        untouched.step_frame(DT);
    }
    assert_ne!(
        untouched.state_hash(),
        runs[0].0,
        "the tap changed tick 600"
    );
}
