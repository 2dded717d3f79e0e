//! The edited input tape: "what if I had pressed jump at tick 412".
//!
//! The bundled demo plays its recording (assets/recordings/demo.ron) through
//! the rewind history. At tick 500 the session is rewound to the end of tick
//! 411 and the recording with one more tap of Space at tick 412 is installed
//! as the tape ([`Session::set_tape`]); the run goes on to tick 700. At 30, 60
//! and 144 Hz the ticks must be the same, tick for tick, as a straight replay
//! of the edited recording from tick 0 (no rewind at all), and the edit must
//! change the future (else the comparison proves nothing). Later rewinds and
//! past views replay the tape too: they start from keyframes taken with it in
//! force, or cross its installation.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use stepframe_core::{
    History, InputSource, Pipeline, RecordedEvent, Recorder, Recording, Registry, Replay, Scene,
    Session, TickObserver, TickRecord,
};

/// The tick whose input the what-if changes.
const EDIT: u64 = 412;
/// Where the live run is when the user goes back.
const LIVE: u64 = 500;
/// Where every comparison ends.
const END: u64 = 700;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

fn demo() -> (Scene, Registry) {
    let scenes = root().join("assets/scenes");
    let registry = stepframe_plugins::registry_for(&stepframe_plugins::ScriptHost::new(), &scenes);
    let scene = Scene::load(&scenes.join("demo.ron"), &registry).expect("demo scene loads");
    (scene, registry)
}

fn recorded() -> Recording {
    Recording::load(&root().join("assets/recordings/demo.ron")).expect("demo recording loads")
}

/// The recording with a tap of Space (press and release) in tick 412, while
/// the player runs left (ticks 400 to 470 hold ArrowLeft).
fn edited() -> Recording {
    let mut tape = recorded();
    for value in [1.0, 0.0] {
        tape.insert(RecordedEvent {
            tick: EDIT,
            source: InputSource::Key("Space".into()),
            value,
        });
    }
    tape
}

/// The hash of every tick, the last run of a tick winning (a rewound tick
/// runs again).
#[derive(Debug, Default)]
struct Hashes(BTreeMap<u64, u64>);

impl TickObserver for Hashes {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        self.0.insert(record.clock.simulation_tick, record.hash);
    }
}

/// A demo session observed by a hash table and a recorder.
struct Demo {
    /// The session and its rewind history.
    s: Session,
    /// Every tick's hash.
    hashes: Arc<Mutex<Hashes>>,
    /// What every tick received.
    recorder: Arc<Mutex<Recorder>>,
    /// The display rate's frame length.
    dt: f64,
}

impl Demo {
    fn new(hz: f64) -> Demo {
        let (scene, registry) = demo();
        let mut p = Pipeline::new(scene.settings.time);
        p.load_scene(&scene, &registry).expect("session");
        let hashes = Arc::new(Mutex::new(Hashes::default()));
        let recorder = Arc::new(Mutex::new(Recorder::new(60)));
        let observers: Vec<Box<dyn TickObserver>> =
            vec![Box::new(hashes.clone()), Box::new(recorder.clone())];
        p.set_tick_observer(Some(Box::new(observers)));
        Demo {
            // A keyframe every 30 frames, so rewinds start from keyframes
            // taken on both sides of the tape's installation.
            s: Session::new(p, History::new(30, 36_000)),
            hashes,
            recorder,
            dt: 1.0 / hz,
        }
    }

    fn tick(&self) -> u64 {
        self.s.pipeline().stepper().completed_ticks()
    }

    /// Frames until `tick` is complete (resuming first if suspended).
    fn run_to(&mut self, tick: u64) {
        if self.s.pipeline().suspension().is_some() {
            self.s.resume(&[]);
        }
        while self.tick() < tick {
            self.s.step_frame(self.dt, &[]);
            while self.s.pipeline().suspension().is_some() {
                self.s.resume(&[]);
            }
        }
    }

    fn hashes(&self, ticks: std::ops::RangeInclusive<u64>) -> Vec<(u64, u64)> {
        let h = self.hashes.lock().expect("lock");
        ticks.map(|t| (t, h.0[&t])).collect()
    }

    fn recording(&self) -> Recording {
        self.recorder.lock().expect("lock").recording().clone()
    }
}

/// The what-if at one display rate: play the recording to tick 500, go back
/// to the end of tick 411, install the edited tape, play to tick 700.
fn what_if(hz: f64) -> Demo {
    let mut d = Demo::new(hz);
    d.s.set_tape(Some(Replay::new(recorded())));
    d.run_to(LIVE);
    d.s.rewind_to_tick(EDIT - 1).expect("tick 411 is kept");
    assert_eq!(d.tick(), EDIT - 1);
    d.s.set_tape(Some(Replay::new(edited())));
    d.run_to(END);
    d
}

/// A straight replay of `tape` from tick 0, at 60 Hz, no rewind.
fn straight(tape: Recording) -> Demo {
    let mut d = Demo::new(60.0);
    d.s.set_tape(Some(Replay::new(tape)));
    d.run_to(END);
    d
}

fn first_difference(a: &[(u64, u64)], b: &[(u64, u64)]) -> Option<u64> {
    a.iter().zip(b).find(|(x, y)| x != y).map(|(x, _)| x.0)
}

#[test]
fn an_edited_tape_replays_identically_at_30_60_and_144_hz() {
    let reference = straight(edited()).hashes(1..=END);
    let unedited = straight(recorded()).hashes(1..=END);
    // The tap changes the future, and nothing before it.
    let parted = first_difference(&reference, &unedited).expect("the tap at 412 changes the run");
    assert!(parted >= EDIT, "ticks before the edit changed: {parted}");
    for hz in [30.0, 60.0, 144.0] {
        let d = what_if(hz);
        let ticks = d.hashes(1..=END);
        assert_eq!(
            first_difference(&ticks, &reference),
            None,
            "what-if at {hz} Hz against a straight replay of the edited tape"
        );
        // What the ticks received is the edited tape, edge for edge.
        let mut expected = edited();
        expected.truncate_after(END);
        assert_eq!(d.recording().events, expected.events, "{hz} Hz");
    }
}

#[test]
fn rewinds_and_past_views_after_the_edit_replay_the_tape() {
    let mut d = what_if(144.0);
    let reference = straight(edited()).hashes(1..=END);
    let hash_at = |t: u64| reference[t as usize - 1].1;

    // A past view starts from a fresh pipeline: only the keyframe's tape (or
    // the logged installation) can give it the tap.
    for target in [EDIT + 5, 450, 650] {
        let mut scratch = Pipeline::new(*d.s.pipeline().settings());
        d.s.replay_into(&mut scratch, target).expect("kept");
        assert_eq!(
            scratch.state_hash(),
            hash_at(target),
            "past view of {target}"
        );
    }

    // Back into the edited future and on again: the same ticks.
    d.s.rewind_to_tick(650).expect("kept");
    assert_eq!(d.s.pipeline().state_hash(), hash_at(650));
    d.run_to(END);
    assert_eq!(first_difference(&d.hashes(1..=END), &reference), None);

    // Back before the installation: the recording is in force again there,
    // so without another edit the run is the unedited one.
    let unedited = straight(recorded()).hashes(1..=END);
    d.s.rewind_to_tick(300).expect("kept");
    assert_eq!(
        d.s.history().tape().map(|t| t.recording().clone()),
        Some(recorded())
    );
    d.run_to(END);
    assert_eq!(first_difference(&d.hashes(1..=END), &unedited), None);
}

#[test]
fn input_given_with_a_single_tick_reaches_that_tick_and_its_replays() {
    let mut d = Demo::new(60.0);
    d.run_to(100);
    d.s.pause();
    // The user types Space while suspended, then F10.
    let press = stepframe_core::InputEvent::press(InputSource::Key("Space".into()));
    let report = d.s.step_tick(&[press]);
    assert_eq!(report.ticks, 1);
    let r = d.recording();
    assert_eq!(
        r.events_at(101).iter().map(|e| e.value).collect::<Vec<_>>(),
        vec![1.0],
        "tick 101, the stepped one, received the press"
    );
    d.run_to(160);
    let before = d.hashes(101..=160);
    // A rewind past the stepped tick replays its input on the way.
    d.s.rewind_to_tick(130).expect("kept");
    assert_eq!(
        d.s.pipeline().state_hash(),
        before[130 - 101].1,
        "tick 130 rebuilt"
    );
    d.run_to(160);
    assert_eq!(first_difference(&d.hashes(101..=160), &before), None);
}
