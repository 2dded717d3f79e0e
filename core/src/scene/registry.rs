//! The behaviour registry: how a scene's `name: "Spawner"` and its
//! parameter text become a behaviour, and why parameters were rejected
//! ([`ParamsError`], positioned in the parameter text, which the loader
//! shifts into the file).

use super::*;

/// A behaviour's parameters were rejected. The position, if any, is relative to
/// the parameter text (1-based); the scene loader shifts it into the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParamsError {
    /// (line, column) within the parameter text, when the error has one.
    pub position: Option<(usize, usize)>,
    /// What was expected.
    pub message: String,
}

impl ParamsError {
    /// An error about the parameters as a whole (a value out of range...).
    pub fn new(message: impl Into<String>) -> ParamsError {
        ParamsError {
            position: None,
            message: message.into(),
        }
    }
}

impl From<ron::error::SpannedError> for ParamsError {
    fn from(e: ron::error::SpannedError) -> ParamsError {
        ParamsError {
            position: Some((e.span.start.line, e.span.start.col)),
            message: e.code.to_string(),
        }
    }
}

/// Builds a behaviour from its RON parameter text.
pub type BehaviourFactory =
    Arc<dyn Fn(&str) -> Result<Box<dyn Behaviour>, ParamsError> + Send + Sync>;

#[derive(Clone)]
pub(super) struct RegistryEntry {
    pub(super) factory: BehaviourFactory,
    pub(super) default_params: String,
    /// What each parameter is, for a typed parameter struct its
    /// deserializer can be read from (`param_kinds.rs`).
    pub(super) kinds: Option<Arc<ParamKinds>>,
}

/// Behaviour factories by name: how a scene's `name: "Spawner"` becomes code.
/// Cheap to clone (factories are shared), and sorted by name.
#[derive(Clone, Default)]
pub struct Registry {
    entries: BTreeMap<String, RegistryEntry>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("names", &self.names())
            .finish()
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Registers a factory taking raw RON text; `default_params` is what an
    /// editor proposes when the behaviour is added. Replaces a factory of the
    /// same name.
    pub fn register(
        &mut self,
        name: impl Into<String>,
        default_params: impl Into<String>,
        factory: impl Fn(&str) -> Result<Box<dyn Behaviour>, ParamsError> + Send + Sync + 'static,
    ) {
        self.entries.insert(
            name.into(),
            RegistryEntry {
                factory: Arc::new(factory),
                default_params: default_params.into(),
                kinds: None,
            },
        );
    }

    /// Registers a behaviour with a typed parameter struct `P`: the text is
    /// parsed as RON into `P` (errors keep their position), then `build` checks
    /// values and makes the behaviour. `P::default()` gives the default text.
    /// `build` may capture what every behaviour of the session shares (a
    /// plugin's per-session host, the scene's directory): that is how a
    /// factory learns its session without a global.
    ///
    /// `build`'s error is the plugin's own type (`InvalidParams`,
    /// `ScriptError`): its text becomes the [`ParamsError`] the loader places
    /// at the behaviour's parameters.
    pub fn register_typed<P, E>(
        &mut self,
        name: impl Into<String>,
        build: impl Fn(P) -> Result<Box<dyn Behaviour>, E> + Send + Sync + 'static,
    ) where
        P: DeserializeOwned + Serialize + Default + 'static,
        E: std::error::Error,
    {
        let compact = ron::ser::PrettyConfig::new()
            .struct_names(false)
            .compact_structs(true)
            .compact_arrays(true);
        let default_params = scene_options(Extensions::empty())
            .to_string_pretty(&P::default(), compact)
            .unwrap_or_else(|_| EMPTY_PARAMS.to_string());
        let name = name.into();
        self.register(name.clone(), default_params, move |text: &str| {
            let params: P = parse_params(text)?;
            build(params).map_err(|e| ParamsError::new(e.to_string()))
        });
        if let (Some(entry), Ok(kinds)) = (self.entries.get_mut(&name), param_kinds::<P>()) {
            entry.kinds = Some(Arc::new(kinds));
        }
    }

    /// Registers the behaviour type `B` under its own name ([`Named::NAME`],
    /// which `#[behaviour]` derives from the type), with a typed parameter
    /// struct `P` as [`Registry::register_typed`] reads it. The name is
    /// written nowhere else, so a scene's name, the registry's and
    /// [`Behaviour::name`] are one fact.
    pub fn register_behaviour<B, P, E>(
        &mut self,
        build: impl Fn(P) -> Result<B, E> + Send + Sync + 'static,
    ) where
        B: Behaviour + Named + 'static,
        P: DeserializeOwned + Serialize + Default + 'static,
        E: std::error::Error,
    {
        self.register_typed::<P, E>(B::NAME, move |p| {
            build(p).map(|b| Box::new(b) as Box<dyn Behaviour>)
        });
    }

    /// Makes a behaviour from its name and parameter text. A behaviour
    /// whose [`Behaviour::name`] is not the name it was made under is
    /// refused ([`CreateError::Misnamed`]): every later lookup by name (a
    /// parameter edit making a fresh instance, the inspector's paths) would
    /// find another behaviour or none.
    pub fn create(&self, name: &str, params: &str) -> Result<Box<dyn Behaviour>, CreateError> {
        let entry = self
            .entries
            .get(name)
            .ok_or_else(|| CreateError::UnknownName(self.unknown_message(name)))?;
        let made = (entry.factory)(params).map_err(CreateError::Params)?;
        if made.name() != name {
            return Err(CreateError::Misnamed {
                registered: name.to_string(),
                says: made.name().to_string(),
            });
        }
        Ok(made)
    }

    /// Every registered name, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.entries.keys().map(String::as_str).collect()
    }

    /// Whether a name is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    /// What each parameter of the behaviour `name` is, by path
    /// (`param_kinds.rs`): `None` for a behaviour registered with raw text
    /// ([`Registry::register`]) or whose parameter type cannot be read
    /// without input.
    pub fn param_kinds(&self, name: &str) -> Option<&ParamKinds> {
        self.entries.get(name)?.kinds.as_deref()
    }

    /// The parameter text proposed for a new behaviour of this name.
    pub fn default_params(&self, name: &str) -> Option<&str> {
        self.entries.get(name).map(|e| e.default_params.as_str())
    }

    fn unknown_message(&self, name: &str) -> String {
        format!(
            "unknown behaviour `{name}`; registered behaviours: {}",
            if self.entries.is_empty() {
                "(none)".to_string()
            } else {
                self.names().join(", ")
            }
        )
    }
}

/// Parses behaviour parameters the way scenes are parsed (implicit `Some`).
pub fn parse_params<P: DeserializeOwned>(text: &str) -> Result<P, ParamsError> {
    Ok(scene_options(Extensions::empty()).from_str(text)?)
}

/// Why [`Registry::create`] failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CreateError {
    /// No factory of that name; the message lists the registered names.
    #[error("{0}")]
    UnknownName(String),
    /// The factory rejected the parameters.
    #[error("{0}")]
    Params(ParamsError),
    /// The factory registered under `registered` made a behaviour whose
    /// `name()` says `says`.
    #[error(
        "the behaviour registered as `{registered}` calls itself `{says}` (its `fn name`): \
         register it by type (`register_behaviour`), or make the two names agree"
    )]
    Misnamed {
        /// The name it was registered and made under.
        registered: String,
        /// What its [`Behaviour::name`] returns.
        says: String,
    },
}

// ----- checking and building --------------------------------------------------
