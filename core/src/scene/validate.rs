//! Checking a parsed scene and building its objects: world settings, the
//! action map, ids and parents, bodies (their own checks, their weight under
//! the scene's gravity, their placement at the composed world pose) and
//! behaviours through the registry. Every fault names the [`Site`] it
//! concerns; the reader in [`super::spans`] turns a site into a line and
//! column of the file.

use super::*;

/// What a scene problem is about: mapped to a file position by the loader.
#[derive(Clone, Copy, Debug)]
pub(super) enum Site {
    /// The `time` settings.
    Time,
    /// The gravity or another world setting.
    Settings,
    /// The action map.
    Actions,
    /// Source `.1` of action `.0` in the action map (a name nothing sends).
    ActionSource(usize, usize),
    /// The object with this pre-order index.
    Object(usize),
    /// The name of behaviour `.1` of object `.0`.
    BehaviourName(usize, usize),
    /// The parameters of behaviour `.1` of object `.0`, with the position the
    /// factory gave inside them.
    Params(usize, usize, Option<(usize, usize)>),
}

impl Site {
    /// The error kind a fault at this site is, but for the time settings,
    /// which carry their own typed error.
    fn kind(self) -> SceneErrorKind {
        match self {
            Site::Time | Site::Settings => SceneErrorKind::WorldSettings,
            Site::Actions | Site::ActionSource(..) => SceneErrorKind::Actions,
            Site::Object(_) => SceneErrorKind::Object,
            Site::BehaviourName(..) => SceneErrorKind::UnknownBehaviour,
            Site::Params(..) => SceneErrorKind::Params,
        }
    }
}

#[derive(Debug)]
pub(super) struct Fault {
    pub(super) site: Site,
    pub(super) kind: SceneErrorKind,
    pub(super) message: String,
}

pub(super) fn fault(site: Site, message: impl Into<String>) -> Fault {
    Fault {
        site,
        kind: site.kind(),
        message: message.into(),
    }
}

/// Objects flattened in pre-order, each with its parent.
pub(super) fn flatten(scene: &Scene) -> Vec<(&SceneObject, Option<u64>, bool)> {
    pub(super) fn walk<'s>(
        o: &'s SceneObject,
        container: Option<u64>,
        out: &mut Vec<(&'s SceneObject, Option<u64>, bool)>,
    ) {
        out.push((o, container, container.is_some()));
        for c in &o.children {
            walk(c, Some(o.id), out);
        }
    }
    let mut out = Vec::new();
    for o in &scene.objects {
        walk(o, None, &mut out);
    }
    out
}

pub(super) fn check_settings(settings: &WorldSettings) -> Result<(), Fault> {
    settings.time.validate().map_err(|e| Fault {
        site: Site::Time,
        kind: SceneErrorKind::Time(e),
        message: e.to_string(),
    })?;
    if !settings.gravity.is_finite() {
        return Err(fault(Site::Settings, "gravity must be finite"));
    }
    Ok(())
}

pub(super) fn check_actions(actions: &ActionMap) -> Result<(), Fault> {
    let mut seen = BTreeMap::new();
    for a in &actions.actions {
        if a.name.is_empty() {
            return Err(fault(Site::Actions, "an action needs a name"));
        }
        if seen.insert(a.name.as_str(), ()).is_some() {
            return Err(fault(
                Site::Actions,
                format!("action `{}` is defined twice", a.name),
            ));
        }
    }
    check_source_names(actions)
}

/// Every key, gamepad button and axis name of the map is one something
/// sends (`input/keys`): a misspelt name would bind nothing, silently.
fn check_source_names(actions: &ActionMap) -> Result<(), Fault> {
    for (a, action) in actions.actions.iter().enumerate() {
        for (s, source) in action.sources.iter().enumerate() {
            crate::input::keys::check_source(source).map_err(|e| {
                fault(
                    Site::ActionSource(a, s),
                    format!("action `{}`: {e}", action.name),
                )
            })?;
        }
    }
    Ok(())
}

/// Checks a scene and builds the descriptions of its objects, parents first.
/// The one place scene rules live: loading and instantiating both use it.
pub(super) fn build(scene: &Scene, registry: &Registry) -> Result<Vec<ObjectDesc>, Fault> {
    check_settings(&scene.settings)?;
    check_actions(&scene.actions)?;
    let flat = flatten(scene);

    // Ids: unique, non-zero, and below u64::MAX (the world numbers spawned
    // objects from the largest id + 1, which must exist).
    let mut index_of: BTreeMap<u64, usize> = BTreeMap::new();
    for (i, (o, _, _)) in flat.iter().enumerate() {
        if o.id == 0 || o.id == u64::MAX {
            return Err(fault(
                Site::Object(i),
                format!("object `{}`: id {} is reserved", o.name, o.id),
            ));
        }
        if let Some(first) = index_of.insert(o.id, i) {
            return Err(fault(
                Site::Object(i),
                format!(
                    "duplicate id {}: object `{}` reuses the id of `{}`",
                    o.id, o.name, flat[first].0.name
                ),
            ));
        }
    }

    // Parents: nested children belong to their container; roots may name any object.
    let mut parent_of: Vec<Option<usize>> = Vec::with_capacity(flat.len());
    for (i, (o, container, nested)) in flat.iter().enumerate() {
        let parent = if *nested { *container } else { o.parent };
        if *nested && o.parent.is_some() && o.parent != *container {
            return Err(fault(
                Site::Object(i),
                format!(
                    "object {} is nested in object {} but names parent {}",
                    o.id,
                    container.unwrap_or(0),
                    o.parent.unwrap_or(0)
                ),
            ));
        }
        parent_of.push(match parent {
            None => None,
            Some(p) => match index_of.get(&p) {
                Some(&pi) => Some(pi),
                None => {
                    return Err(fault(
                        Site::Object(i),
                        format!("object {} `{}`: unknown parent {p}", o.id, o.name),
                    ));
                }
            },
        });
    }

    // Depth of each object; a parent chain longer than the scene is a cycle.
    let mut depth = vec![0usize; flat.len()];
    for i in 0..flat.len() {
        let mut d = 0;
        let mut at = parent_of[i];
        while let Some(p) = at {
            d += 1;
            if d > flat.len() {
                return Err(fault(
                    Site::Object(i),
                    format!("object {}: its parent chain is a cycle", flat[i].0.id),
                ));
            }
            at = parent_of[p];
        }
        depth[i] = d;
    }

    let mut descs = Vec::with_capacity(flat.len());
    let mut order: Vec<usize> = (0..flat.len()).collect();
    order.sort_by_key(|&i| (depth[i], i));
    let mut built: Vec<Option<ObjectDesc>> = (0..flat.len()).map(|_| None).collect();
    for (i, (o, _, _)) in flat.iter().enumerate() {
        if !o.transform.is_finite() {
            return Err(fault(
                Site::Object(i),
                format!("object {}: transform must be finite", o.id),
            ));
        }
        if let Some(body) = &o.body {
            body.check()
                .and_then(|()| body.check_weight(scene.settings.gravity))
                .map_err(|m| {
                    fault(
                        Site::Object(i),
                        format!("object {} `{}`: {m}", o.id, o.name),
                    )
                })?;
        }
        let mut behaviours = Vec::with_capacity(o.behaviours.len());
        for (b, spec) in o.behaviours.iter().enumerate() {
            let behaviour = registry
                .create(&spec.name, &spec.params)
                .map_err(|e| match e {
                    CreateError::UnknownName(m) => fault(Site::BehaviourName(i, b), m),
                    e @ CreateError::Misnamed { .. } => {
                        fault(Site::BehaviourName(i, b), e.to_string())
                    }
                    CreateError::Params(p) => fault(
                        Site::Params(i, b, p.position),
                        format!("parameters of `{}`: {}", spec.name, p.message),
                    ),
                })?;
            let info = BehaviourInfo {
                name: spec.name.clone(),
                priority: spec.priority,
                params: spec.params.clone(),
            };
            behaviours.push((behaviour, info));
        }
        built[i] = Some(ObjectDesc {
            id: Some(ObjectId(o.id)),
            name: o.name.clone(),
            parent: parent_of[i].map(|p| ObjectId(flat[p].0.id)),
            local: o.transform,
            enabled: o.enabled,
            body: o.body.clone(),
            behaviours,
            time_group: o.time_group,
        });
    }
    // A body's spawn pose is its world pose (the parent chain composed), and
    // that must fit in f32 too: two finite offsets of 3e38 add up to infinity.
    let mut world_pose: Vec<Pose> = flat.iter().map(|(o, _, _)| o.transform).collect();
    for &i in &order {
        if let Some(p) = parent_of[i] {
            world_pose[i] = world_pose[p].compose(flat[i].0.transform);
        }
        let o = flat[i].0;
        if o.body.is_some() && !world_pose[i].is_finite() {
            return Err(fault(
                Site::Object(i),
                format!(
                    "object {} `{}`: its world pose (its transform composed with its parents') is not finite: {:?}",
                    o.id, o.name, world_pose[i]
                ),
            ));
        }
        if let Some(body) = &o.body
            && let Err(m) = body.check_placement(world_pose[i])
        {
            return Err(fault(
                Site::Object(i),
                format!("object {} `{}`: {m}", o.id, o.name),
            ));
        }
    }
    for i in order {
        if let Some(desc) = built[i].take() {
            descs.push(desc);
        }
    }
    Ok(descs)
}

// ----- parsing with positions -------------------------------------------------
