//! The pose records of a trace, tick by tick, as numbers: what the editor's
//! "Compare with…" holds of run B and measures run A against.
//!
//! A trace line's `poses` member lists every object with a body, in id
//! order, with its committed pose and velocity after the tick (`x`, `y`,
//! `angle`, `vx`, `vy`, `w`, written as the shortest decimal that reads back
//! as the same f32). [`TracedTick`] keeps exactly those six f32 values per
//! object, so a tick of the live session ([`traced_tick`]) and a tick of a
//! file compare bit for bit, as `trace-diff` compares them: a field differs
//! when its bits differ (`-0.0` against `0.0` included).
//!
//! Per tick, [`compare`] counts the objects that differ (a differing field,
//! or a body only one side has) and the largest distance between the two
//! positions of an object both sides have, in metres. Worked example: A has
//! object 20 at (1.0, 2.0) and 21 at (0.0, 0.0); B has 20 at (1.0, 2.5), 21
//! identical and 22 at (5.0, 5.0): two objects differ (20 and 22), the
//! largest distance is 0.5 m (object 20), and the first is 20.

use std::path::Path;

use serde::Deserialize;
use stepframe_core::{FileError, World};

/// The six traced numbers of one object: x, y, angle, vx, vy, w.
pub type TracedFields = [f32; 6];

/// The field names, in [`TracedFields`] order (the trace's member order).
pub const FIELD_NAMES: [&str; 6] = ["x", "y", "angle", "vx", "vy", "w"];

/// One tick's pose records.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TracedTick {
    /// The completed tick.
    pub tick: u64,
    /// The outer frame that ran it (pacing-dependent, never compared).
    pub frame: u64,
    /// `(object id, fields)`, in id order.
    pub objects: Vec<(u64, TracedFields)>,
}

impl TracedTick {
    /// The fields of object `id`, if it has a body at this tick.
    pub fn object(&self, id: u64) -> Option<TracedFields> {
        self.objects
            .binary_search_by_key(&id, |(i, _)| *i)
            .ok()
            .map(|i| self.objects[i].1)
    }
}

/// The live session's tick as a trace would record it: the committed pose and
/// velocity of every object with a body, in id order.
pub fn traced_tick(tick: u64, frame: u64, world: &World) -> TracedTick {
    let objects = world
        .objects()
        .filter_map(|o| {
            let b = o.body.as_ref()?;
            let (p, v) = (b.committed, b.velocity);
            Some((
                o.id.0,
                [p.x, p.y, p.angle, v.linear.x, v.linear.y, v.angular],
            ))
        })
        .collect();
    TracedTick {
        tick,
        frame,
        objects,
    }
}

/// What differs at one tick between run A and run B.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TickDivergence {
    /// The completed tick.
    pub tick: u64,
    /// A's outer frame that ran it (where the timeline draws it).
    pub frame: u64,
    /// Objects whose record differs, or that only one side has.
    pub objects: u32,
    /// The largest distance between the two positions of an object both
    /// sides have, metres (0 when none moved apart).
    pub distance: f64,
    /// The lowest id among the differing objects.
    pub first_object: Option<u64>,
}

/// Compares one tick of A with the same tick of B (module docs).
pub fn compare(a: &TracedTick, b: &TracedTick) -> TickDivergence {
    let mut d = TickDivergence {
        tick: a.tick,
        frame: a.frame,
        ..TickDivergence::default()
    };
    let differ = |d: &mut TickDivergence, id: u64| {
        d.objects += 1;
        d.first_object = Some(d.first_object.map_or(id, |f| f.min(id)));
    };
    let (mut i, mut j) = (0, 0);
    while i < a.objects.len() || j < b.objects.len() {
        match (a.objects.get(i), b.objects.get(j)) {
            (Some((ia, fa)), Some((ib, fb))) if ia == ib => {
                if fa.iter().zip(fb).any(|(x, y)| x.to_bits() != y.to_bits()) {
                    differ(&mut d, *ia);
                    let (dx, dy) = (f64::from(fa[0] - fb[0]), f64::from(fa[1] - fb[1]));
                    d.distance = d.distance.max(dx.hypot(dy));
                }
                i += 1;
                j += 1;
            }
            (Some((ia, _)), Some((ib, _))) if ia < ib => {
                differ(&mut d, *ia);
                i += 1;
            }
            (Some(_), Some((ib, _))) | (None, Some((ib, _))) => {
                differ(&mut d, *ib);
                j += 1;
            }
            (Some((ia, _)), None) => {
                differ(&mut d, *ia);
                i += 1;
            }
            (None, None) => break,
        }
    }
    d
}

/// The members of a trace line the comparison reads (the others are
/// skipped).
#[derive(Deserialize)]
struct Line {
    tick: u64,
    #[serde(default)]
    frame: u64,
    poses: Vec<PoseRecord>,
}

#[derive(Deserialize)]
struct PoseRecord {
    id: u64,
    x: f32,
    y: f32,
    angle: f32,
    vx: f32,
    vy: f32,
    w: f32,
}

/// A whole run's pose records, by tick.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TracePoses {
    /// In tick order, one per tick.
    ticks: Vec<TracedTick>,
}

impl TracePoses {
    /// Reads a JSON Lines trace (`stepframe play --trace`).
    pub fn load(path: &Path) -> Result<TracePoses, FileError> {
        let text = std::fs::read_to_string(path).map_err(|source| FileError::Io {
            file: path.to_path_buf(),
            source,
        })?;
        TracePoses::parse(&text, path)
    }

    /// Parses trace text; `file` names it in errors. Blank lines are skipped;
    /// ticks must increase.
    pub fn parse(text: &str, file: &Path) -> Result<TracePoses, FileError> {
        let mut run = TracePoses::default();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let parse_error = |column: usize, message: String| FileError::Parse {
                file: file.to_path_buf(),
                line: i + 1,
                column,
                message,
            };
            let l: Line = serde_json::from_str(line).map_err(|e| {
                parse_error(
                    e.column(),
                    format!("{e}: expected a trace record with tick and poses"),
                )
            })?;
            if run.ticks.last().is_some_and(|t| t.tick >= l.tick) {
                return Err(parse_error(
                    1,
                    format!("tick {} does not come after the line before it", l.tick),
                ));
            }
            let mut objects: Vec<(u64, TracedFields)> = l
                .poses
                .into_iter()
                .map(|p| (p.id, [p.x, p.y, p.angle, p.vx, p.vy, p.w]))
                .collect();
            objects.sort_by_key(|(id, _)| *id);
            run.push(TracedTick {
                tick: l.tick,
                frame: l.frame,
                objects,
            });
        }
        Ok(run)
    }

    /// Adds the next tick (a run recorded by the editor); a tick that is not
    /// after the last replaces the ticks from it on (a branch run again).
    pub fn push(&mut self, tick: TracedTick) {
        let keep = self.ticks.partition_point(|t| t.tick < tick.tick);
        self.ticks.truncate(keep);
        self.ticks.push(tick);
    }

    /// Forgets all but the newest `n` ticks (a bound on what a long fork
    /// keeps).
    pub fn keep_last(&mut self, n: usize) {
        if self.ticks.len() > n {
            self.ticks.drain(..self.ticks.len() - n);
        }
    }

    /// The records of `tick`, if the run has it.
    pub fn at(&self, tick: u64) -> Option<&TracedTick> {
        self.ticks
            .binary_search_by_key(&tick, |t| t.tick)
            .ok()
            .map(|i| &self.ticks[i])
    }

    /// Ticks held.
    pub fn len(&self) -> usize {
        self.ticks.len()
    }

    /// Whether no tick is held.
    pub fn is_empty(&self) -> bool {
        self.ticks.is_empty()
    }

    /// The first and last tick held.
    pub fn range(&self) -> Option<(u64, u64)> {
        Some((self.ticks.first()?.tick, self.ticks.last()?.tick))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tick(objects: &[(u64, [f32; 6])]) -> TracedTick {
        TracedTick {
            tick: 7,
            frame: 4,
            objects: objects.to_vec(),
        }
    }

    #[test]
    fn the_worked_example_counts_two_objects_half_a_metre_apart() {
        let a = tick(&[(20, [1.0, 2.0, 0.0, 0.0, 0.0, 0.0]), (21, [0.0; 6])]);
        let b = tick(&[
            (20, [1.0, 2.5, 0.0, 0.0, 0.0, 0.0]),
            (21, [0.0; 6]),
            (22, [5.0, 5.0, 0.0, 0.0, 0.0, 0.0]),
        ]);
        let d = compare(&a, &b);
        assert_eq!(d.objects, 2);
        assert_eq!(d.distance, 0.5);
        assert_eq!(d.first_object, Some(20));
        assert_eq!((d.tick, d.frame), (7, 4));
        assert_eq!(
            compare(&a, &a),
            TickDivergence {
                tick: 7,
                frame: 4,
                ..TickDivergence::default()
            }
        );
    }

    #[test]
    fn a_sign_of_zero_or_a_velocity_alone_makes_a_difference_at_no_distance() {
        let a = tick(&[(1, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0])]);
        let b = tick(&[(1, [-0.0, 0.0, 0.0, 0.0, 0.0, 0.0])]);
        assert_eq!(compare(&a, &b).objects, 1);
        let c = tick(&[(1, [0.0, 0.0, 0.0, 0.0, 1.0e-7, 0.0])]);
        let d = compare(&a, &c);
        assert_eq!((d.objects, d.distance), (1, 0.0));
    }

    #[test]
    fn trace_lines_read_back_as_the_numbers_written() {
        let text = concat!(
            r#"{"tick":1,"sim_time":0.0,"frame":1,"inputs":[],"contacts":[],"poses":[{"id":3,"x":0.1,"y":-2.5,"angle":0.0,"vx":0.0,"vy":-0.16350001,"w":0.0,"particles":12},{"id":1,"x":1.0,"y":0.0,"angle":0.0,"vx":0.0,"vy":0.0,"w":0.0}],"hash":"00000000000000aa"}"#,
            "\n\n",
            r#"{"tick":2,"sim_time":0.016666666666666666,"frame":1,"inputs":[],"contacts":[],"poses":[],"hash":"00000000000000bb"}"#,
            "\n"
        );
        let run = TracePoses::parse(text, Path::new("b.jsonl")).expect("valid");
        assert_eq!(run.len(), 2);
        assert_eq!(run.range(), Some((1, 2)));
        let t1 = run.at(1).expect("tick 1");
        assert_eq!(t1.objects[0].0, 1, "sorted by id");
        assert_eq!(t1.object(3), Some([0.1, -2.5, 0.0, 0.0, -0.16350001, 0.0]));
        assert!(run.at(2).expect("tick 2").objects.is_empty());
        assert!(run.at(3).is_none());
    }

    #[test]
    fn a_bad_line_is_named_with_its_line_and_column() {
        let text = "{\"tick\":1,\"poses\":[]}\n{\"tick\":2,\"poses\":[{\"id\":1,\"x\":true}]}\n";
        let e = TracePoses::parse(text, Path::new("b.jsonl")).expect_err("bad x");
        let msg = e.to_string();
        assert!(msg.starts_with("b.jsonl:2:"), "{msg}");
        assert!(msg.contains("expected a trace record"), "{msg}");
        let e = TracePoses::parse(
            "{\"tick\":2,\"poses\":[]}\n{\"tick\":2,\"poses\":[]}\n",
            Path::new("b"),
        )
        .expect_err("repeated tick");
        assert_eq!(
            e.to_string(),
            "b:2:1: tick 2 does not come after the line before it"
        );
    }
}
