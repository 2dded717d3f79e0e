//! The editor's words for what the host says: the host sends data
//! ([`Notice`], [`HostError`], [`EditLabel`]...), and this module is the one
//! place that turns it into the sentences the notices, the error line, the
//! log and the menus show.
//!
//! Every count goes through [`count`], so no line says "1 matches".

use stepframe_host::protocol::{
    BName, DisplayRate, EditKind, EditLabel, HostError, Notice, QueuedEdit, SaveRisk, Target,
};

/// `n` things in words, the noun agreeing with the number: `1 match`,
/// `3 matches`, `0 matches`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A duration given in milliseconds, at a precision a person reads: one
/// hook call often takes under a microsecond, which `{:.3} ms` shows as
/// `0.000 ms`. `12.345 ms`, `0.250 ms`, `3.4 µs`, `850 ns`.
pub fn duration_ms(ms: f64) -> String {
    if ms >= 0.1 {
        format!("{ms:.3} ms")
    } else if ms >= 0.001 {
        format!("{:.1} µs", ms * 1e3)
    } else {
        format!("{:.0} ns", ms * 1e6)
    }
}

/// An object as the log and the notices name it: `Ball (#3)`.
fn object_label((id, name): &(stepframe_core::ObjectId, String)) -> String {
    if name.is_empty() {
        id.to_string()
    } else {
        format!("{name} ({id})")
    }
}

/// "pose of Ball (#1)", "deletion of Ball (#3)": an edit as the Edit menu
/// and the undo notices name it.
pub fn edit_label(label: &EditLabel) -> String {
    let object = label.object.as_ref().map_or_else(String::new, object_label);
    match &label.kind {
        EditKind::Pose => format!("pose of {object}"),
        EditKind::Velocity => format!("velocity of {object}"),
        EditKind::Params(behaviour) => format!("{behaviour} parameters of {object}"),
        EditKind::Enabled(true) => format!("enabling {object}"),
        EditKind::Enabled(false) => format!("disabling {object}"),
        EditKind::Duplicate => format!("duplicate {object}"),
        EditKind::Delete => format!("deletion of {object}"),
        EditKind::Settings => "time settings".to_string(),
        EditKind::Reload(resource) => format!("reload of {resource}"),
    }
}

/// How the inspector lists a queued pose or velocity edit.
pub fn queued_edit(queued: &QueuedEdit) -> String {
    let text = match &queued.edit {
        stepframe_core::Edit::Pose { pose, .. } => format!(
            "SetPose x {:?} m, y {:?} m, angle {:?} rad",
            pose.x, pose.y, pose.angle
        ),
        stepframe_core::Edit::Velocity { velocity, .. } => format!(
            "SetVelocity ({:?}, {:?}) m/s, {:?} rad/s",
            velocity.linear.x, velocity.linear.y, velocity.angular
        ),
        other => format!("{other:?}"),
    };
    format!("{text} (reconciled before tick {})", queued.before)
}

/// What run B is called: a file name, "this run, ticks 1–600", "branch B,
/// forked at tick 423".
pub fn b_name(name: &BName) -> String {
    match name {
        BName::Trace(file) => file.clone(),
        BName::ThisRun(first, last) => format!("this run, ticks {first}–{last}"),
        BName::Fork(at) => format!("branch B, forked at tick {at}"),
        BName::OldBuild(name) => name.clone(),
    }
}

/// The toolbar's text for a display rate.
pub fn display_rate(rate: DisplayRate) -> String {
    match rate {
        DisplayRate::Hz(hz) => format!("{hz} Hz"),
        DisplayRate::Uncapped => "uncapped".to_string(),
        DisplayRate::Irregular => "irregular".to_string(),
    }
}

/// Why a save asks first.
pub fn save_risk(path: &std::path::Path, risk: &SaveRisk) -> String {
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    match risk {
        SaveRisk::Exists => format!("{} already exists; saving replaces it", path.display()),
        SaveRisk::ChangedOnDisk => format!(
            "{file} changed on disk since it was loaded; saving replaces those changes with \
             the running scene"
        ),
        SaveRisk::Rewrite { comments, why } => {
            let what = if *comments > 0 {
                format!("its {comments} comment line(s) and hand-written layout")
            } else {
                "its hand-written layout".to_string()
            };
            format!(
                "{file}: {why}. Saving anyway rewrites it in stepframe's own layout and drops \
                 {what} (Save As writes a new file instead)"
            )
        }
        SaveRisk::Review {
            edits,
            settings,
            adopted,
            left_out,
        } => {
            let mut text = format!(
                "The first save into {file} from this session writes what the session \
                 changed into the scene:"
            );
            if *adopted {
                text.push_str("\n• the behaviour parameters of the adopted branch B");
            }
            for edit in edits {
                text.push_str(&format!("\n• {}", edit_label(edit)));
            }
            for s in settings {
                text.push_str(&format!(
                    "\n• time setting {}: {} in the file, {} saved (the toolbar's)",
                    s.setting, s.from, s.to
                ));
            }
            if !left_out.is_empty() {
                text.push_str("\nIt leaves out what a scene cannot hold:");
                for edit in left_out {
                    text.push_str(&format!("\n• {}", edit_label(edit)));
                }
            }
            text.push_str(&format!(
                "\nLater saves into {file} write without asking. Save As writes a new file \
                 instead."
            ));
            text
        }
    }
}

/// A notice in words.
pub fn notice(notice: &Notice) -> String {
    match notice {
        Notice::BreakpointDisabled {
            id,
            hook,
            object,
            scene,
            there,
        } => {
            let label = format!("{} {}", object.1, object.0);
            let there = there.as_ref().map_or_else(
                || "no such object".to_string(),
                |name| format!("{} there is {name}", object.0),
            );
            format!(
                "breakpoint {} ({} on {label}) disabled: {scene} has no {label} ({there})",
                id.0,
                hook.map_or("any hook", |h| h.name()),
            )
        }
        Notice::BreakpointStaysDisabled(id) => format!(
            "breakpoint {} stays disabled: its object is not in this scene",
            id.0
        ),
        Notice::NoFixedUpdate { object, behaviours } => {
            let has = if behaviours.is_empty() {
                "no behaviours".to_string()
            } else {
                format!("behaviours {}", behaviours.join(", "))
            };
            format!(
                "F9: {} {} has no FixedUpdate hook ({has}) and no MidStep hook, so a breakpoint \
                 there could never fire; none was set",
                object.1, object.0
            )
        }
        Notice::ParamsApplied {
            target,
            behaviour,
            object,
            params,
            from_tick,
        } => {
            let b = if *target == Target::B { "B: " } else { "" };
            format!(
                "{b}{behaviour} of {} runs with {} from tick {from_tick} on",
                object_label(object),
                params.trim()
            )
        }
        Notice::BTapeChanged { edges, from_tick } => format!(
            "B's input tape changed: {} from tick {from_tick} on",
            count(*edges as u64, "edge", "edges")
        ),
        Notice::BScriptChanged(key) => {
            format!("B runs the edited {key} from its next frame on (the file is unchanged)")
        }
        Notice::BAdopted { forked_at, reach } => format!(
            "branch B (forked at tick {forked_at}) is the live session now: its rewind history \
             starts afresh, {}",
            reach.held_text()
        ),
        Notice::BParamsInScene => {
            "B's parameter changes are in the scene now: Save writes them".to_string()
        }
        Notice::BDiscarded => "branch B discarded".to_string(),
        Notice::UndoNeedsSuspension { redo } => format!(
            "{} works while suspended: pause (or stop at a breakpoint) first",
            if *redo { "Redo" } else { "Undo" }
        ),
        Notice::Undone { edit, before } => format!(
            "undid {} (before tick {before}): gone from the history, as if never made; \
             Ctrl+Shift+Z redoes it",
            edit_label(edit)
        ),
        Notice::Redone { edit, before } => {
            format!("redid {} (before tick {before})", edit_label(edit))
        }
        Notice::UndoRanOn { edit, made_at, now } => format!(
            "nothing undone: the last edit ({}) was made at tick {made_at} and the session has \
             run on to tick {now}. Undo works at the tick of an edit; to go back before it, \
             resume from tick {made_at} (the timeline), where the future runs without it",
            edit_label(edit)
        ),
        Notice::NothingToUndo(tick) => format!(
            "nothing to undo at tick {tick}: no edit was made here since the session last ran"
        ),
        Notice::NothingToRedo => {
            "nothing to redo: no edit was undone here since the last new edit".to_string()
        }
        Notice::TapeRate {
            tape_hz,
            session_hz,
        } => format!(
            "the tape's ticks were counted at {tape_hz} Hz; the session ticks at {session_hz} \
             Hz, so its edges reach the same tick numbers at other times"
        ),
        Notice::TapeInForce { edges, from_tick } => format!(
            "input tape in force: {} from tick {from_tick}",
            count(*edges as u64, "edge replays", "edges replay")
        ),
        Notice::TapeStopped => "input tape stopped: live input only from here".to_string(),
        Notice::EditsDropped { tick, edits } => {
            let n = edits.len();
            let names: Vec<String> = edits.iter().map(edit_label).collect();
            format!(
                "resumed from tick {tick}: {} made after it ({}) {} out of the new future, as \
                 the tape's later edges do",
                count(n as u64, "edit", "edits"),
                names.join("; "),
                if n == 1 { "drops" } else { "drop" },
            )
        }
        Notice::SettingsBack { tick, from, to } => {
            let mut back = Vec::new();
            if from.time_scale != to.time_scale {
                back.push(format!(
                    "time scale {}× (was {}×)",
                    to.time_scale, from.time_scale
                ));
            }
            if from.fixed_hz != to.fixed_hz {
                back.push(format!(
                    "fixed rate {} Hz (was {} Hz)",
                    to.fixed_hz, from.fixed_hz
                ));
            }
            if from.max_steps != to.max_steps {
                back.push(format!(
                    "max steps {} (was {})",
                    to.max_steps, from.max_steps
                ));
            }
            if from.strategy != to.strategy {
                back.push(format!(
                    "strategy {} (was {})",
                    to.strategy.name(),
                    from.strategy.name()
                ));
            }
            if from.substeps != to.substeps {
                back.push(format!("substeps {} (was {})", to.substeps, from.substeps));
            }
            if from.max_delta != to.max_delta {
                back.push(format!(
                    "max delta {} s (was {} s)",
                    to.max_delta, from.max_delta
                ));
            }
            format!(
                "back at tick {tick} with its settings: {}; a change made later is undone with the \
                 rest of that future",
                back.join(", ")
            )
        }
        Notice::NoChangesToSave(path) => format!(
            "no changes to save: {} already holds the running scene",
            path.display()
        ),
        Notice::NotSaved(note) => note.clone(),
        Notice::RecordingSaved {
            path,
            edges,
            edits,
            ticks,
        } => format!(
            "saved the session recording to {}: {} and {} over {} (stepframe play <scene> \
             --input {} replays it)",
            path.display(),
            count(*edges as u64, "input edge", "input edges"),
            count(*edits as u64, "edit", "edits"),
            count(*ticks, "tick", "ticks"),
            path.display()
        ),
        Notice::SceneChangedKept { file, unsaved } => format!(
            "{file} changed on disk: not reloaded, the session has {} the file does not \
             (Ctrl+R reloads and drops them; Save asks before writing over the file)",
            count(*unsaved as u64, "unsaved edit", "unsaved edits")
        ),
        Notice::SceneReloadedFromDisk(file) => {
            format!("{file} changed on disk: reloaded, keeping the time settings (as Ctrl+R)")
        }
        Notice::SceneChangedBroken(file) => format!(
            "{file} changed on disk and does not load (the error line says where): the running \
             session goes on, and the file reloads once it loads"
        ),
        Notice::ScriptReloaded(key) => format!("reloaded {key}"),
    }
}

/// An error in words.
pub fn error(error: &HostError) -> String {
    match error {
        HostError::Scene(message) | HostError::Save(message) => message.clone(),
        HostError::NoScene => "no scene is open".to_string(),
        HostError::RecordingNotSaved(why) => format!("session recording not saved: {why}"),
        HostError::EditNeedsSuspension => "edits apply while suspended: pause first".to_string(),
        HostError::EditRefused {
            target: Target::Live,
            reason,
            ..
        } => format!("edit not applied: {reason}"),
        HostError::EditRefused {
            target: Target::B,
            reason,
            script_file,
        } => {
            if *script_file {
                format!(
                    "B not changed: {reason} (a Script takes new vars, not another file: edit \
                     its code in the code pane and Run in B)"
                )
            } else {
                format!("B not changed: {reason}")
            }
        }
        HostError::NoObject(id) => format!("object {id} does not exist"),
        HostError::NoBehaviour { object, index } => {
            format!("object {object} has no behaviour #{index}")
        }
        HostError::NoBranch => "no branch B: Fork here first".to_string(),
        HostError::Fork { tick, reason } => format!("cannot fork at tick {tick}: {reason}"),
        HostError::BranchStuck { tick, reason } => {
            format!("branch B could not follow A to tick {tick}: {reason}")
        }
        HostError::Compare(why) => format!("cannot compare: {why}"),
        HostError::CompareEmpty(path) => {
            format!("cannot compare with {}: it holds no tick", path.display())
        }
        HostError::NothingToKeep => "no tick to keep yet: play first".to_string(),
        HostError::History(why) => format!("the kept history could not be measured: {why}"),
        HostError::ClockBreakpoint(why) => format!("clock breakpoint not added: {why}"),
        HostError::Watches(why) => format!("watches not changed: {why}"),
        HostError::NoWatch(i) => format!("no watch {}", i + 1),
        HostError::FindPrevious { expr, reason } => format!("find previous `{expr}`: {reason}"),
        HostError::PastView { tick, reason } => format!("cannot show tick {tick}: {reason}"),
        HostError::Rewind { tick, reason } => format!("cannot resume from tick {tick}: {reason}"),
        HostError::Undo(why) => format!("undo: {why}"),
        HostError::TimeSettings(why) => format!("time settings rejected: {why}"),
        HostError::Script {
            target: Target::Live,
            reason,
        } => format!("script not reloaded: {reason}"),
        HostError::Script {
            target: Target::B,
            reason,
        } => format!("B's script not changed: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_count_of_one_takes_the_singular_and_every_other_the_plural() {
        assert_eq!(
            crate::editor::words::count(1, "match", "matches"),
            "1 match"
        );
        assert_eq!(
            crate::editor::words::count(0, "match", "matches"),
            "0 matches"
        );
        assert_eq!(
            crate::editor::words::count(2, "earlier edge", "earlier edges"),
            "2 earlier edges"
        );
    }
}
