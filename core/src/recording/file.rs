//! The recording file: RON in the format of the [module docs](super),
//! read with every rule serde cannot check (version, one-based ticks in
//! order, finite values, edits that can apply), each error placed at its
//! line and column, and written atomically.

use std::path::Path;

use super::{OLDEST_RECORDING_VERSION, RECORDING_VERSION, Recording};
use crate::edit::Edit;
use crate::file_error::FileError;

impl Recording {
    /// Reads and validates a recording file.
    pub fn load(path: &Path) -> Result<Recording, FileError> {
        let text = std::fs::read_to_string(path).map_err(|source| FileError::Io {
            file: path.to_path_buf(),
            source,
        })?;
        Recording::parse(&text, path)
    }

    /// Parses and validates recording text; `file` names it in errors.
    pub fn parse(text: &str, file: &Path) -> Result<Recording, FileError> {
        let recording: Recording =
            ron::Options::default()
                .from_str(text)
                .map_err(|e| FileError::Parse {
                    file: file.to_path_buf(),
                    line: e.span.start.line,
                    column: e.span.start.col,
                    message: e.code.to_string(),
                })?;
        recording.validate(text, file)?;
        Ok(recording)
    }

    /// Checks the rules serde cannot: version, one-based ticks in order, finite
    /// values, `ticks` covering every event.
    fn validate(&self, text: &str, file: &Path) -> Result<(), FileError> {
        let invalid = |index: Option<usize>, message: String| {
            let (line, column) = index
                .and_then(|i| entry_position(text, "events", i))
                .unwrap_or((1, 1));
            FileError::Invalid {
                file: file.to_path_buf(),
                line,
                column,
                message,
            }
        };
        if !(OLDEST_RECORDING_VERSION..=RECORDING_VERSION).contains(&self.version) {
            return Err(invalid(
                None,
                format!(
                    "unsupported recording version {}: expected {OLDEST_RECORDING_VERSION} to \
                     {RECORDING_VERSION}",
                    self.version
                ),
            ));
        }
        if self.fixed_hz == 0 {
            return Err(invalid(None, "fixed_hz must be at least 1".into()));
        }
        let mut previous = 0;
        for (i, e) in self.events.iter().enumerate() {
            if e.tick == 0 {
                return Err(invalid(
                    Some(i),
                    format!("event {i}: tick 0: expected a one-based tick (1 or more)"),
                ));
            }
            if e.tick < previous {
                return Err(invalid(
                    Some(i),
                    format!(
                        "event {i}: tick {} comes after tick {previous}: expected events in tick order",
                        e.tick
                    ),
                ));
            }
            if !e.value.is_finite() {
                return Err(invalid(
                    Some(i),
                    format!("event {i}: value must be a finite number"),
                ));
            }
            previous = e.tick;
        }
        let mut previous_edit = 0;
        for (i, e) in self.edits.iter().enumerate() {
            let at = || entry_position(text, "edits", i).unwrap_or((1, 1));
            let edit_invalid = |message: String| {
                let (line, column) = at();
                FileError::Invalid {
                    file: file.to_path_buf(),
                    line,
                    column,
                    message,
                }
            };
            if e.tick == 0 {
                return Err(edit_invalid(format!(
                    "edit {i}: tick 0: expected the one-based tick it applies before (1 or more)"
                )));
            }
            if e.tick < previous_edit {
                return Err(edit_invalid(format!(
                    "edit {i}: tick {} comes after tick {previous_edit}: expected edits in tick order",
                    e.tick
                )));
            }
            if let Err(message) = check_edit(&e.edit) {
                return Err(edit_invalid(format!("edit {i}: {message}")));
            }
            previous_edit = e.tick;
        }
        if previous > self.ticks {
            return Err(invalid(
                None,
                format!(
                    "ticks is {} but an event is stamped with tick {previous}: expected ticks >= {previous}",
                    self.ticks
                ),
            ));
        }
        Ok(())
    }

    /// The recording as RON text, one event per line (the format above).
    pub fn to_ron(&self) -> Result<String, FileError> {
        use std::fmt::Write as _;
        let mut out = String::with_capacity(64 + self.events.len() * 48);
        out.push_str("// stepframe input recording: each event is stamped with the fixed tick it was delivered to.\n");
        let _ = writeln!(
            out,
            "(\n    version: {},\n    fixed_hz: {},\n    ticks: {},\n    events: [",
            // Edits need version 2 to be read back.
            if self.edits.is_empty() {
                self.version
            } else {
                self.version.max(RECORDING_VERSION)
            },
            self.fixed_hz,
            self.ticks
        );
        for e in &self.events {
            let source = ron::to_string(&e.source).map_err(|err| FileError::Serialize {
                what: "recording",
                message: err.to_string(),
            })?;
            let _ = writeln!(
                out,
                "        (tick: {}, source: {source}, value: {:?}),",
                e.tick, e.value
            );
        }
        out.push_str("    ],\n");
        if !self.edits.is_empty() {
            out.push_str(
                "    // edits made from the editor, each stamped with the tick it applies before\n    edits: [\n",
            );
            for e in &self.edits {
                let edit = ron::Options::default().to_string(&e.edit).map_err(|err| {
                    FileError::Serialize {
                        what: "recording",
                        message: err.to_string(),
                    }
                })?;
                let _ = writeln!(out, "        (tick: {}, edit: {edit}),", e.tick);
            }
            out.push_str("    ],\n");
        }
        out.push_str(")\n");
        Ok(out)
    }

    /// Writes the recording as RON, atomically (a crash leaves the old file or
    /// the new one, never half of one).
    pub fn save(&self, path: &Path) -> Result<(), FileError> {
        let text = self.to_ron()?;
        crate::atomic_file::write(path, text.as_bytes()).map_err(|source| FileError::Io {
            file: path.to_path_buf(),
            source,
        })
    }
}

/// What serde cannot check of a recorded edit: finite numbers, settings that
/// can run.
fn check_edit(edit: &Edit) -> Result<(), String> {
    match edit {
        Edit::Pose { pose, .. } if !pose.is_finite() => Err("the pose must be finite".into()),
        Edit::Velocity { velocity, .. } if !velocity.is_finite() => {
            Err("the velocity must be finite".into())
        }
        Edit::Settings(settings) => settings.validate().map_err(|e| e.to_string()),
        _ => Ok(()),
    }
}

/// Best-effort position of the `i`-th entry of the list `section`
/// (`events` or `edits`): the `i`-th `tick:` key after the list's name.
fn entry_position(text: &str, section: &str, i: usize) -> Option<(usize, usize)> {
    let list_at = text.find(section)?;
    let (offset, _) = text[list_at..].match_indices("tick").nth(i)?;
    let at = list_at + offset;
    let line = 1 + text[..at].matches('\n').count();
    let column = 1 + text[..at].rfind('\n').map_or(at, |nl| at - nl - 1);
    Some((line, column))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::RecordedEvent;
    use super::*;
    use crate::input::InputSource;

    fn key(name: &str) -> InputSource {
        InputSource::Key(name.into())
    }

    #[test]
    fn events_at_returns_one_ticks_events_in_file_order() {
        let text = "(fixed_hz: 60, ticks: 9, events: [
            (tick: 3, source: Key(\"Space\"), value: 1.0),
            (tick: 3, source: Key(\"Space\"), value: 0.0),
            (tick: 7, source: MouseButton(1), value: 1.0),
        ])";
        let r = Recording::parse(text, Path::new("t.ron")).expect("valid");
        assert_eq!(r.version, 1, "version defaults to 1");
        let at3: Vec<f32> = r.events_at(3).iter().map(|e| e.value).collect();
        assert_eq!(at3, vec![1.0, 0.0]);
        assert!(r.events_at(4).is_empty());
        assert_eq!(r.events_at(7)[0].source, InputSource::MouseButton(1));
        assert!(r.events_at(8).is_empty());
    }

    #[test]
    fn parse_errors_name_file_line_and_column() {
        // Line 3, column 13 is where `tock` stands instead of a known field.
        let text = "(fixed_hz: 60, ticks: 9, events: [\n  (tick: 3, source: Key(\"A\"), value: 1.0),\n  (tick: 4, tock: 1),\n])";
        let err = Recording::parse(text, Path::new("rec.ron")).expect_err("bad field");
        let msg = err.to_string();
        assert!(msg.starts_with("rec.ron:3:"), "{msg}");
        assert!(msg.contains("tock"), "{msg}");
    }

    #[test]
    fn out_of_order_ticks_are_rejected_at_the_event() {
        let text = "(fixed_hz: 60, ticks: 9, events: [\n  (tick: 5, source: Key(\"A\"), value: 1.0),\n  (tick: 4, source: Key(\"A\"), value: 0.0),\n])";
        let err = Recording::parse(text, Path::new("rec.ron")).expect_err("out of order");
        assert_eq!(
            err.to_string(),
            "rec.ron:3:4: event 1: tick 4 comes after tick 5: expected events in tick order"
        );
    }

    #[test]
    fn tick_zero_and_short_ticks_are_rejected() {
        let zero = "(fixed_hz: 60, ticks: 9, events: [(tick: 0, source: Key(\"A\"), value: 1.0)])";
        let msg = Recording::parse(zero, Path::new("z.ron"))
            .expect_err("tick 0")
            .to_string();
        assert!(msg.contains("one-based"), "{msg}");
        let short = "(fixed_hz: 60, ticks: 2, events: [(tick: 3, source: Key(\"A\"), value: 1.0)])";
        let msg = Recording::parse(short, Path::new("s.ron"))
            .expect_err("ticks too small")
            .to_string();
        assert!(msg.contains("ticks >= 3"), "{msg}");
    }

    #[test]
    fn to_ron_round_trips() {
        let r = Recording {
            version: 1,
            fixed_hz: 60,
            ticks: 12,
            events: vec![
                RecordedEvent {
                    tick: 2,
                    source: key("ArrowLeft"),
                    value: 1.0,
                },
                RecordedEvent {
                    tick: 12,
                    source: InputSource::GamepadAxis("LeftStickX".into()),
                    value: -0.25,
                },
            ],
            edits: Vec::new(),
        };
        let text = r.to_ron().expect("serialisable");
        assert!(text.contains("(tick: 2, source: Key(\"ArrowLeft\"), value: 1.0),"));
        assert_eq!(Recording::parse(&text, Path::new("x")).expect("parses"), r);
    }
}
