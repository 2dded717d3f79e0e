//! A journal done again (`Command::Restore`): what reaches the front end.
//! A replay runs flat out, so it sends its telemetry and journal in a few
//! large messages rather than two a frame; the records and the journal the
//! front end ends with are still every frame's, as the session that made
//! the journal sent them one frame at a time.

use super::*;
use stepframe_app::editor::protocol::JournalEntry;
use stepframe_core::HookBeacon;
use stepframe_host::supervise::{Fault, FaultKind};

/// Frames the session plays before it is done again: more than two of
/// the host's replay batches (1,024 frames each), so one message cannot
/// hold them all.
const FRAMES: usize = 2_500;

/// What a timeline keeps of a frame and what no wall clock changes: the
/// call's kind, index, ticks, dt, accumulators and suspension, and the
/// clock after it (the report's phase timings and the call's wall time
/// are measured, so they differ between two runs of the same frames).
fn simulated(f: &FrameTelemetry) -> impl PartialEq + std::fmt::Debug + use<> {
    let r = &f.report;
    (
        (r.kind, r.frame_index, r.ticks, r.delta_time.to_bits()),
        (
            r.dropped_time.to_bits(),
            r.accumulator_before.to_bits(),
            r.accumulator_after.to_bits(),
        ),
        (r.suspended.clone(), r.clock_change),
        f.clock,
        f.real_dt.to_bits(),
    )
}

#[test]
fn a_journal_done_again_sends_every_frames_record_and_entry_in_a_few_messages() {
    // The session as it was made: a frame's telemetry and journal entry
    // sent as the frame ran, each message through the wire's codec.
    let mut live = Host::loading(DisplayRate::Hz(60), &demo(), true);
    live.pump_n(FRAMES, DT);
    let made = live.events();
    assert_no_errors(&made);
    let expected: Vec<_> = frames_of(&made).iter().map(simulated).collect();
    assert_eq!(expected.len(), FRAMES);
    let journal = live.journal.clone();
    let journal_frames = journal
        .iter()
        .filter(|e| matches!(e, JournalEntry::Frame { .. }))
        .count();
    assert_eq!(journal_frames, FRAMES);

    // The same journal done again in a new host.
    let mut again = Host::new(DisplayRate::Hz(60));
    again.send(Command::Restore {
        journal: journal.clone(),
        stop_after: None,
        fresh_files: false,
    });
    again.pump(DT);
    let sent = again.events();
    assert_no_errors(&sent);
    assert!(
        sent.contains(&Event::Restored {
            tick: FRAMES as u64,
            asked: None
        }),
        "{:?}",
        sent.iter().rev().take(3).collect::<Vec<_>>()
    );

    // Every frame's record, in order, as the live session sent them.
    let records: Vec<_> = frames_of(&sent).iter().map(simulated).collect();
    assert_eq!(records.len(), expected.len());
    for (i, (got, want)) in records.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "frame {}", i + 1);
    }
    // Its journal is the one it was given, entry for entry.
    assert_eq!(again.journal, journal);

    // In a few messages: one per progress report (each event sends what
    // was held before it), per full batch, and the rest before Restored;
    // never two a frame.
    let batches = |f: fn(&Event) -> Option<usize>| sent.iter().filter_map(f).collect::<Vec<_>>();
    let frame_batches = batches(|e| match e {
        Event::Frames(b) => Some(b.len()),
        _ => None,
    });
    let journal_batches = batches(|e| match e {
        Event::Journal(j) => Some(j.len()),
        _ => None,
    });
    let progress = sent
        .iter()
        .filter(|e| matches!(e, Event::Replaying { .. }))
        .count();
    let most = progress + FRAMES.div_ceil(1024) + 1;
    assert!(
        frame_batches.len() <= most,
        "{} telemetry messages for {FRAMES} frames ({progress} progress reports): {frame_batches:?}",
        frame_batches.len()
    );
    assert!(
        journal_batches.len() <= most,
        "{} journal messages for {} entries ({progress} progress reports)",
        journal_batches.len(),
        journal.len()
    );
    assert!(
        frame_batches.iter().all(|&n| n <= 1024),
        "{frame_batches:?}"
    );
    // A batch is a small message (~540 bytes a frame of demo.ron): under
    // the 1 MiB a wire reader keeps its buffer at between frames.
    for e in &sent {
        if let Event::Frames(b) = e {
            let bytes = stepframe_host::wire::encode(e, Vec::new()).expect("encodes");
            assert!(
                bytes.len() < 1 << 20,
                "{} frames in {} bytes",
                b.len(),
                bytes.len()
            );
        }
    }

    // And the session stands where the live one stood, bit for bit.
    live.send(Command::Run(stepframe_app::editor::protocol::Run::Pause));
    live.pump(DT);
    assert_eq!(again.view().clock.simulation_tick, FRAMES as u64);
    assert_eq!(again.view().state_hash, live.view().state_hash);
}

#[test]
fn a_journal_done_again_shows_the_hash_of_its_last_tick_not_of_an_edit_made_after_it() {
    use stepframe_app::editor::protocol::{EditCommand, Run, Target};
    use stepframe_core::ObjectId;
    // The live session hashes every tick; its view shows the last tick's
    // hash, which an edit made while it stands there does not change (the
    // edit applies before the next tick).
    let mut live = Host::loading(DisplayRate::Hz(60), &demo(), true);
    live.pump_n(300, DT);
    live.send(Command::Run(Run::Pause));
    live.pump(DT);
    let before_edit = live.view().state_hash;
    live.send(Command::Edit {
        target: Target::Live,
        edit: EditCommand::Enabled(ObjectId(203), false),
    });
    live.pump(DT);
    assert_no_errors(&live.events());
    let shown = live.view().state_hash;
    assert_eq!(shown, before_edit);
    assert_eq!(live.view().clock.simulation_tick, 300);
    assert!(
        !live
            .view()
            .objects
            .iter()
            .any(|o| o.id == ObjectId(203) && o.enabled)
    );

    // Done again, the session runs its ticks unhashed and ends standing
    // after the edit: it shows the same hash, that of the end of tick 300.
    let mut again = Host::new(DisplayRate::Hz(60));
    again.send(Command::Restore {
        journal: live.journal.clone(),
        stop_after: None,
        fresh_files: false,
    });
    again.pump(DT);
    assert_no_errors(&again.events());
    assert_eq!(again.view().clock.simulation_tick, 300);
    assert!(
        !again
            .view()
            .objects
            .iter()
            .any(|o| o.id == ObjectId(203) && o.enabled)
    );
    assert_eq!(again.view().state_hash, shown);
}

#[test]
fn the_frame_a_host_died_in_is_on_its_beacon_and_a_restart_with_it_stops_at_the_tick_before() {
    // A host journals a frame before it runs it and sends the entry after:
    // a host that dies inside a frame never sends it. Here a frame of two
    // ticks (39 and 40) is that frame: the host runs it, and the front
    // end takes nothing more, as if the process had died in tick 40.
    let beacon = HookBeacon::new();
    let mut live = Host::loading(DisplayRate::Hz(60), &demo(), true);
    live.worker.set_hook_beacon(beacon.clone());
    live.pump_n(38, DT);
    assert_eq!(live.tick(), 38);
    let received = live.journal.clone();
    assert_eq!(beacon.journal_tail(), (received.len() as u64, Some(DT)));
    live.worker.pump(2.0 * DT);
    let tail = beacon.journal_tail();
    assert_eq!(tail, (received.len() as u64 + 1, Some(2.0 * DT)));

    // What the editor's Restart sends for a fault at tick 40, stopping
    // after 39: the journal it received, and that with the lost frame
    // added back from the beacon.
    let fault = Fault::at(FaultKind::Abort, None, 40).with_journal_tail(tail);
    let restarted = fault.journal_for_restart(received.clone());
    assert_eq!(restarted.len(), received.len() + 1);
    for (journal, stands) in [(received, 38), (restarted, 39)] {
        let mut again = Host::new(DisplayRate::Hz(60));
        again.send(Command::Restore {
            journal,
            stop_after: Some(39),
            fresh_files: false,
        });
        again.pump(DT);
        let sent = again.events();
        assert!(
            sent.contains(&Event::Restored {
                tick: stands,
                asked: Some(39)
            }),
            "{:?}",
            sent.iter().rev().take(3).collect::<Vec<_>>()
        );
    }
}
