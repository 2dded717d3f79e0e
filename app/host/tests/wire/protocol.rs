//! The protocol's messages round-trip through the wire's codec: random
//! commands and events, built from every shape of field they hold (floats
//! of any bits, named and numbered priorities, lists empty and full,
//! optional fields absent and present, nested recordings and journals),
//! encode, decode, and encode again to the same bytes. Bytes, not `==`:
//! a NaN pose must cross as the same NaN.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use stepframe_core::{
    Breakpoint, Edit, HookKind, InputEvent, InputSource, ObjectId, Pose, Priority, Recording,
    StepStrategy, Vec2, Velocity,
};
use stepframe_host::protocol::{
    BName, BranchCommand, BranchEvent, BreakpointCommand, Command, DisplayRate, EditCommand, Event,
    HostError, JournalEntry, Outbound, RewindCommand, Run, SceneCommand, Target, TimeSetting,
    WatchCommand,
};
use stepframe_host::traced::TracedTick;
use stepframe_host::wire::{decode, encode};

use crate::fuzz::runner;

fn any_f32() -> impl Strategy<Value = f32> {
    any::<u32>().prop_map(f32::from_bits)
}

fn object() -> impl Strategy<Value = ObjectId> {
    (0u64..1_000).prop_map(ObjectId)
}

fn pose() -> impl Strategy<Value = Pose> {
    (any_f32(), any_f32(), any_f32()).prop_map(|(x, y, angle)| Pose { x, y, angle })
}

fn velocity() -> impl Strategy<Value = Velocity> {
    (any_f32(), any_f32(), any_f32()).prop_map(|(x, y, w)| Velocity {
        linear: Vec2::new(x, y),
        angular: w,
    })
}

fn hook() -> impl Strategy<Value = HookKind> {
    prop::sample::select(HookKind::ALL.to_vec())
}

/// Named levels (-100, 0, 100...) and any other number.
fn priority() -> impl Strategy<Value = Priority> {
    prop_oneof![
        prop::sample::select(vec![-200, -100, 0, 100, 200]).prop_map(Priority),
        any::<i32>().prop_map(Priority),
    ]
}

fn breakpoint() -> impl Strategy<Value = Breakpoint> {
    (
        any::<bool>(),
        option::of(hook()),
        option::of(object()),
        option::of(priority()),
    )
        .prop_map(|(enabled, hook, object, priority)| Breakpoint {
            enabled,
            hook,
            object,
            priority,
            ..Breakpoint::default()
        })
}

/// A recording with `edits` empty (the field a file leaves out) or not.
fn recording() -> impl Strategy<Value = Recording> {
    (
        1u32..240,
        0u64..10_000,
        vec((1u64..10_000, object(), pose()), 0..3),
    )
        .prop_map(|(hz, ticks, edits)| {
            let mut r = Recording::new(hz);
            r.ticks = ticks;
            for (tick, object, pose) in edits {
                r.record_edit(tick, Edit::Pose { object, pose });
            }
            r
        })
}

fn text() -> impl Strategy<Value = String> {
    "[ -~]{0,24}"
}

fn edit() -> impl Strategy<Value = EditCommand> {
    prop_oneof![
        (object(), pose()).prop_map(|(o, p)| EditCommand::Pose(o, p)),
        (object(), velocity()).prop_map(|(o, v)| EditCommand::Velocity(o, v)),
        (object(), 0usize..4, text()).prop_map(|(object, index, params)| EditCommand::Params {
            object,
            index,
            params
        }),
        (object(), any::<bool>()).prop_map(|(o, e)| EditCommand::Enabled(o, e)),
        object().prop_map(EditCommand::Duplicate),
        object().prop_map(EditCommand::Remove),
        (text(), text()).prop_map(|(key, text)| EditCommand::Script { key, text }),
        (recording(), any::<u64>())
            .prop_map(|(tape, recorded_to)| EditCommand::Tape { tape, recorded_to }),
    ]
}

fn run() -> impl Strategy<Value = Run> {
    prop_oneof![
        Just(Run::Play),
        Just(Run::Pause),
        Just(Run::TogglePlay),
        Just(Run::StepTick),
        Just(Run::StepFrame),
        any::<f64>().prop_map(|s| Run::Set(TimeSetting::TimeScale(s))),
        any::<u32>().prop_map(|hz| Run::Set(TimeSetting::FixedRate(hz))),
        any::<u32>().prop_map(|n| Run::Set(TimeSetting::MaxSteps(n))),
        Just(Run::Set(TimeSetting::Strategy(StepStrategy::StepCounting))),
        any::<u32>().prop_map(|hz| Run::SetDisplayRate(DisplayRate::Hz(hz))),
        Just(Run::SetDisplayRate(DisplayRate::Uncapped)),
        text().prop_map(|k| Run::Input(InputEvent::press(InputSource::Key(k)))),
    ]
}

fn traced_tick() -> impl Strategy<Value = TracedTick> {
    (
        any::<u64>(),
        any::<u64>(),
        vec((any::<u64>(), prop::array::uniform6(any_f32())), 0..4),
    )
        .prop_map(|(tick, frame, objects)| TracedTick {
            tick,
            frame,
            objects,
        })
}

fn command() -> impl Strategy<Value = Command> {
    let leaf = prop_oneof![
        run().prop_map(Command::Run),
        (prop::sample::select(vec![Target::Live, Target::B]), edit())
            .prop_map(|(target, edit)| Command::Edit { target, edit }),
        breakpoint().prop_map(|b| Command::Breakpoints(BreakpointCommand::Add(b))),
        object().prop_map(|o| Command::Breakpoints(BreakpointCommand::ToggleFixed(o))),
        text().prop_map(|e| Command::Watches(WatchCommand::Plot(e))),
        any::<u64>().prop_map(|t| Command::Rewind(RewindCommand::ViewTick(t))),
        option::of(any::<usize>()).prop_map(|b| Command::Rewind(RewindCommand::SetBudget(b))),
        any::<u64>().prop_map(|t| Command::BranchB(BranchCommand::ForkHere(t))),
        any::<u64>().prop_map(|upto| Command::BranchB(BranchCommand::SendRun { upto })),
        (text(), vec(traced_tick(), 0..3), any::<bool>()).prop_map(|(name, ticks, last)| {
            Command::BranchB(BranchCommand::CompareWithTicks { name, ticks, last })
        }),
        (text(), any::<bool>()).prop_map(|(p, play)| Command::Scene(SceneCommand::Load {
            path: p.into(),
            play
        })),
        option::of(object()).prop_map(Command::Select),
        Just(Command::ViewTaken),
        Just(Command::Shutdown),
    ];
    // A journal holds commands: one level of nesting.
    (
        leaf.clone(),
        vec(
            prop_oneof![
                leaf.prop_map(JournalEntry::Command),
                any::<f64>().prop_map(|dt| JournalEntry::Frame { dt }),
            ],
            0..4,
        ),
        option::of(any::<u64>()),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(c, journal, stop_after, fresh_files, restore)| {
            if restore {
                Command::Restore {
                    journal,
                    stop_after,
                    fresh_files,
                }
            } else {
                c
            }
        })
}

fn event() -> impl Strategy<Value = Outbound> {
    let event = prop_oneof![
        (any::<usize>(), any::<usize>(), any::<u64>())
            .prop_map(|(done, of, tick)| Event::Replaying { done, of, tick }),
        (any::<u64>(), option::of(any::<u64>()))
            .prop_map(|(tick, asked)| Event::Restored { tick, asked }),
        (any::<u64>(), text()).prop_map(|(tick, m)| Event::ReplayError {
            tick,
            error: HostError::Scene(m)
        }),
        (vec(traced_tick(), 0..3), any::<bool>())
            .prop_map(|(ticks, last)| Event::BranchB(BranchEvent::Run { ticks, last })),
        (text(), (any::<u64>(), any::<u64>())).prop_map(|(n, ticks)| Event::BranchB(
            BranchEvent::Comparing {
                name: BName::OldBuild(n),
                ticks
            }
        )),
        recording()
            .prop_map(|r| Event::Recording(stepframe_host::protocol::RecordingChange::Reset(r))),
        vec(any::<f64>().prop_map(|dt| JournalEntry::Frame { dt }), 0..4).prop_map(Event::Journal),
    ];
    event.prop_map(|e| Outbound::Event(Box::new(e)))
}

/// Encodes, decodes and encodes again: the same bytes.
fn crosses<T>(message: &T) -> Result<(), TestCaseError>
where
    T: serde::Serialize + serde::de::DeserializeOwned + std::fmt::Debug,
{
    let bytes = encode(message, Vec::new()).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let back: T = decode(&bytes).map_err(|e| TestCaseError::fail(format!("{e}: {message:?}")))?;
    let again = encode(&back, Vec::new()).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(bytes, again, "{:?}", message);
    Ok(())
}

#[test]
fn random_commands_round_trip_through_the_codec() {
    let result = runner().run(&command(), |c| crosses(&c));
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn random_events_round_trip_through_the_codec() {
    let result = runner().run(&event(), |e| crosses(&e));
    if let Err(e) = result {
        panic!("{e}");
    }
}
