//! Hierarchy and enabled (Unity's activeInHierarchy).

use super::*;

/// Contacts of every tick, as `(tick, event)`.
#[derive(Clone, Default)]
struct ContactLog(Arc<Mutex<Vec<(u64, ContactEvent)>>>);

impl TickObserver for ContactLog {
    fn on_tick(&mut self, record: &TickRecord<'_>) {
        let tick = record.clock.simulation_tick;
        let mut log = self.0.lock().expect("lock");
        log.extend(record.contacts.iter().map(|c| (tick, *c)));
    }
}

#[test]
fn a_disabled_parent_takes_its_subtrees_bodies_out_of_the_simulation_until_enabled_again() {
    // A ball falls from y = 5 (object 2); its child (3), a ball resting on the
    // ground 3 m to the right, touches the ground from the start.
    let mut world = World::new();
    let ground_id = world.spawn(ground());
    let parent = world.spawn(ball("parent", 0.0, 5.0, 0.5));
    let child = world.spawn(ball("child", 3.0, -4.5, 0.5).with_parent(parent));
    let mut pipeline = session(world, Vec2::new(0.0, -G), TimeSettings::default());
    let recorder = PoseRecorder::default();
    let contacts = ContactLog::default();
    let observers: Vec<Box<dyn TickObserver>> =
        vec![Box::new(recorder.clone()), Box::new(contacts.clone())];
    pipeline.set_tick_observer(Some(Box::new(observers)));
    for _ in 0..20 {
        pipeline.step_frame(1.0 / 60.0);
    }
    let touching = ContactEvent::new(ground_id, child, ContactKind::Started);
    assert!(
        contacts
            .0
            .lock()
            .expect("lock")
            .iter()
            .any(|(_, c)| *c == touching)
    );

    // Disabled after tick 20: ticks 21..=40 change neither body, not even by
    // gravity, and the child's contact with the ground stops in tick 21.
    pipeline
        .apply_edit(
            &Edit::Enabled {
                object: parent,
                enabled: false,
            }
            .into(),
        )
        .expect("a live object");
    for _ in 0..20 {
        pipeline.step_frame(1.0 / 60.0);
    }
    let at20 = |id| recorder.after(20, id).expect("tick 20");
    for tick in 21..=40 {
        assert_eq!(
            recorder.after(tick, parent),
            Some(at20(parent)),
            "tick {tick}"
        );
        assert_eq!(
            recorder.after(tick, child),
            Some(at20(child)),
            "tick {tick}"
        );
    }
    let stopped = ContactEvent::new(ground_id, child, ContactKind::Stopped);
    assert!(
        contacts.0.lock().expect("lock").contains(&(21, stopped)),
        "{:?}",
        contacts.0.lock().expect("lock")
    );

    // Enabled again: the parent falls on from the velocity it had (one more
    // tick of gravity: v -= g dt), and the child touches the ground again.
    pipeline
        .apply_edit(
            &Edit::Enabled {
                object: parent,
                enabled: true,
            }
            .into(),
        )
        .expect("a live object");
    pipeline.step_frame(1.0 / 60.0);
    let (p41, v41) = recorder.after(41, parent).expect("tick 41");
    let (p20, v20) = at20(parent);
    assert!(
        close(v41.linear.y, v20.linear.y - G / 60.0, 1e-3),
        "{v20:?} then {v41:?}"
    );
    assert!(p41.y < p20.y);
    assert!(
        contacts.0.lock().expect("lock").contains(&(41, touching)),
        "{:?}",
        contacts.0.lock().expect("lock")
    );
}
