//! The stage table and its runner: [`Pipeline::standard`] lists every stage
//! in the order it runs, and [`Pipeline::run`] is the one loop that runs
//! them, checking for cancellation between stages and timing each.
//!
//! **Invariant:** the region stages are one ordered table, run by one
//! runner: the engine's region jobs, `planet dump`, `replay`, `inspect` and
//! the stages bench all go through it. A stage is one file under `stages/`
//! and one row here.

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use super::chain::{Chain, RegionInput};
use super::stage::Stage;
use super::stages;
use crate::dump::DumpError;

/// The most stages a pipeline may hold (the size of [`StageTimes`]).
pub const MAX_STAGES: usize = 16;

/// An ordered table of stages, each reading only stages before it.
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    stages: Vec<Stage>,
}

static STANDARD: LazyLock<Pipeline> = LazyLock::new(|| {
    Pipeline::new(vec![
        &stages::SYSTEM_PLAN,
        &stages::PLANET_PLAN,
        &stages::PLANET_LAYOUT,
        &stages::PLANET_SETTLEMENTS,
        &stages::COLUMNS,
        &stages::VOXELS,
        &stages::CUBE_MESH,
        &stages::SPHERE_MESH,
        &stages::SCATTER,
        &stages::COLLIDER,
        &stages::NAVMESH,
        &stages::CREATURE_PATHS,
    ])
    .unwrap_or_else(|e| unreachable!("the standard table is well formed: {e}"))
});

/// Why a table cannot be a pipeline.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PipelineError {
    /// Two stages share a name.
    #[error("stage {0} is listed twice")]
    Duplicate(&'static str),
    /// A stage reads a stage that does not run before it.
    #[error("stage {stage} reads {input}, which no stage before it makes")]
    MissingInput {
        /// The stage.
        stage: &'static str,
        /// What it reads.
        input: &'static str,
    },
    /// More than [`MAX_STAGES`] stages.
    #[error("{0} stages: a pipeline holds at most {MAX_STAGES}")]
    TooMany(usize),
}

/// Inputs that are not stages: what a [`RegionInput`] carries.
const NON_STAGE_INPUTS: [&str; 2] = ["recipe", "key"];

impl Pipeline {
    /// A pipeline of `stages`, in order; each input must be made before it.
    pub fn new(stages: Vec<Stage>) -> Result<Self, PipelineError> {
        if stages.len() > MAX_STAGES {
            return Err(PipelineError::TooMany(stages.len()));
        }
        for (i, stage) in stages.iter().enumerate() {
            if stages[..i].contains(stage) {
                return Err(PipelineError::Duplicate(stage.name));
            }
            if let Some(input) = stage
                .inputs
                .iter()
                .find(|input| !NON_STAGE_INPUTS.contains(input) && !stages[..i].iter().any(|s| s.name == **input))
            {
                return Err(PipelineError::MissingInput { stage: stage.name, input });
            }
        }
        Ok(Self { stages })
    }

    /// Every stage the engine, dumps and replays run, in order.
    #[must_use]
    pub fn standard() -> &'static Self {
        &STANDARD
    }

    /// This pipeline with `stage` added at the end.
    pub fn with(&self, stage: Stage) -> Result<Self, PipelineError> {
        let mut stages = self.stages.clone();
        stages.push(stage);
        Self::new(stages)
    }

    /// The stages, in order.
    #[must_use]
    pub fn stages(&self) -> &[Stage] {
        &self.stages
    }

    /// The stages that run once per region, in order (what a region job runs).
    pub fn region_stages(&self) -> impl Iterator<Item = (usize, Stage)> + '_ {
        self.stages.iter().copied().enumerate().filter(|(_, s)| s.per_region)
    }

    /// The position of `stage`, if it is in the table.
    #[must_use]
    pub fn index(&self, stage: Stage) -> Option<usize> {
        self.stages.iter().position(|s| *s == stage)
    }

    /// A stage by name (`planet_plan`, `planet-plan`) or type (`PlanetPlan`), any case.
    pub fn find(&self, name: &str) -> Result<Stage, String> {
        let norm: String = name.chars().filter(|c| *c != '_' && *c != '-').flat_map(char::to_lowercase).collect();
        self.stages
            .iter()
            .copied()
            .find(|st| norm == st.name.replace('_', "") || norm == st.type_name.to_lowercase())
            .ok_or_else(|| format!("{name:?} is not a stage: must be one of {}", self.names().join(", ")))
    }

    /// Every stage's name, in order.
    #[must_use]
    pub fn names(&self) -> Vec<&'static str> {
        self.stages.iter().map(|s| s.name).collect()
    }

    /// Runs `stages` (positions in the table, in order) on `chain`, adding
    /// each output to it. `cancelled` is asked before every stage; `done` is
    /// told each stage's position and time as it finishes.
    pub fn run(
        &self,
        input: &RegionInput<'_>,
        chain: &mut Chain,
        stages: impl IntoIterator<Item = usize>,
        cancelled: &dyn Fn() -> bool,
        mut done: impl FnMut(usize, Duration),
    ) -> Result<Run, DumpError> {
        for i in stages {
            if cancelled() {
                return Ok(Run::Cancelled);
            }
            let stage = self.stages[i];
            let start = Instant::now();
            let out = stage.run(input, chain)?;
            done(i, start.elapsed());
            chain.set(out);
        }
        Ok(Run::Finished)
    }

    /// Runs every region stage of `input`'s region into a fresh chain (what
    /// a region job does); `None` when cancelled. `done` is told each stage's
    /// position and time, as in [`Pipeline::run`].
    pub fn run_region(
        &self,
        input: &RegionInput<'_>,
        cancelled: &dyn Fn() -> bool,
        done: impl FnMut(usize, Duration),
    ) -> Result<Option<Chain>, DumpError> {
        let mut chain = Chain::default();
        let stages: Vec<usize> = self.region_stages().map(|(i, _)| i).collect();
        match self.run(input, &mut chain, stages, cancelled, done)? {
            Run::Finished => Ok(Some(chain)),
            Run::Cancelled => Ok(None),
        }
    }

    /// Checks that a chain's outputs fit together, as a replay will use them:
    /// every grid and mesh is of `key`, and each stage's own checks (the
    /// plan validates and holds `key`, ids are in the plan's palette, the
    /// physics are of their mesh). One message a problem, with the stage at
    /// fault (at most a few per stage).
    #[must_use]
    pub fn check_chain(&self, chain: &Chain, input: &RegionInput<'_>) -> Vec<(Stage, String)> {
        const MAX: usize = 8;
        let key = input.key;
        let mut errors = Vec::new();
        for stage in &self.stages {
            let Some(out) = chain.get(stage) else { continue };
            if let Some(k) = out.key()
                && k != key
            {
                errors.push((*stage, format!("key = {k}: must be the manifest's key {key}")));
            }
            let found = out.check(chain, input);
            let fatal = !stage.per_region && !found.is_empty();
            errors.extend(found.into_iter().take(MAX).map(|e| (*stage, e)));
            if fatal {
                // The region stages cannot be judged against a plan that does not hold.
                break;
            }
        }
        errors
    }
}

/// How a run of stages ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Run {
    /// Every stage ran.
    Finished,
    /// The run stopped between two stages.
    Cancelled,
}

/// How long each stage of a region took, by position in the pipeline.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes(pub [Duration; MAX_STAGES]);

impl StageTimes {
    /// The time of `stage` (zero when it did not run).
    #[must_use]
    pub fn of(&self, stage: Stage) -> Duration {
        Pipeline::standard().index(stage).map_or(Duration::ZERO, |i| self.0[i])
    }

    /// The sum over every stage.
    #[must_use]
    pub fn total(&self) -> Duration {
        self.0.iter().sum()
    }
}
