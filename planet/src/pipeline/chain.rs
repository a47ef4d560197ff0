//! What a stage runs on: the [`RegionInput`] (the recipe, the planet, the
//! region, and what a caller may lend so stages need not rebuild it) and the
//! [`Chain`] of the outputs made so far.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use super::stage::{Stage, StageOutput, StageValue};
use super::stages;
use crate::RegionKey;
use crate::dump::DumpError;
use crate::edit::{BakeAt, Edit};
use crate::layout::Layout;
use crate::mesh::MeshWorkspace;
use crate::plan::PlanetPlan;
use crate::recipe::SystemRecipe;
use crate::scatter::HabitatMemo;
use crate::settlements::Settlements;
use crate::terrain::{ColumnMemo, Terrain};

/// What every stage of a region may need besides the stages before it.
#[derive(Clone, Copy, Debug)]
pub struct RegionInput<'a> {
    /// The system recipe (the plans' input; the region stages do not read it).
    pub recipe: Option<&'a SystemRecipe>,
    /// The planet's index.
    pub planet: u32,
    /// The region.
    pub key: RegionKey,
    /// The planet's terrain, when the caller holds one (the engine does):
    /// stages use it instead of building one from the chain's `planet_plan`.
    pub terrain: Option<&'a Terrain>,
    /// Scratch memory for the polygonizers, when the caller keeps one.
    pub workspace: Option<&'a Mutex<MeshWorkspace>>,
    /// The last few columns' 2D passes, when the caller keeps them for the
    /// terrain it lends (`terrain`; unused without one): the columns stage
    /// takes a region's from there when another region of its column was
    /// built lately (the same field).
    pub column_memo: Option<&'a ColumnMemo>,
    /// The habitat's nodes made lately, when the caller keeps them for the
    /// terrain it lends (`terrain`; unused without one): the scatter stage
    /// reads its nodes from there (the same values).
    pub habitat_memo: Option<&'a HabitatMemo>,
    /// Whether the scatter stage places objects (true but where a caller
    /// measures what scatter costs: off, it gives every region none).
    pub scatter: bool,
    /// The edits touching the region, in log order (`edit::EditLog::region`):
    /// the voxel stage applies them, and the scatter stage drops the objects
    /// they remove or bury.
    pub edits: &'a [Edit],
    /// The bakes over the region, each in its place among `edits`
    /// (`edit::RegionEdits::bakes`): the voxel stage applies them in that
    /// order, and the scatter stage drops the objects they hold gone.
    pub bakes: &'a [BakeAt],
}

impl<'a> RegionInput<'a> {
    /// The input of a region of a planet of `recipe`, with nothing lent.
    #[must_use]
    pub fn new(recipe: &'a SystemRecipe, planet: u32, key: RegionKey) -> Self {
        Self {
            recipe: Some(recipe),
            planet,
            key,
            terrain: None,
            workspace: None,
            column_memo: None,
            habitat_memo: None,
            scatter: true,
            edits: &[],
            bakes: &[],
        }
    }

    /// The input of a region of `terrain`'s planet, as the engine builds it.
    #[must_use]
    pub fn of_terrain(terrain: &'a Terrain, key: RegionKey) -> Self {
        Self {
            recipe: None,
            planet: 0,
            key,
            terrain: Some(terrain),
            workspace: None,
            column_memo: None,
            habitat_memo: None,
            scatter: true,
            edits: &[],
            bakes: &[],
        }
    }

    /// The planet's terrain: the one lent, or one built from the chain's
    /// plan and layout.
    pub fn terrain(&self, chain: &Chain, stage: Stage) -> Result<Cow<'a, Terrain>, DumpError> {
        match self.terrain {
            Some(t) => Ok(Cow::Borrowed(t)),
            None => {
                let plan = chain.need::<PlanetPlan>(&stages::PLANET_PLAN, stage)?;
                let layout = chain.need::<Arc<Layout>>(&stages::PLANET_LAYOUT, stage)?;
                let settlements = chain.need::<Arc<Settlements>>(&stages::PLANET_SETTLEMENTS, stage)?;
                Ok(Cow::Owned(Terrain::with_parts(
                    plan,
                    Arc::clone(layout),
                    Settlements::ready(settlements, plan, layout),
                )))
            }
        }
    }

    /// Runs `f` with a mesh workspace: the one lent, or a fresh one.
    pub fn with_workspace<R>(&self, f: impl FnOnce(&mut MeshWorkspace) -> R) -> R {
        match self.workspace {
            Some(ws) => f(&mut ws.lock().unwrap_or_else(std::sync::PoisonError::into_inner)),
            None => f(&mut MeshWorkspace::default()),
        }
    }
}

/// The outputs of a region's stages so far: each stage reads the ones before it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Chain {
    outputs: Vec<StageOutput>,
}

impl Chain {
    /// Puts a stage's output in its place (replacing an earlier one of that stage).
    pub fn set(&mut self, out: StageOutput) {
        match self.outputs.iter_mut().find(|o| o.stage() == out.stage()) {
            Some(slot) => *slot = out,
            None => self.outputs.push(out),
        }
    }

    /// A stage's output, if the chain has it.
    #[must_use]
    pub fn get(&self, stage: Stage) -> Option<&StageOutput> {
        self.outputs.iter().find(|o| o.stage() == stage)
    }

    /// Takes a stage's output out of the chain.
    pub fn take(&mut self, stage: Stage) -> Option<StageOutput> {
        let at = self.outputs.iter().position(|o| o.stage() == stage)?;
        Some(self.outputs.swap_remove(at))
    }

    /// Takes a stage's output out of the chain as its type.
    pub fn take_value<T: StageValue>(&mut self, stage: Stage) -> Option<T> {
        self.take(stage).and_then(|o| o.into_value().ok())
    }

    /// A stage's output as its type, if the chain has it.
    #[must_use]
    pub fn value<T: StageValue>(&self, stage: Stage) -> Option<&T> {
        self.get(stage).and_then(StageOutput::get)
    }

    /// A stage's output as its type, or an error saying that `by` needs it.
    pub fn need<T: StageValue>(&self, stage: Stage, by: Stage) -> Result<&T, DumpError> {
        self.value(stage).ok_or_else(|| DumpError::new(format!("{by} needs {stage}, which the chain does not hold")))
    }

    /// Every output it holds, in the order they were set.
    pub fn outputs(&self) -> impl Iterator<Item = &StageOutput> {
        self.outputs.iter()
    }
}
