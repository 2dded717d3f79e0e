//! What a history logs: each call that advanced the session ([`Call`]) with
//! what makes its replay exact ([`Logged`]).

use super::*;

/// A call that advanced the session.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Call {
    Frame {
        dt: f64,
        inputs: Vec<InputEvent>,
    },
    StepOneFrame {
        dt: f64,
        inputs: Vec<InputEvent>,
    },
    /// Inputs of a resume or a single tick go to the next tick that begins
    /// (no frame may begin before it).
    Resume {
        inputs: Vec<InputEvent>,
    },
    StepTick {
        inputs: Vec<InputEvent>,
    },
    Pause,
    /// The tick input in force from here on.
    SetTape(Option<Replay>),
    /// New time settings, applied at the next frame boundary.
    SetSettings(TimeSettings),
    /// An edit from outside the hooks (the inspector, the hierarchy),
    /// applied at once (boxed: rare, and larger than the other calls).
    Edit(Box<PreparedEdit>),
}

impl Call {
    /// Whether the call can run hooks (a frame, a resume, a tick): the end
    /// of a stand, after which its edits cannot be undone (`undo`).
    pub(super) fn runs_hooks(&self) -> bool {
        match self {
            Call::Frame { .. }
            | Call::StepOneFrame { .. }
            | Call::Resume { .. }
            | Call::StepTick { .. } => true,
            Call::Pause | Call::SetTape(_) | Call::SetSettings(_) | Call::Edit(_) => false,
        }
    }
}

/// A logged call with what makes its replay exact.
#[derive(Clone, Debug)]
pub(super) struct Logged {
    pub(super) call: Call,
    /// The debugger the call ran with, when it differs from the previous call's.
    pub(super) debugger: Option<Debugger>,
    /// A stop-after-tick request in force for the call (an earlier rewind target).
    pub(super) stop_after: Option<u64>,
}

impl Logged {
    /// About how many bytes the entry holds (for the byte budget).
    pub(super) fn bytes(&self) -> usize {
        let inputs = match &self.call {
            Call::Frame { inputs, .. }
            | Call::StepOneFrame { inputs, .. }
            | Call::Resume { inputs }
            | Call::StepTick { inputs } => inputs.capacity() * size_of::<InputEvent>(),
            // A tape's recording is shared (an `Arc`) by the keyframes that
            // keep it: counted once, with the call that installed it.
            Call::SetTape(Some(tape)) => {
                tape.recording().events.capacity() * size_of::<crate::recording::RecordedEvent>()
            }
            Call::SetTape(None) | Call::Pause | Call::SetSettings(_) => 0,
            // Parameter text or a spawned object's description: small next
            // to a keyframe, and rare.
            Call::Edit(_) => size_of::<PreparedEdit>(),
        };
        // A logged debugger is a clone of the breakpoint list: count it at
        // its inline size (a change of breakpoints is rare).
        let debugger = self.debugger.as_ref().map_or(0, |_| size_of::<Debugger>());
        size_of::<Logged>() + inputs + debugger
    }
}
