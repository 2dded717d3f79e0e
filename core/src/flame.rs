//! Flame zones: where one pipeline call's wall time went, as nested zones on
//! a time axis (Tracy's zones), so the editor's Flame tab and the Chrome
//! trace can show a slow frame's Update, each fixed tick and inside it
//! FixedUpdate by priority, physics (with the mid-step hooks by priority
//! inside it) and contacts, then Flow Tick and presentation.
//!
//! # Two tiers, because a timestamp costs more than a callback
//!
//! Reading the wall clock costs about 20 ns on the machines this runs on,
//! while a FixedUpdate callback of the 10,000-behaviour dispatch world
//! costs about 3 ns. A zone per call recorded on every frame would make
//! that world several times slower, so there are two levels
//! ([`ZoneDetail`]):
//!
//! - **Coarse** zones are phases, ticks and priority groups: a few dozen a
//!   frame. They reuse the timestamps the pipeline already takes for its
//!   [`PhaseTiming`](crate::PhaseTiming) (the update phase's start and end,
//!   each priority group's, physics'), plus three per tick (its start, the
//!   end of its contacts, its end), so a 60 Hz frame of one tick with eight
//!   priority groups adds 3 clock reads to the 20 it already made. They go
//!   into a buffer reserved when zones are switched on
//!   ([`COARSE_CAPACITY`] zones), so a steady tick still allocates nothing;
//!   a call that would need more drops the excess and counts it
//!   ([`FrameZones::dropped`]). The `flame_overhead` bench figure measures
//!   the dispatch world with them on against off (docs/performance.md).
//! - **Fine** zones add one zone per hook call, naming the hook, the object
//!   and the behaviour. They cost two clock reads a call and make
//!   FixedUpdate take its per-call loop, so nothing turns them on in a live
//!   run: the editor replays the one frame the user asks about from the
//!   rewind history in a scratch pipeline with them on
//!   ([`Session::replay_frame`](crate::Session::replay_frame)), and labels
//!   those timings "replayed".
//!
//! Zones are telemetry: they never feed back into the simulation, so a run
//! with zones on has the same trace and state hash as one with them off
//! (tests/flame.rs checks it tick by tick).
//!
//! # Layout
//!
//! A [`FrameZones`] holds the zones of the last call in the order they
//! began (a parent before its children), each with its depth. Times are
//! nanoseconds from the first zone's start. For a frame of three ticks at
//! 60 Hz whose cohort has priorities -10 and 0:
//!
//! ```text
//! depth 0  Update                     Fixed                                        Flow Tick  presentation
//! depth 1                             tick 1          tick 2          tick 3
//! depth 2                             P-10 P0 physics contacts  ...
//! ```
//!
//! A priority group whose calls were split by a hook's request (a routine
//! started, a break asked for) is one zone, from its first call to its
//! last. A group in which nothing was called has no zone.

use crate::ids::{HookKind, ObjectId, Priority};
use crate::report::FrameKind;

/// Zones reserved when coarse zones are switched on: a frame of the default
/// cap of 4 ticks with 16 priorities (the most [`PriorityTimes`] keeps
/// apart) takes 4 phases + 4 × (1 tick + 16 groups + physics + contacts) =
/// 80 zones, 144 if every priority also has mid-step hooks; 256 leaves room
/// for a step cap of 12 without them.
///
/// [`PriorityTimes`]: crate::PriorityTimes
pub const COARSE_CAPACITY: usize = 256;

/// Zones a fine recording may hold before it drops the rest: the
/// 10,000-behaviour world makes about 10,000 a tick.
pub const FINE_CAPACITY: usize = 1 << 20;

/// How much of a call the pipeline records as zones.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ZoneDetail {
    /// None: the pipeline takes only the timestamps of its phase timings.
    #[default]
    Off,
    /// Phases, ticks, priority groups, physics, contacts (live, every frame).
    Coarse,
    /// Coarse zones and one zone per hook call (replays of one frame).
    Fine,
}

/// What a zone timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ZoneKind {
    /// The update phase: Start, Update, frame routines.
    Update,
    /// The fixed phase: every tick of the call.
    Fixed,
    /// One fixed tick, by its one-based index.
    Tick(u64),
    /// The FixedUpdate calls of one priority in one tick.
    FixedUpdate(Priority),
    /// Reconcile, physics step and commit of one tick.
    Physics,
    /// The mid-step hook calls of one priority in one tick's physics step.
    /// The calls interleave with the engine's own work (one per contact pair
    /// and substep), so the zone is their total: it begins where the first
    /// began and lasts as long as all of them took, the priorities' zones
    /// laid end to end, lowest priority first.
    MidStep(Priority),
    /// The contact and tear callbacks of one tick.
    Contacts,
    /// Flow Tick, after the fixed phase.
    Flow,
    /// The presentation phase.
    Present,
    /// One hook call (fine zones only).
    Call {
        /// Which hook.
        hook: HookKind,
        /// The object it ran for.
        object: ObjectId,
        /// Index of the behaviour's name in [`FrameZones::names`].
        behaviour: u32,
    },
}

impl ZoneKind {
    /// What the Flame tab calls the zone: "Update", "tick 3",
    /// "FixedUpdate priority -10", "physics"; a call by its hook
    /// ("FixedUpdate"), the object and behaviour being the caller's to add.
    pub fn label(&self) -> String {
        match self {
            ZoneKind::Update => "Update".to_string(),
            ZoneKind::Fixed => "Fixed".to_string(),
            ZoneKind::Tick(n) => format!("tick {n}"),
            ZoneKind::FixedUpdate(p) => format!("FixedUpdate priority {p}"),
            ZoneKind::Physics => "physics".to_string(),
            ZoneKind::MidStep(p) => format!("MidStep priority {p}"),
            ZoneKind::Contacts => "contacts".to_string(),
            ZoneKind::Flow => "Flow Tick".to_string(),
            ZoneKind::Present => "presentation".to_string(),
            ZoneKind::Call { hook, .. } => hook.name().to_string(),
        }
    }
}

/// One zone: what ran, when, how deep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Zone {
    /// What it timed.
    pub kind: ZoneKind,
    /// Start, ns from the call's first zone.
    pub start_ns: u64,
    /// End, ns from the call's first zone (≥ start).
    pub end_ns: u64,
    /// 0 for phases, 1 inside a phase, and so on.
    pub depth: u8,
}

impl Zone {
    /// Length, ns.
    pub fn len_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }

    /// Length, ms.
    pub fn ms(&self) -> f64 {
        self.len_ns() as f64 / 1e6
    }
}

/// A zone begun by the pipeline, to end later ([`FrameZones::end`]);
/// `NONE` when zones are off or the buffer was full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ZoneId(u32);

impl ZoneId {
    pub(crate) const NONE: ZoneId = ZoneId(u32::MAX);
}

/// Deepest nesting kept apart (phase, tick, group, call, and room).
const MAX_DEPTH: usize = 8;

/// The zones of one pipeline call (see the module docs). Cloning into an
/// existing value with `clone_from` reuses its buffers, so a host can keep
/// recent frames' zones without allocating once its ring is warm.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct FrameZones {
    /// The call's frame index (the interrupted frame's for a continuation).
    frame_index: u64,
    /// What the call was.
    kind: FrameKind,
    /// What was recorded.
    detail: ZoneDetail,
    /// Zones in the order they began.
    zones: Vec<Zone>,
    /// Behaviour names of fine zones, each once.
    names: Vec<String>,
    /// Zones left out because the buffer was full.
    dropped: u32,
    /// Wall time of the first zone's start, ns on the pipeline's wall clock.
    origin: Option<u64>,
    /// Open zones, innermost last.
    open: [u32; MAX_DEPTH],
    /// How many of `open` are in use.
    depth: u8,
    /// The zone the last `begin` pushed (`u32::MAX` when it reopened one):
    /// only such a zone may be cancelled away.
    fresh: u32,
}

impl Clone for FrameZones {
    fn clone(&self) -> FrameZones {
        let mut z = FrameZones::default();
        z.clone_from(self);
        z
    }

    fn clone_from(&mut self, other: &FrameZones) {
        self.frame_index = other.frame_index;
        self.kind = other.kind;
        self.detail = other.detail;
        self.zones.clone_from(&other.zones);
        self.names.clone_from(&other.names);
        self.dropped = other.dropped;
        self.origin = other.origin;
        self.open = other.open;
        self.depth = other.depth;
        self.fresh = other.fresh;
    }
}

/// Two recordings are equal when they hold the same zones of the same call.
impl PartialEq for FrameZones {
    fn eq(&self, other: &FrameZones) -> bool {
        self.frame_index == other.frame_index
            && self.kind == other.kind
            && self.detail == other.detail
            && self.zones == other.zones
            && self.names == other.names
            && self.dropped == other.dropped
    }
}

impl FrameZones {
    /// The frame index of the call the zones are of.
    pub fn frame_index(&self) -> u64 {
        self.frame_index
    }

    /// What that call was (a frame, the rest of one, a lone tick).
    pub fn kind(&self) -> FrameKind {
        self.kind
    }

    /// What was recorded.
    pub fn detail(&self) -> ZoneDetail {
        self.detail
    }

    /// The zones, parents before their children, in the order they began.
    pub fn zones(&self) -> &[Zone] {
        &self.zones
    }

    /// The behaviour names fine zones refer to.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The behaviour a call zone ran (`None` for other zones).
    pub fn behaviour(&self, zone: &Zone) -> Option<&str> {
        match zone.kind {
            ZoneKind::Call { behaviour, .. } => {
                self.names.get(behaviour as usize).map(String::as_str)
            }
            _ => None,
        }
    }

    /// Zones left out because the buffer was full (0 in any frame within
    /// [`COARSE_CAPACITY`]).
    pub fn dropped(&self) -> u32 {
        self.dropped
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.zones.is_empty()
    }

    /// From the first zone's start to the last end, ns.
    pub fn span_ns(&self) -> u64 {
        self.zones.iter().map(|z| z.end_ns).max().unwrap_or(0)
    }

    /// The zones directly inside zone `i`, by index.
    pub fn children(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let depth = self.zones.get(i).map_or(0, |z| z.depth);
        self.zones
            .iter()
            .enumerate()
            .skip(i + 1)
            .take_while(move |(_, z)| z.depth > depth)
            .filter(move |(_, z)| z.depth == depth + 1)
            .map(|(k, _)| k)
    }

    /// A recorder for `detail`, its buffer reserved.
    pub(crate) fn with_detail(detail: ZoneDetail) -> FrameZones {
        let capacity = match detail {
            ZoneDetail::Off => 0,
            ZoneDetail::Coarse => COARSE_CAPACITY,
            // A fine replay allocates as it goes (it is not the live run).
            ZoneDetail::Fine => COARSE_CAPACITY,
        };
        FrameZones {
            detail,
            zones: Vec::with_capacity(capacity),
            ..FrameZones::default()
        }
    }

    /// Whether zones are recorded at all.
    #[inline]
    pub(crate) fn on(&self) -> bool {
        self.detail != ZoneDetail::Off
    }

    /// Whether every hook call gets a zone.
    #[inline]
    pub(crate) fn fine(&self) -> bool {
        self.detail == ZoneDetail::Fine
    }

    /// Starts the zones of a new call.
    pub(crate) fn reset(&mut self, frame_index: u64, kind: FrameKind) {
        self.frame_index = frame_index;
        self.kind = kind;
        self.zones.clear();
        self.names.clear();
        self.dropped = 0;
        self.origin = None;
        self.depth = 0;
    }

    /// Says which call the zones are of, once it is known (a step-tick
    /// becomes a lone tick only when no frame was under way).
    pub(crate) fn set_call(&mut self, frame_index: u64, kind: FrameKind) {
        self.frame_index = frame_index;
        self.kind = kind;
    }

    fn rel(&mut self, t: std::time::Duration) -> u64 {
        let ns = u64::try_from(t.as_nanos()).unwrap_or(u64::MAX);
        let origin = *self.origin.get_or_insert(ns);
        ns.saturating_sub(origin)
    }

    /// Begins a zone at `t` (a reading of the pipeline's wall clock) inside
    /// the innermost open one.
    #[inline]
    pub(crate) fn begin(&mut self, kind: ZoneKind, t: std::time::Duration) -> ZoneId {
        if !self.on() {
            return ZoneId::NONE;
        }
        self.begin_slow(kind, t)
    }

    fn begin_slow(&mut self, kind: ZoneKind, t: std::time::Duration) -> ZoneId {
        let limit = if self.fine() {
            FINE_CAPACITY
        } else {
            self.zones.capacity()
        };
        if self.zones.len() >= limit || usize::from(self.depth) >= MAX_DEPTH {
            self.dropped = self.dropped.saturating_add(1);
            return ZoneId::NONE;
        }
        let at = self.rel(t);
        let depth = self.depth;
        // A priority group split by a hook's request goes on in the zone it
        // began: the previous zone at this depth, if nothing came after it.
        if let ZoneKind::FixedUpdate(_) = kind
            && let Some(i) = self.reopenable(kind, depth)
        {
            self.open[usize::from(depth)] = i as u32;
            self.depth += 1;
            self.fresh = u32::MAX;
            return ZoneId(i as u32);
        }
        let i = self.zones.len();
        self.zones.push(Zone {
            kind,
            start_ns: at,
            end_ns: at,
            depth,
        });
        self.open[usize::from(depth)] = i as u32;
        self.depth += 1;
        self.fresh = i as u32;
        ZoneId(i as u32)
    }

    /// The last zone at `depth`, if it is of `kind` and no zone at that
    /// depth or above began after it.
    fn reopenable(&self, kind: ZoneKind, depth: u8) -> Option<usize> {
        let i = self.zones.iter().rposition(|z| z.depth <= depth)?;
        let z = &self.zones[i];
        // It must be inside the zone now open around us.
        let parent_ok = depth == 0 || i as u32 > self.open[usize::from(depth) - 1];
        (z.depth == depth && z.kind == kind && parent_ok).then_some(i)
    }

    /// Ends zone `id` at `t`, and any zone still open inside it (a hook that
    /// panicked left its call open).
    #[inline]
    pub(crate) fn end(&mut self, id: ZoneId, t: std::time::Duration) {
        if id == ZoneId::NONE {
            return;
        }
        let at = self.rel(t);
        while self.depth > 0 {
            self.depth -= 1;
            let open = self.open[usize::from(self.depth)];
            let z = &mut self.zones[open as usize];
            z.end_ns = z.end_ns.max(at);
            if open == id.0 {
                break;
            }
        }
    }

    /// Closes zone `id` as it stands and removes it if the last `begin`
    /// made it and nothing began inside it (a priority group none of whose
    /// calls ran). A reopened zone keeps what it timed before.
    pub(crate) fn cancel(&mut self, id: ZoneId) {
        if id == ZoneId::NONE {
            return;
        }
        if self.depth > 0 && self.open[usize::from(self.depth) - 1] == id.0 {
            self.depth -= 1;
            if id.0 == self.fresh && id.0 as usize + 1 == self.zones.len() {
                self.zones.pop();
            }
        }
    }

    /// A zone of known extent, `start..end`, inside the innermost open one
    /// (a total laid out after the fact: [`ZoneKind::MidStep`]).
    pub(crate) fn record(
        &mut self,
        kind: ZoneKind,
        start: std::time::Duration,
        end: std::time::Duration,
    ) {
        let id = self.begin(kind, start);
        self.end(id, end);
    }

    /// The index of behaviour `name` in [`FrameZones::names`] (added if new).
    pub(crate) fn name_index(&mut self, name: &str) -> u32 {
        if let Some(i) = self.names.iter().position(|n| n == name) {
            return i as u32;
        }
        self.names.push(name.to_string());
        (self.names.len() - 1) as u32
    }
}

/// The zones of recent frames, oldest first, at most `capacity` of them: the
/// editor's and the player's memory of live coarse zones. A slot's buffers
/// are reused when it is overwritten, so a warm ring does not allocate.
///
/// Memory: a frame of one tick and eight priority groups is 14 zones of 32
/// bytes; [`DEFAULT_ZONE_FRAMES`] = 3,600 frames (a minute at 60 Hz) of
/// those take about 1.6 MiB, at most 30 MiB if every frame filled its
/// [`COARSE_CAPACITY`].
#[derive(Clone, Debug)]
pub struct ZoneRing {
    /// Slots in push order, starting at `head`.
    slots: Vec<FrameZones>,
    /// Index of the oldest slot once the ring is full.
    head: usize,
    /// Most frames kept.
    capacity: usize,
}

/// Frames a [`ZoneRing`] keeps by default: one minute at 60 Hz.
pub const DEFAULT_ZONE_FRAMES: usize = 3_600;

impl Default for ZoneRing {
    fn default() -> ZoneRing {
        ZoneRing::with_capacity(DEFAULT_ZONE_FRAMES)
    }
}

impl ZoneRing {
    /// An empty ring keeping at most `capacity` frames (at least 1).
    pub fn with_capacity(capacity: usize) -> ZoneRing {
        ZoneRing {
            slots: Vec::new(),
            head: 0,
            capacity: capacity.max(1),
        }
    }

    /// Frames kept.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when no frame is kept.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Keeps a copy of `zones`, dropping the oldest frame when full. A
    /// frame index at or before the newest kept one (a rewind ran those
    /// frames again) first drops the frames it replaces.
    pub fn push(&mut self, zones: &FrameZones) {
        if zones.is_empty() {
            return;
        }
        // A new frame replaces a kept one of its index or later; a
        // continuation or a lone tick shares its index with the frame
        // before it, so only later ones are replaced.
        let first_replaced = match zones.kind {
            FrameKind::Frame => zones.frame_index,
            _ => zones.frame_index + 1,
        };
        if self
            .newest()
            .is_some_and(|n| n.frame_index >= first_replaced)
        {
            self.retain_before(first_replaced);
        }
        if self.slots.len() < self.capacity {
            self.slots.push(zones.clone());
            return;
        }
        self.slots[self.head].clone_from(zones);
        self.head = (self.head + 1) % self.capacity;
    }

    /// The newest frame kept.
    pub fn newest(&self) -> Option<&FrameZones> {
        self.iter().last()
    }

    /// Frames oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &FrameZones> + Clone + '_ {
        let (a, b) = self.slots.split_at(self.head);
        b.iter().chain(a.iter())
    }

    /// The zones of frame `frame_index`'s call of `kind` (the newest if
    /// several), if kept.
    pub fn get(&self, frame_index: u64, kind: FrameKind) -> Option<&FrameZones> {
        self.iter()
            .rev()
            .find(|z| z.frame_index == frame_index && z.kind == kind)
    }

    /// Keeps only frames before `frame_index` (an abandoned branch goes).
    pub fn retain_before(&mut self, frame_index: u64) {
        let mut kept = std::mem::take(&mut self.slots);
        // Put them in push order first.
        kept.rotate_left(self.head);
        kept.retain(|z| z.frame_index < frame_index);
        self.slots = kept;
        self.head = 0;
    }

    /// Forgets every frame.
    pub fn clear(&mut self) {
        self.slots.clear();
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn zones_nest_by_the_order_they_begin_and_end() {
        let mut z = FrameZones::with_detail(ZoneDetail::Coarse);
        z.reset(7, FrameKind::Frame);
        let fixed = z.begin(ZoneKind::Fixed, ms(10));
        let tick = z.begin(ZoneKind::Tick(3), ms(11));
        let g = z.begin(ZoneKind::FixedUpdate(Priority(-10)), ms(11));
        z.end(g, ms(13));
        z.end(tick, ms(15));
        z.end(fixed, ms(16));
        let got: Vec<(ZoneKind, u64, u64, u8)> = z
            .zones()
            .iter()
            .map(|z| (z.kind, z.start_ns, z.end_ns, z.depth))
            .collect();
        assert_eq!(
            got,
            vec![
                (ZoneKind::Fixed, 0, 6_000_000, 0),
                (ZoneKind::Tick(3), 1_000_000, 5_000_000, 1),
                (
                    ZoneKind::FixedUpdate(Priority(-10)),
                    1_000_000,
                    3_000_000,
                    2
                ),
            ]
        );
        assert_eq!(z.children(0).collect::<Vec<_>>(), vec![1]);
        assert_eq!(z.children(1).collect::<Vec<_>>(), vec![2]);
    }

    #[test]
    fn a_split_priority_group_is_one_zone_and_an_empty_one_none() {
        let mut z = FrameZones::with_detail(ZoneDetail::Coarse);
        z.reset(1, FrameKind::Frame);
        let tick = z.begin(ZoneKind::Tick(1), ms(0));
        let a = z.begin(ZoneKind::FixedUpdate(Priority(0)), ms(1));
        z.end(a, ms(2));
        // The batch left after a request and went on in the same group.
        let b = z.begin(ZoneKind::FixedUpdate(Priority(0)), ms(3));
        z.end(b, ms(4));
        let empty = z.begin(ZoneKind::FixedUpdate(Priority(10)), ms(4));
        z.cancel(empty);
        z.end(tick, ms(5));
        assert_eq!(z.zones().len(), 2, "{:?}", z.zones());
        assert_eq!(z.zones()[1].start_ns, 1_000_000);
        assert_eq!(z.zones()[1].end_ns, 4_000_000);
    }

    #[test]
    fn a_full_coarse_buffer_drops_zones_instead_of_growing() {
        let mut z = FrameZones::with_detail(ZoneDetail::Coarse);
        z.reset(1, FrameKind::Frame);
        for i in 0..(COARSE_CAPACITY as u64 + 5) {
            let id = z.begin(ZoneKind::Tick(i), ms(i));
            z.end(id, ms(i));
        }
        assert_eq!(z.zones().len(), COARSE_CAPACITY);
        assert_eq!(z.dropped(), 5);
    }

    #[test]
    fn the_ring_keeps_the_newest_frames_and_drops_a_rewound_branch() {
        let mut ring = ZoneRing::with_capacity(3);
        let mut z = FrameZones::with_detail(ZoneDetail::Coarse);
        for f in 1..=5 {
            z.reset(f, FrameKind::Frame);
            let id = z.begin(ZoneKind::Update, ms(0));
            z.end(id, ms(1));
            ring.push(&z);
        }
        let frames: Vec<u64> = ring.iter().map(|z| z.frame_index()).collect();
        assert_eq!(frames, vec![3, 4, 5]);
        z.reset(4, FrameKind::Frame);
        let id = z.begin(ZoneKind::Update, ms(0));
        z.end(id, ms(2));
        ring.push(&z);
        let frames: Vec<u64> = ring.iter().map(|z| z.frame_index()).collect();
        assert_eq!(frames, vec![3, 4]);
        let four = ring.get(4, FrameKind::Frame).expect("kept");
        assert_eq!(
            four.zones()[0].end_ns,
            2_000_000,
            "the new branch's frame 4"
        );
    }
}
