//! Reading a session without stepping it: the state hash and the hashes by
//! subsystem (what traces, the sync test and `trace-diff` compare), and the
//! inspector's view of an object's behaviours, whether they have joined the
//! cohort or wait for the next frame boundary.

use super::*;

impl Pipeline {
    /// Stable hash of the committed state (world and engine and behaviours).
    pub fn state_hash(&self) -> u64 {
        let mut h = StableHasher::new();
        self.hash_into(&mut h);
        h.finish()
    }

    fn hash_into(&self, h: &mut StableHasher) {
        h.write_u64(self.sim.stepper.completed_ticks());
        hash_world(&self.sim.world, h);
        for (object, behaviour) in self.hashed_behaviours() {
            h.write_u64(object.0);
            behaviour.hash_state(h);
        }
        self.sim.physics.hash_state(h);
    }

    /// The behaviours of `object` in dispatch order, with their state now
    /// (the editor's inspector): those in the cohort, then those waiting for
    /// the next frame boundary (spawned this frame). Each one's
    /// [`fields`](crate::behaviour::BehaviourState::fields) have paths that
    /// start with its name, `Name[1]` for the second of that name.
    pub fn behaviour_states(&self, object: ObjectId) -> Vec<crate::behaviour::BehaviourState> {
        let mut roots = FieldRoots::default();
        self.behaviours_of(object)
            .map(|(b, priority, hooks, started, faulted)| {
                let mut fields = crate::behaviour::Fields::new(&roots.next(b.name()));
                b.inspect(&mut fields);
                crate::behaviour::BehaviourState {
                    name: b.name().to_string(),
                    priority,
                    hooks,
                    state: b.state_text(),
                    fields: fields.into_rows(),
                    started,
                    faulted,
                }
            })
            .collect()
    }

    /// One field of one of `object`'s behaviours by its path
    /// (`PlayerController.charge_ms`, as [`Pipeline::behaviour_states`]
    /// gives it): what a timeline lane samples each tick. Only the behaviour
    /// the path names writes its rows. `None` when no behaviour or field has
    /// that path (the object was removed, the field is absent this tick).
    pub fn behaviour_field(
        &self,
        object: ObjectId,
        path: &str,
    ) -> Option<crate::behaviour::FieldValue> {
        let root_len = path
            .find(['.', '['])
            .filter(|&i| !path[..i].is_empty())
            .unwrap_or(path.len());
        let root_len = match path[root_len..].strip_prefix('[') {
            // `Name[1].field`: the index belongs to the root.
            Some(rest)
                if rest
                    .split(']')
                    .next()
                    .is_some_and(|n| n.parse::<usize>().is_ok()) =>
            {
                root_len + 1 + rest.find(']')? + 1
            }
            _ => root_len,
        };
        let root = &path[..root_len];
        let mut roots = FieldRoots::default();
        let (behaviour, ..) = self
            .behaviours_of(object)
            .find(|(b, ..)| roots.next(b.name()) == root)?;
        let mut fields = crate::behaviour::Fields::new(root);
        behaviour.inspect(&mut fields);
        fields
            .into_rows()
            .into_iter()
            .find(|f| f.path == path)
            .map(|f| f.value)
    }

    /// `object`'s behaviours in dispatch order (the cohort, then those
    /// joining at the next frame boundary), with priority, hooks, started
    /// and faulted.
    fn behaviours_of(
        &self,
        object: ObjectId,
    ) -> impl Iterator<Item = (&dyn Behaviour, Priority, Hooks, bool, bool)> + '_ {
        let cohort = self.sim.scheduler.entries_of(object).iter().map(|&(_, i)| {
            let i = i as usize;
            let e = &self.sim.scheduler.entries[i];
            let b: &dyn Behaviour = &*self.sim.scheduler.behaviours[i];
            (b, e.priority, e.hooks, e.started, e.faulted)
        });
        let joining = self
            .sim
            .world
            .joining()
            .filter(move |p| p.object == object)
            .map(|p| {
                let b: &dyn Behaviour = &*p.behaviour;
                (b, p.priority, b.hooks(), false, false)
            });
        cohort.chain(joining)
    }

    /// `object`'s behaviours in the cohort, in dispatch order, by their
    /// registration number (what a [`crate::HookBeacon`]'s call names a
    /// behaviour by) with their names: a front end that outlives the
    /// session's process names the behaviour a fault struck in from these.
    pub fn cohort_behaviours(&self, object: ObjectId) -> Vec<(u64, String)> {
        let s = &self.sim.scheduler;
        s.entries_of(object)
            .iter()
            .map(|&(_, i)| {
                let i = i as usize;
                (s.entries[i].seq, s.behaviours[i].name().to_string())
            })
            .collect()
    }

    /// The union of the hooks `object`'s behaviours implement (F9 on an object
    /// with no FixedUpdate says so instead of arming a breakpoint that never
    /// fires).
    pub fn hooks_of(&self, object: ObjectId) -> Hooks {
        let cohort = self
            .sim
            .scheduler
            .entries_of(object)
            .iter()
            .map(|&(_, i)| self.sim.scheduler.entries[i as usize].hooks);
        let pending = self
            .sim
            .world
            .joining()
            .filter(|p| p.object == object)
            .map(|p| p.behaviour.hooks());
        cohort.chain(pending).fold(Hooks::NONE, Hooks::and)
    }

    /// The committed state hashed by subsystem (see [`SubsystemHashes`]):
    /// what the sync test and `trace-diff` use to name the subsystem, and the
    /// object, whose state changed first. `out`'s buffer is reused.
    pub fn subsystem_hashes(&self, out: &mut SubsystemHashes) {
        let mut h = StableHasher::new();
        h.write_u64(self.sim.stepper.completed_ticks());
        h.write_u64(self.sim.clock.simulation_tick);
        h.write_f64(self.sim.clock.simulation_time);
        h.write_f64(self.sim.clock.fixed_delta_time);
        out.clock = h.finish();

        let mut h = StableHasher::new();
        self.sim.input.hash_simulation_memory(&mut h);
        out.input = h.finish();

        out.behaviours.clear();
        let mut current: Option<(ObjectId, StableHasher)> = None;
        for (object, behaviour) in self.hashed_behaviours() {
            match &mut current {
                Some((id, h)) if *id == object => behaviour.hash_state(h),
                _ => {
                    if let Some((id, h)) = current.take() {
                        out.behaviours.push((id, h.finish()));
                    }
                    let mut h = StableHasher::new();
                    behaviour.hash_state(&mut h);
                    current = Some((object, h));
                }
            }
        }
        if let Some((id, h)) = current {
            out.behaviours.push((id, h.finish()));
        }

        // SplitMix64's output is a bijection of its state, so the next draw
        // (taken from a copy) stands for the state without exposing it.
        let mut rng = self.sim.rng;
        let mut h = StableHasher::new();
        h.write_u64(rng.next_u64());
        out.rng = h.finish();

        let mut h = StableHasher::new();
        hash_world(&self.sim.world, &mut h);
        self.sim.physics.hash_state(&mut h);
        out.physics = h.finish();
    }

    /// The behaviours whose state is hashed, by object id: whether the
    /// behaviour has joined the cohort or waits for the next frame boundary,
    /// and never for removed objects whose entries linger until then: cohort
    /// membership follows frame boundaries, which depend on pacing, and the
    /// hash must not (traces at 30, 60 and 144 Hz are compared hash for hash).
    /// Spawned ids are larger than every existing one, so admitted-then-pending
    /// is id order.
    fn hashed_behaviours(&self) -> impl Iterator<Item = (ObjectId, &dyn Behaviour)> + '_ {
        let admitted = self
            .sim
            .scheduler
            .by_object
            .iter()
            .filter_map(|&(object, i)| {
                let i = i as usize;
                let e = &self.sim.scheduler.entries[i];
                (!e.is_retired(&self.sim.world))
                    .then_some((object, &*self.sim.scheduler.behaviours[i]))
            });
        let pending = self
            .sim
            .world
            .joining()
            .filter(|p| self.sim.world.get(p.object).is_some())
            .map(|p| (p.object, &*p.behaviour));
        admitted.chain(pending)
    }
}

/// The root of each behaviour's field paths on one object: its name, and
/// `Name[n]` for the n-th (from 0) behaviour of that name after the first,
/// so two `Spawner`s on one object have paths that stay apart.
#[derive(Default)]
struct FieldRoots {
    /// Names seen so far, with how many of each.
    seen: Vec<(String, usize)>,
}

impl FieldRoots {
    fn next(&mut self, name: &str) -> String {
        match self.seen.iter_mut().find(|(n, _)| n == name) {
            Some((_, count)) => {
                let root = format!("{name}[{count}]");
                *count += 1;
                root
            }
            None => {
                self.seen.push((name.to_string(), 1));
                name.to_string()
            }
        }
    }
}
