//! The Flame tab's per-behaviour zones: the frame the user looks at,
//! replayed from the rewind history in a scratch pipeline with a zone per
//! hook call ([`Session::replay_frame`]). The live session records only
//! coarse zones, so this costs the live run nothing: the replay runs
//! between frames, once per request, like a past view (a burst of requests
//! replays only the newest).

use stepframe_core::{ObjectId, Pipeline, Session, TimeSettings, ZoneDetail, ZoneKind};

use super::outbox::Outbox;
use crate::protocol::{Event, ReplayedFrame, ReplayedZones};

/// A frame replay asked for.
#[derive(Debug, Default)]
pub(super) struct Flame {
    /// The newest unanswered request.
    request: Option<u64>,
}

impl Flame {
    /// Asks for outer frame `frame` (latest wins).
    pub(super) fn request(&mut self, frame: u64) {
        self.request = Some(frame);
    }

    /// Replays the newest requested frame with fine zones and sends what it
    /// measured (or why it could not).
    pub(super) fn answer(&mut self, session: &Session, settings: TimeSettings, out: &mut Outbox) {
        let Some(frame) = self.request.take() else {
            return;
        };
        let mut scratch = Pipeline::new(settings);
        let result = session
            .replay_frame(&mut scratch, frame, ZoneDetail::Fine)
            .map(|_| {
                let zones = scratch.zones().clone();
                let mut ids: Vec<ObjectId> = zones
                    .zones()
                    .iter()
                    .filter_map(|z| match z.kind {
                        ZoneKind::Call { object, .. } => Some(object),
                        _ => None,
                    })
                    .collect();
                ids.sort_unstable();
                ids.dedup();
                let world = scratch.world();
                let objects = ids
                    .into_iter()
                    .map(|id| {
                        let name = world.get(id).map_or_else(String::new, |o| o.name.clone());
                        (id, name)
                    })
                    .collect();
                ReplayedZones { zones, objects }
            })
            .map_err(|e| e.to_string());
        out.event(Event::FrameReplayed(Box::new(ReplayedFrame {
            frame,
            result,
        })));
        out.wake();
    }
}
