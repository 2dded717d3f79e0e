//! A running behaviour given new parameters mid-run, checked by the
//! registry as a scene load checks them.
//!
//! A parameter edit is a what-if: "had the player been built with
//! `jump_impulse: 9.0`". The registry makes a fresh behaviour from the edited
//! text (so the text is checked exactly as a scene load checks it, with its
//! line and column), and the running behaviour takes the fresh one's
//! parameters while keeping its own state ([`crate::Behaviour::adopt_params`]): the
//! contacts it saw, its counters, a charge being held. Its place in the
//! cohort, its priority and its Start stay as they were. The object's
//! parameter text ([`crate::BehaviourInfo::params`]) becomes the edited
//! text, so an inspector shows what runs (and the editor, adopting a fork,
//! carries it into the scene it saves).
//!
//! The edit is between ticks and applies from the next hook call on. A
//! behaviour whose hash is derived feeds its parameters into the tick hash
//! with the rest of its fields (`behaviour/derived`), so the hash changes
//! at the tick of the edit; a history replays the edit at that tick, so
//! every replay of it agrees.

use crate::ids::ObjectId;
use crate::pipeline::Pipeline;

use super::{CreateError, Registry};

/// Why a parameter edit was refused (nothing changed).
#[derive(Debug, thiserror::Error)]
pub enum ParamsEditError {
    /// The object has no behaviour at that place.
    #[error("object {object} has no behaviour #{index}")]
    NoSuchBehaviour {
        /// The object.
        object: ObjectId,
        /// Its place in [`Pipeline::behaviour_states`]'s order.
        index: usize,
    },
    /// The registry rejected the text (a syntax error with its position, a
    /// value out of range).
    #[error("parameters of {name}: {source}")]
    Create {
        /// The behaviour's registered name.
        name: String,
        /// Why.
        #[source]
        source: CreateError,
    },
    /// The behaviour cannot take new parameters while it runs.
    #[error("{0} cannot change its parameters while it runs")]
    NotAdjustable(String),
}

impl Pipeline {
    /// Gives behaviour `index` of `object` (in [`Pipeline::behaviour_states`]'s
    /// order) the parameters `params`, made through `registry`, keeping its
    /// state (module docs). On an error nothing changes. A session that
    /// keeps a rewind history makes it an [`Edit::Params`](crate::Edit::Params)
    /// through [`Session::edit`](crate::Session::edit) instead, so rewinds
    /// repeat it.
    pub fn set_behaviour_params(
        &mut self,
        object: ObjectId,
        index: usize,
        params: &str,
        registry: &Registry,
    ) -> Result<(), ParamsEditError> {
        let no_such = ParamsEditError::NoSuchBehaviour { object, index };
        let name = self
            .behaviour_at(object, index)
            .ok_or(no_such)?
            .0
            .name()
            .to_string();
        let fresh = registry
            .create(&name, params)
            .map_err(|source| ParamsEditError::Create { name, source })?;
        self.adopt_params(object, index, params, fresh.as_ref())
    }

    /// The second half of a parameter edit: behaviour `index` of `object`
    /// takes the parameters of `fresh` (made from `params` by the registry)
    /// and keeps its state; the object's authored text becomes `params`.
    pub(crate) fn adopt_params(
        &mut self,
        object: ObjectId,
        index: usize,
        params: &str,
        fresh: &dyn crate::behaviour::Behaviour,
    ) -> Result<(), ParamsEditError> {
        let no_such = ParamsEditError::NoSuchBehaviour { object, index };
        let Some((behaviour, priority)) = self.behaviour_at(object, index) else {
            return Err(no_such);
        };
        let name = behaviour.name().to_string();
        if !behaviour.adopt_params(fresh) {
            return Err(ParamsEditError::NotAdjustable(name));
        }
        // The authored text: the same-named behaviour at the same place
        // among its namesakes (the inspector's lookup).
        let namesake = self
            .behaviour_states(object)
            .iter()
            .take(index)
            .filter(|s| s.name == name && s.priority == priority)
            .count();
        if let Some(info) = self.world_mut().get_mut(object).and_then(|o| {
            o.behaviours
                .iter_mut()
                .filter(|b| b.name == name && b.priority == priority)
                .nth(namesake)
        }) {
            info.params = params.to_string();
        }
        Ok(())
    }
}
