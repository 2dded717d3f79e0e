//! scene files: save, reload, a rewind across a scale change.

use super::*;

#[test]
fn save_writes_the_scene_with_the_toolbar_time_settings() {
    let dir = std::env::temp_dir().join(format!("stepframe-worker-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let out = dir.join("saved.ron");
    let (ui, mut w) = playing(demo());
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::SetTimeScale(0.5));
    send(Command::SaveAs {
        path: out.clone(),
        overwrite: false,
    });
    w.pump(DT);
    let saved = ui
        .events
        .try_iter()
        .any(|e| matches!(&e, Event::Saved(p) if *p == out));
    assert!(saved, "a Saved event");
    let registry = stepframe_app::player::registry(&demo());
    let original = stepframe_core::Scene::load(&demo(), &registry).expect("the demo loads");
    let written = stepframe_core::Scene::load(&out, &registry).expect("the saved scene loads");
    assert_eq!(written.settings.time.time_scale, 0.5);
    assert_eq!(written.objects, original.objects);
    assert_eq!(written.actions, original.actions);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reload_restarts_the_scene_but_keeps_the_chosen_fixed_rate() {
    let (ui, mut w) = playing(demo());
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    send(Command::SetFixedRate(30));
    pump(&mut w, 20);
    send(Command::Reload);
    w.pump(1.0 / 30.0);
    // Simulation time restarted with the new session: one 1/30 s frame at the
    // kept 30 Hz is exactly one tick.
    for _ in 0..9 {
        w.pump(1.0 / 30.0);
    }
    let view = ui.views.try_iter().last().expect("a view");
    assert_eq!(view.clock.simulation_tick, 10);
    assert_eq!(view.settings.fixed_hz, 30);
    assert!((view.clock.fixed_delta_time - 1.0 / 30.0).abs() < 1e-12);
}

#[test]
fn a_rewind_before_a_time_scale_change_brings_the_old_scale_back_to_the_toolbar() {
    let (ui, mut w) = playing(demo());
    let send = |c| ui.commands.send(c).expect("the worker end is alive");
    pump(&mut w, 30);
    send(Command::SetTimeScale(0.5));
    pump(&mut w, 30);
    send(Command::Pause);
    w.pump(DT);
    assert_eq!(latest_view(&ui).expect("a view").settings.time_scale, 0.5);
    // Tick 20 ran at scale 1, and the session rewound there runs on at it.
    send(Command::RewindTo(20));
    w.pump(DT);
    let view = latest_view(&ui).expect("a view");
    assert_eq!(view.clock.simulation_tick, 20);
    assert_eq!(
        view.settings.time_scale, 1.0,
        "the toolbar shows tick 20's scale"
    );
    send(Command::Play);
    pump(&mut w, 10);
    let view = latest_view(&ui).expect("a view");
    assert_eq!(
        view.clock.simulation_tick, 30,
        "ten frames at scale 1, ten ticks"
    );
}
