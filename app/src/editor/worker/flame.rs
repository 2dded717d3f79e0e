//! The Flame tab's per-behaviour zones: the frame the user looks at,
//! replayed from the rewind history in a scratch pipeline with a zone per
//! hook call ([`stepframe_core::Session::replay_frame`]). The live session
//! records only coarse zones, so this costs the live run nothing: the
//! replay runs on the worker between frames, once per request, like a past
//! view (a burst of requests replays only the newest).

use stepframe_core::{ObjectId, Pipeline, ZoneDetail, ZoneKind};

use super::Worker;
use crate::editor::protocol::{Event, ReplayedFrame, ReplayedZones};

impl Worker {
    /// Replays the newest requested frame with fine zones and sends what
    /// it measured (or why it could not) as [`Event::FrameReplayed`].
    pub(super) fn answer_flame_request(&mut self) {
        let Some(frame) = self.flame_request.take() else {
            return;
        };
        let mut scratch = Pipeline::new(self.settings());
        let result = self
            .session
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
        self.send_event(Event::FrameReplayed(Box::new(ReplayedFrame {
            frame,
            result,
        })));
        if let Some(ctx) = &self.repaint {
            ctx.request_repaint();
        }
    }
}
