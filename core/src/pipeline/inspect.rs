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
    /// the next frame boundary (spawned this frame).
    pub fn behaviour_states(&self, object: ObjectId) -> Vec<crate::behaviour::BehaviourState> {
        let state = |e: &Entry, b: &dyn Behaviour| crate::behaviour::BehaviourState {
            name: b.name().to_string(),
            priority: e.priority,
            hooks: e.hooks,
            state: b.state_text(),
            started: e.started,
            faulted: e.faulted,
        };
        let mut out: Vec<_> = self
            .sim
            .scheduler
            .entries_of(object)
            .iter()
            .map(|&(_, i)| {
                let i = i as usize;
                state(
                    &self.sim.scheduler.entries[i],
                    &*self.sim.scheduler.behaviours[i],
                )
            })
            .collect();
        out.extend(
            self.sim
                .world
                .joining()
                .filter(|p| p.object == object)
                .map(|p| crate::behaviour::BehaviourState {
                    name: p.behaviour.name().to_string(),
                    priority: p.priority,
                    hooks: p.behaviour.hooks(),
                    state: p.behaviour.state_text(),
                    started: false,
                    faulted: false,
                }),
        );
        out
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
