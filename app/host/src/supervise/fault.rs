//! A fault the child could not report itself, as a typed value: what
//! happened ([`FaultKind`]), where (object, behaviour, hook, tick, from the
//! fault marker), and what the process said; with a [`Display`] that is the
//! one line every front end prints, and the naming step that turns ids into
//! the scene's names ([`Names`]).
//!
//! ```text
//! stack overflow in FixedUpdate of #3 `Deep` (Faulty) at tick 120: thread 'main' has overflowed its stack
//! stuck hook in FixedUpdate of #3 `Spinner` (Faulty) at tick 120: it did not return within 2 s (the stuck-hook limit); the process was stopped
//! ```
//!
//! [`Display`]: std::fmt::Display

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use stepframe_core::{HookCall, HookKind, ObjectId, Pipeline, Registry, Scene, Snapshot};

use crate::protocol::JournalEntry;

/// What ended the child.
#[derive(Clone, Debug, PartialEq)]
pub enum FaultKind {
    /// One hook call ran longer than the stuck-hook limit, and the
    /// supervisor killed the process.
    Stuck {
        /// The limit it ran past.
        after: Duration,
    },
    /// The process aborted (`SIGABRT`) and said nothing this module knows:
    /// `std::process::abort()`, or a native library's `abort()`.
    Abort,
    /// A thread ran out of stack: Rust's handler said "thread '…' has
    /// overflowed its stack" and aborted.
    StackOverflow,
    /// An allocation failed: Rust said "memory allocation of N bytes
    /// failed" and aborted.
    OutOfMemory {
        /// The allocation that failed, bytes, if the message said.
        bytes: Option<u64>,
        /// The child's memory limit, bytes, if it had one.
        limit: Option<u64>,
    },
    /// Another signal ended it (`SIGSEGV`, or `SIGKILL` from the system's
    /// out-of-memory killer or another process).
    Signal(i32),
}

/// What the supervisor knows to call the faulting object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ObjectName {
    /// Its name in the scene it came from.
    Named(String),
    /// The scene has no object of that id: it was spawned at run time.
    SpawnedAtRunTime,
    /// Nothing to name it from (no scene file: a world built in code).
    Unknown,
}

/// A fault of a supervised child, named as far as the marker and a
/// [`Names`] source allow (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    /// What happened.
    pub kind: FaultKind,
    /// The object whose hook ran, if one did.
    pub object: Option<ObjectId>,
    /// Its name.
    pub object_name: ObjectName,
    /// The behaviour's name, once named ([`Fault::name_with`]).
    pub behaviour: Option<String>,
    /// The behaviour's registration number in the cohort (what the marker
    /// holds; [`Names::behaviour_name`] maps it to a name).
    pub seq: u64,
    /// The hook that ran, if one did.
    pub hook: Option<HookKind>,
    /// The tick: the hook's (pending in fixed hooks, completed elsewhere),
    /// or the last one announced when no hook ran.
    pub tick: u64,
    /// What the process said about it ("thread 'main' has overflowed its
    /// stack"), if anything.
    pub detail: Option<String>,
    /// How many journal entries the host had made when it died, and the
    /// newest one's frame delta if it was a frame
    /// ([`stepframe_core::HookBeacon::journal_tail`]): the frame it died
    /// in was journaled but never sent, and a restart adds it back so it
    /// stops at the tick before the fault even when that frame ran
    /// several ticks.
    pub journal_tail: (u64, Option<f64>),
}

/// Where a front end finds the names of objects and behaviours: a scene
/// loaded afresh ([`SceneNames`]), or the editor's last published view.
pub trait Names {
    /// The name of `object`, if this source knows it.
    fn object_name(&self, object: ObjectId) -> Option<String>;
    /// The name of behaviour `seq` of `object`, if this source knows it.
    fn behaviour_name(&self, object: ObjectId, seq: u64) -> Option<String>;
}

impl Fault {
    /// A fault of `kind` at the call the marker shows (`call`), or outside
    /// any hook at `last_tick`. Unnamed until [`Fault::name_with`].
    pub fn at(kind: FaultKind, call: Option<HookCall>, last_tick: u64) -> Fault {
        Fault {
            kind,
            object: call.map(|c| c.object),
            object_name: ObjectName::Unknown,
            behaviour: None,
            seq: call.map_or(0, |c| c.seq),
            hook: call.map(|c| c.hook),
            tick: call.map_or(last_tick, |c| c.tick),
            detail: None,
            journal_tail: (0, None),
        }
    }

    /// The same fault with the journal's tail as the host last said it.
    pub fn with_journal_tail(mut self, tail: (u64, Option<f64>)) -> Fault {
        self.journal_tail = tail;
        self
    }

    /// The journal a restart does again: `received` (what the front end
    /// took from the dead host), with the frame the host died in added
    /// back when that frame is the one entry it never sent
    /// ([`Fault::journal_tail`]). Without it a frame that ran ticks 39 and
    /// 40 and died in 40 would leave the restart at 38, not at the tick
    /// before the fault. Anything else missing (the host died before it
    /// sent an earlier frame's entries) cannot be made up: the restart
    /// then stands where the journal ends.
    pub fn journal_for_restart(&self, mut received: Vec<JournalEntry>) -> Vec<JournalEntry> {
        if let (made, Some(dt)) = self.journal_tail
            && made == received.len() as u64 + 1
        {
            received.push(JournalEntry::Frame { dt });
        }
        received
    }

    /// The same fault with what the process said.
    pub fn with_detail(mut self, detail: Option<String>) -> Fault {
        self.detail = detail;
        self
    }

    /// Names the object and the behaviour from `names`: an object the
    /// source does not know was spawned at run time.
    pub fn name_with(&mut self, names: &dyn Names) {
        let Some(object) = self.object else { return };
        self.object_name = match names.object_name(object) {
            Some(name) => ObjectName::Named(name),
            None => ObjectName::SpawnedAtRunTime,
        };
        self.behaviour = names.behaviour_name(object, self.seq);
    }

    /// True when the supervisor stopped the child ([`FaultKind::Stuck`]),
    /// false when the child died of its own accord.
    pub fn was_stopped(&self) -> bool {
        matches!(self.kind, FaultKind::Stuck { .. })
    }
}

/// `2 s`, `0.5 s`.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

/// `256 MiB`, or bytes when not a whole number of MiB.
fn mib(bytes: u64) -> String {
    if bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

/// The usual name of a signal a child dies of.
fn signal_name(signal: i32) -> &'static str {
    match signal {
        6 => "SIGABRT",
        9 => "SIGKILL: the system's out-of-memory killer, or another process",
        11 => "SIGSEGV",
        7 => "SIGBUS",
        4 => "SIGILL",
        8 => "SIGFPE",
        15 => "SIGTERM",
        _ => "a signal",
    }
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            FaultKind::Stuck { .. } => f.write_str("stuck hook")?,
            FaultKind::Abort => f.write_str("abort")?,
            FaultKind::StackOverflow => f.write_str("stack overflow")?,
            FaultKind::OutOfMemory { .. } => f.write_str("out of memory")?,
            FaultKind::Signal(n) => write!(f, "killed by signal {n}")?,
        }
        match (self.hook, self.object) {
            (Some(hook), Some(object)) => {
                write!(f, " in {hook} of {object}")?;
                match &self.object_name {
                    ObjectName::Named(name) => write!(f, " `{name}`")?,
                    ObjectName::SpawnedAtRunTime => f.write_str(" (spawned at run time)")?,
                    ObjectName::Unknown => {}
                }
                if let Some(b) = &self.behaviour {
                    write!(f, " ({b})")?;
                }
                write!(f, " at tick {}", self.tick)?;
            }
            _ => write!(f, " outside any hook, after tick {}", self.tick)?,
        }
        f.write_str(": ")?;
        match &self.kind {
            FaultKind::Stuck { after } => write!(
                f,
                "it did not return within {} (the stuck-hook limit); the process was stopped",
                seconds(*after)
            ),
            FaultKind::OutOfMemory { bytes, limit } => {
                match (&self.detail, bytes) {
                    (Some(d), _) => f.write_str(d)?,
                    (None, Some(n)) => write!(f, "memory allocation of {n} bytes failed")?,
                    (None, None) => f.write_str("an allocation failed")?,
                }
                match limit {
                    Some(l) => write!(f, " (memory limit {})", mib(*l)),
                    None => Ok(()),
                }
            }
            FaultKind::StackOverflow => f.write_str(
                self.detail
                    .as_deref()
                    .unwrap_or("a thread overflowed its stack"),
            ),
            FaultKind::Abort => match &self.detail {
                Some(d) => write!(f, "the process aborted (SIGABRT) after saying: {d}"),
                None => f.write_str("the process aborted (SIGABRT)"),
            },
            FaultKind::Signal(n) => write!(f, "the process was killed ({})", signal_name(*n)),
        }
    }
}

/// The names of a scene's objects and behaviours as loaded, before any
/// tick: what a supervisor knows of a dead child's session. Registration
/// numbers are handed out in load order, so a fresh load numbers the
/// scene's behaviours as the child did; an object spawned at run time is
/// not in it.
#[derive(Debug)]
pub struct SceneNames {
    /// Object names by id.
    objects: BTreeMap<ObjectId, String>,
    /// The loaded session, for behaviour names by registration number.
    snapshot: Snapshot,
}

impl SceneNames {
    /// Loads `scene` with `registry` into a fresh pipeline (nothing runs)
    /// and keeps its names; the scene's error, in its words, if it does
    /// not load.
    pub fn load(scene: &Path, registry: &Registry) -> Result<SceneNames, String> {
        let loaded = Scene::load(scene, registry).map_err(|e| e.to_string())?;
        let mut pipeline = Pipeline::new(loaded.settings.time);
        pipeline
            .load_scene(&loaded, registry)
            .map_err(|e| e.to_string())?;
        Ok(SceneNames::of(&pipeline))
    }

    /// The names of `pipeline`'s session as it stands.
    pub fn of(pipeline: &Pipeline) -> SceneNames {
        SceneNames {
            objects: pipeline
                .world()
                .objects()
                .map(|o| (o.id, o.name.clone()))
                .collect(),
            snapshot: pipeline.snapshot(),
        }
    }
}

impl Names for SceneNames {
    fn object_name(&self, object: ObjectId) -> Option<String> {
        self.objects.get(&object).cloned()
    }

    fn behaviour_name(&self, object: ObjectId, seq: u64) -> Option<String> {
        self.snapshot.behaviour_name(object, seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Two;

    impl Names for Two {
        fn object_name(&self, object: ObjectId) -> Option<String> {
            (object == ObjectId(3)).then(|| "Deep".to_string())
        }
        fn behaviour_name(&self, object: ObjectId, seq: u64) -> Option<String> {
            (object == ObjectId(3) && seq == 4).then(|| "Faulty".to_string())
        }
    }

    fn call(object: u64, seq: u64) -> HookCall {
        HookCall {
            call: 8,
            object: ObjectId(object),
            seq,
            hook: HookKind::FixedUpdate,
            tick: 120,
        }
    }

    #[test]
    fn a_named_fault_reads_kind_hook_object_behaviour_tick_and_what_was_said() {
        let mut f = Fault::at(FaultKind::StackOverflow, Some(call(3, 4)), 0)
            .with_detail(Some("thread 'main' has overflowed its stack".into()));
        f.name_with(&Two);
        assert_eq!(
            f.to_string(),
            "stack overflow in FixedUpdate of #3 `Deep` (Faulty) at tick 120: thread 'main' has overflowed its stack"
        );
        let mut stuck = Fault::at(
            FaultKind::Stuck {
                after: Duration::from_millis(1500),
            },
            Some(call(3, 4)),
            0,
        );
        stuck.name_with(&Two);
        assert!(stuck.was_stopped());
        assert_eq!(
            stuck.to_string(),
            "stuck hook in FixedUpdate of #3 `Deep` (Faulty) at tick 120: it did not return within 1.5 s (the stuck-hook limit); the process was stopped"
        );
    }

    #[test]
    fn an_object_the_scene_does_not_have_was_spawned_at_run_time() {
        let mut f = Fault::at(
            FaultKind::OutOfMemory {
                bytes: Some(16 << 20),
                limit: Some(256 << 20),
            },
            Some(call(40, 9)),
            0,
        );
        f.name_with(&Two);
        assert_eq!(f.object_name, ObjectName::SpawnedAtRunTime);
        assert_eq!(
            f.to_string(),
            "out of memory in FixedUpdate of #40 (spawned at run time) at tick 120: memory allocation of 16777216 bytes failed (memory limit 256 MiB)"
        );
    }

    #[test]
    fn a_fault_outside_every_hook_gives_the_last_tick() {
        let f = Fault::at(FaultKind::Abort, None, 77);
        assert_eq!(
            f.to_string(),
            "abort outside any hook, after tick 77: the process aborted (SIGABRT)"
        );
        let killed = Fault::at(FaultKind::Signal(9), None, 3);
        assert!(
            killed.to_string().contains("out-of-memory killer"),
            "{killed}"
        );
    }
}
