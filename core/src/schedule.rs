//! Priority-ordered dispatch and the frozen cohort.
//!
//! Every behaviour is an entry with a [`Priority`]; entries run lower value first
//! and, within one priority, in registration order (a sequence number breaks ties,
//! so the order is total and never depends on a sort's stability).
//!
//! The list of entries is the *cohort*. It only changes at an outer frame
//! boundary (`Scheduler::rebuild`): objects spawned during a frame wait in a
//! pending list, so their FixedUpdate starts next frame, and every tick of one
//! frame sees the same cohort. Removal is immediate all the same: each call first
//! checks the entry's gate (its object alive and enabled, or its handle not
//! dropped), so a removed object gets no further callback even later in a tick.
//!
//! FixedUpdate, the pass that runs every tick for every behaviour, checks the
//! gates in bulk instead: before the pass it reads every gate into a flag in
//! the pass's packed call list (`Scheduler::fixed_gates`, only when the
//! world reports a removal or an activity change since the last read, or the
//! lists changed), and per call it only tests that flag. After each call it
//! looks at the world's "gates changed" bit: a hook that removes or disables
//! an object sets it, and every later call of that pass checks its own gate
//! as before. Worked numbers: 10,000 FixedUpdate behaviours in a steady tick
//! read 10,000 24-byte calls and 10,000 16-byte behaviour pointers in order
//! (400 KB, against a 64-byte entry and a one-byte flag per call before:
//! 650 KB); a tick in which a hook removes one object re-reads the gates
//! once, at the next pass.
//!
//! The behaviours themselves sit apart from their entries
//! (`Scheduler::behaviours`, same index), so that read stays a stream of
//! pointers: with both changes and a loop that tests nothing per call but the
//! flag and two bytes after it, the pass went from 2.1-2.5x a bare loop of
//! the same boxed closures to 1.4-1.6x (README, Performance).
//!
//! In steady state (no spawn, no removal) a frame allocates nothing: the rebuild
//! is skipped, and dispatch walks a `Vec` in place.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::behaviour::{Behaviour, Caller};
use crate::ids::Priority;
use crate::ids::{HookKind, Hooks, ObjectId};
use crate::world::World;

/// A handle returned by [`Scheduler::register`]. Dropping it (or calling
/// [`Registration::dispose`]) unregisters: the entry gets no further call, even
/// later in the current tick, and is reclaimed at the next frame boundary.
#[derive(Debug)]
#[must_use = "dropping the registration unregisters the callback at once"]
pub struct Registration {
    alive: Arc<AtomicBool>,
}

impl Registration {
    /// Unregisters now. Same as dropping the handle.
    pub fn dispose(self) {}

    /// Whether the entry is still registered.
    pub fn is_valid(&self) -> bool {
        self.alive.load(Ordering::Relaxed)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.alive.store(false, Ordering::Relaxed);
    }
}

/// What keeps an entry callable.
#[derive(Clone, Debug)]
pub(crate) enum Gate {
    /// A behaviour of a scene object: callable while the object is alive and enabled.
    Object(ObjectId),
    /// A host registration: callable while its [`Registration`] lives.
    Handle(Arc<AtomicBool>),
}

/// One behaviour in the cohort: everything but the behaviour itself, which
/// sits at the same index of [`Scheduler::behaviours`].
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub(crate) priority: Priority,
    /// Registration order, unique: breaks ties within a priority.
    pub(crate) seq: u64,
    pub(crate) gate: Gate,
    /// Object the hooks run for (`ObjectId(0)` for host registrations).
    pub(crate) object: ObjectId,
    /// The object's slot in the world as of the last rebuild (checked by id).
    pub(crate) slot_hint: usize,
    /// Start has run.
    pub(crate) started: bool,
    /// The hooks the behaviour implements (read once, when admitted).
    pub(crate) hooks: Hooks,
    /// A hook panicked and the fault policy disabled this behaviour.
    pub(crate) faulted: bool,
}

impl Entry {
    /// Whether a hook may run now.
    #[inline]
    pub(crate) fn is_active(&self, world: &World) -> bool {
        !self.faulted
            && match &self.gate {
                Gate::Object(id) => world.is_active_hinted(*id, self.slot_hint),
                Gate::Handle(alive) => alive.load(Ordering::Relaxed),
            }
    }

    /// Whether the entry's object was removed (or its handle dropped).
    pub(crate) fn is_retired(&self, world: &World) -> bool {
        match &self.gate {
            Gate::Object(id) => !world.is_alive_hinted(*id, self.slot_hint),
            Gate::Handle(alive) => !alive.load(Ordering::Relaxed),
        }
    }
}

/// The cohort and the registrations waiting for the next frame boundary.
#[derive(Clone, Debug, Default)]
pub struct Scheduler {
    /// Sorted by (priority, seq).
    pub(crate) entries: Vec<Entry>,
    /// The behaviour of each entry, at its index: apart from the entries so
    /// that a FixedUpdate pass reads one 16-byte pointer per call in order,
    /// not a 64-byte entry.
    pub(crate) behaviours: Vec<Box<dyn Behaviour>>,
    /// Host registrations made since the last boundary.
    pending: Vec<(Entry, Box<dyn Behaviour>)>,
    /// The cohort while a boundary re-sorts it (empty between boundaries; its
    /// capacity stays, so a boundary that changes nothing allocates nothing).
    sorting: Vec<(Entry, Box<dyn Behaviour>)>,
    next_seq: u64,
    /// Entries whose Start has not run yet: the Start pass is skipped at zero.
    pub(crate) unstarted: usize,
    /// Per hook kind (by `HookKind as usize`), the indices of the entries that
    /// implement it, in dispatch order: each pass walks only its own callers.
    pub(crate) lists: [Vec<u32>; HookKind::ALL.len()],
    /// Host registrations in the cohort: only then can an entry retire without
    /// a world change, so only then must a boundary scan for dropped handles.
    handles: usize,
    /// `(object, entry index)` sorted, for contact delivery; rebuilt with the cohort.
    pub(crate) by_object: Vec<(ObjectId, u32)>,
    /// The FixedUpdate list again, packed with what its hot loop reads per
    /// call (see [`FixedCall`]).
    pub(crate) fixed_calls: Vec<FixedCall>,
    /// `fixed_calls` cut into runs of one priority, in order: the pass times
    /// each run once instead of comparing priorities per call.
    pub(crate) fixed_groups: Vec<FixedGroup>,
    /// The `skip` flags of `fixed_calls` describe the current lists and
    /// faults (and hold while the world's `gates_changed` is clear).
    pub(crate) fixed_gates_valid: bool,
}

/// One FixedUpdate call, in dispatch order. The pass reads these 24 bytes
/// per call from one contiguous array, plus the behaviour's pointer at
/// `entry` in [`Scheduler::behaviours`], and never the [`Entry`] itself
/// (unless a gate changed mid-pass or a breakpoint is armed): at 10,000
/// behaviours a tick reads 240 KB of calls in order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FixedCall {
    /// Index of the entry in [`Scheduler::entries`].
    pub(crate) entry: u32,
    /// The entry was not callable (removed, disabled, faulted) when the gates
    /// were last read ([`Scheduler::fixed_gates`]).
    pub(crate) skip: bool,
    /// What the call's context says it runs for.
    pub(crate) caller: Caller,
}

/// A run of [`Scheduler::fixed_calls`] with one priority: positions
/// `start..end`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FixedGroup {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) priority: Priority,
}

impl Scheduler {
    /// Registers a host behaviour (not attached to a scene object). It joins the
    /// cohort at the next frame boundary; the handle unregisters it when dropped.
    pub fn register(&mut self, priority: Priority, behaviour: Box<dyn Behaviour>) -> Registration {
        let alive = Arc::new(AtomicBool::new(true));
        let seq = self.bump();
        self.pending.push((
            Entry {
                priority,
                seq,
                gate: Gate::Handle(alive.clone()),
                object: ObjectId(0),
                slot_hint: usize::MAX,
                started: !behaviour.hooks().contains(Hooks::START),
                hooks: behaviour.hooks(),
                faulted: false,
            },
            behaviour,
        ));
        Registration { alive }
    }

    /// Number of entries in the current cohort (including retired ones not yet
    /// reclaimed).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when the cohort is empty.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn bump(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// The frame boundary: drops retired entries, admits pending ones (host
    /// registrations and behaviours of objects spawned since the last boundary)
    /// and re-sorts. Allocation-free when nothing changed.
    pub(crate) fn rebuild(&mut self, world: &mut World) {
        let compacted = world.compact();
        let joining = !world.pending.is_empty() || !self.pending.is_empty();
        // `handles` counts the host registrations: scanning the cohort for
        // them every frame cost 10% of a 10,000-behaviour frame.
        if !compacted && !joining && self.handles == 0 {
            return;
        }
        let before = self.entries.len();
        let mut all = std::mem::take(&mut self.sorting);
        all.extend(self.entries.drain(..).zip(self.behaviours.drain(..)));
        for p in world.take_joining() {
            let seq = self.bump();
            let entry = Entry {
                priority: p.priority,
                seq,
                gate: Gate::Object(p.object),
                object: p.object,
                slot_hint: usize::MAX,
                started: !p.behaviour.hooks().contains(Hooks::START),
                hooks: p.behaviour.hooks(),
                faulted: false,
            };
            all.push((entry, p.behaviour));
        }
        all.append(&mut self.pending);
        all.retain(|(e, _)| !e.is_retired(world));
        // Compaction moves slots: refresh the hints even if no entry retired.
        let changed = compacted || joining || all.len() != before;
        if changed {
            for (e, _) in &mut all {
                e.slot_hint = world.slot_of(e.object);
            }
            // Keys are unique, so an unstable (allocation-free) sort is deterministic.
            all.sort_unstable_by_key(|(e, _)| (e.priority, e.seq));
        }
        for (e, b) in all.drain(..) {
            self.entries.push(e);
            self.behaviours.push(b);
        }
        self.sorting = all;
        if changed {
            self.unstarted = self.entries.iter().filter(|e| !e.started).count();
            self.handles = self
                .entries
                .iter()
                .filter(|e| matches!(e.gate, Gate::Handle(_)))
                .count();
            self.by_object.clear();
            self.by_object.extend(
                self.entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (e.object, i as u32)),
            );
            self.by_object.sort_unstable();
            self.rebuild_lists();
        }
    }

    /// Whether FixedUpdate may skip the per-call gate check, re-reading every
    /// gate first if the world reports a change since the last read (or the
    /// lists or faults changed). The contract holds either way: the skip flags
    /// are exact until the world's `gates_changed` is set again, which dispatch
    /// checks before each call (a hook that removes or disables an object sends
    /// the rest of the pass back to per-call checks). With host registrations in
    /// the cohort (their handles can be dropped at any time) it always says no.
    pub(crate) fn fixed_gates(&mut self, world: &mut World) -> bool {
        if self.handles > 0 {
            return false;
        }
        if !self.fixed_gates_valid || world.gates_changed.0 {
            let entries = &self.entries;
            for call in &mut self.fixed_calls {
                call.skip = !entries[call.entry as usize].is_active(world);
            }
            self.fixed_gates_valid = true;
            world.gates_changed.0 = false;
        }
        true
    }

    /// About how many bytes the cohort holds (for snapshot budgets): entries,
    /// each behaviour's inline size, the dispatch lists.
    pub(crate) fn memory_bytes(&self) -> usize {
        let pair = size_of::<(Entry, Box<dyn Behaviour>)>();
        let entries = self.entries.capacity() * size_of::<Entry>()
            + self.behaviours.capacity() * size_of::<Box<dyn Behaviour>>()
            + (self.pending.capacity() + self.sorting.capacity()) * pair;
        let behaviours: usize = self
            .behaviours
            .iter()
            .chain(self.pending.iter().map(|(_, b)| b))
            .map(|b| size_of_val(&**b))
            .sum();
        let lists: usize = self.lists.iter().map(|l| l.capacity() * 4).sum();
        entries
            + behaviours
            + lists
            + self.by_object.capacity() * 16
            + self.fixed_calls.capacity() * size_of::<FixedCall>()
            + self.fixed_groups.capacity() * size_of::<FixedGroup>()
    }

    /// Marks entry `i` faulted (the fault policy disabled it): it gets no
    /// further callback.
    pub(crate) fn set_faulted(&mut self, i: usize) {
        self.entries[i].faulted = true;
        self.fixed_gates_valid = false;
    }

    /// Rebuilds the per-hook lists from each entry's hook set.
    fn rebuild_lists(&mut self) {
        self.fixed_gates_valid = false;
        for (k, list) in self.lists.iter_mut().enumerate() {
            let bit = Hooks::of(HookKind::ALL[k]);
            list.clear();
            list.extend(
                self.entries
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.hooks.contains(bit) && bit != Hooks::NONE)
                    .map(|(i, _)| i as u32),
            );
        }
        let entries = &self.entries;
        self.fixed_calls.clear();
        self.fixed_calls
            .extend(
                self.lists[HookKind::FixedUpdate as usize]
                    .iter()
                    .map(|&i| FixedCall {
                        entry: i,
                        skip: true,
                        caller: Caller {
                            object: entries[i as usize].object,
                            seq: entries[i as usize].seq,
                        },
                    }),
            );
        self.fixed_groups.clear();
        for (k, call) in self.fixed_calls.iter().enumerate() {
            let priority = entries[call.entry as usize].priority;
            match self.fixed_groups.last_mut() {
                Some(g) if g.priority == priority => g.end = k + 1,
                _ => self.fixed_groups.push(FixedGroup {
                    start: k,
                    end: k + 1,
                    priority,
                }),
            }
        }
    }

    /// Reads every entry's [`Behaviour::hooks`] again and rebuilds the
    /// dispatch lists, keeping the cohort and its order: a behaviour whose hook
    /// set changed (`Ctx::hooks_changed`) is called for exactly its new hooks.
    /// A Start that a behaviour newly declares is not run for an entry that
    /// is past it.
    pub(crate) fn refresh_hooks(&mut self) {
        for (e, b) in self.entries.iter_mut().zip(&self.behaviours) {
            e.hooks = b.hooks();
        }
        self.rebuild_lists();
    }

    /// Indices of the entries implementing `hook`, in dispatch order.
    #[inline]
    pub(crate) fn list(&self, hook: HookKind) -> &[u32] {
        &self.lists[hook as usize]
    }

    /// Entry indices of an object's behaviours, in dispatch order.
    pub(crate) fn entries_of(&self, object: ObjectId) -> &[(ObjectId, u32)] {
        let start = self.by_object.partition_point(|(o, _)| *o < object);
        let end = self.by_object.partition_point(|(o, _)| *o <= object);
        &self.by_object[start..end]
    }
}
