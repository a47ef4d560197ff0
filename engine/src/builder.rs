//! Building a region: the pipeline's region stages (`planet::pipeline`:
//! columns, voxels, polygonize, spherify, scatter, then the physics:
//! collider, navmesh, creature paths) run as one job through the pipeline's
//! runner, which checks the job's cancellation token between stages.
//!
//! A region beyond the streamer's physics range is built without its
//! physics, and kept so: nothing walks, lands or digs there, and its
//! collider and navmesh were two thirds of what a region holds. Generation
//! is pure, so when the camera comes near, [`RegionBuilder::add_physics`]
//! runs only the physics stages on the meshes and scatter the region already
//! has, and the region is replaced by one that holds them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use jobs::CancelToken;
use parking_lot::Mutex;
use planet::edit::RegionEdits;
use planet::mesh::{MeshWorkspace, SphereMesh};
use planet::physics::{Collider, NavMesh};
use planet::pipeline::{Chain, MAX_STAGES, Pipeline, RegionInput, Run, Stage, StageOutput, StageTimes, stages};
use planet::scatter::HabitatMemo;
use planet::scatter::Scatter;
use planet::terrain::{ColumnMemo, Terrain, VoxelGrid};
use planet::{RegionKey, Signature};

/// A region ready to show.
#[derive(Clone, Debug)]
pub struct BuiltRegion {
    /// The region.
    pub key: RegionKey,
    /// Its meshes on the planet.
    pub mesh: SphereMesh,
    /// Signature of its voxels (what determinism tests compare).
    pub voxels: Signature,
    /// The stamp of the edits it was built with (`planet::edit::stamp`; 0: none).
    pub stamp: u64,
    /// Whether it was built with its physics (the stages after scatter):
    /// false for a region beyond the streamer's physics range.
    pub physics: bool,
    /// Its collision mesh (`None` without its physics, or from test doubles).
    pub collider: Option<Collider>,
    /// Its navigation polygons (`None` without its physics, or from test doubles).
    pub navmesh: Option<NavMesh>,
    /// Its trees, bushes, grass, rocks and crystals (`None` only from test doubles).
    pub scatter: Option<Scatter>,
    /// Stage times, by position in the standard pipeline.
    pub times: StageTimes,
}

impl BuiltRegion {
    /// Heap bytes the region holds as the cache keeps it: its own block
    /// behind an `Arc` (the struct and the `Arc`'s two counts, as the
    /// allocator rounds it: `planet::heap::block_bytes`) and the allocated
    /// capacity of every buffer its parts own, indices at their width (each
    /// fills its block once built: `fit_to_blocks`). `tests/region_bytes.rs`
    /// checks it against a counting allocator.
    #[must_use]
    pub fn bytes(&self) -> usize {
        planet::heap::block_bytes(size_of::<Self>() + 2 * size_of::<usize>())
            + self.mesh.heap_bytes()
            + self.collider.as_ref().map_or(0, Collider::bytes)
            + self.navmesh.as_ref().map_or(0, NavMesh::bytes)
            + self.scatter.as_ref().map_or(0, Scatter::bytes)
    }

    /// The region without its physics (a copy of its meshes and scatter):
    /// what the cache keeps of a region the camera has left.
    #[must_use]
    pub fn without_physics(&self) -> Self {
        let mut light = Self {
            key: self.key,
            mesh: self.mesh.clone(),
            voxels: self.voxels,
            stamp: self.stamp,
            physics: false,
            collider: None,
            navmesh: None,
            scatter: self.scatter.clone(),
            times: self.times,
        };
        // A clone's buffers are exactly as long as the originals, not their blocks.
        light.fit_to_blocks();
        light
    }

    /// Trims every buffer to fill its allocator block (`planet::heap`):
    /// the stages grow their buffers as they go, a region is kept far
    /// longer than built, and what it holds is then what it counts.
    pub fn fit_to_blocks(&mut self) {
        self.mesh.fit_to_blocks();
        self.collider.as_mut().map(Collider::fit_to_blocks);
        self.navmesh.as_mut().map(NavMesh::fit_to_blocks);
        self.scatter.as_mut().map(Scatter::fit_to_blocks);
    }
}

/// Something that builds regions from keys: the real stages, or a test double.
pub trait RegionBuilder: Send + Sync + 'static {
    /// Builds `key` with `edits` (the region's edits and bakes, in log
    /// order, and their stamp: `EditLog::region`), with its physics when
    /// `physics` is set, or returns `None` once `cancel` is set (checked
    /// between stages).
    fn build_with(
        &self,
        key: RegionKey,
        edits: &RegionEdits,
        physics: bool,
        cancel: &CancelToken,
    ) -> Option<BuiltRegion>;

    /// `region`, built without its physics, with them: by default built
    /// again whole (`edits` are the ones it was built with).
    fn add_physics(&self, region: &BuiltRegion, edits: &RegionEdits, cancel: &CancelToken) -> Option<BuiltRegion> {
        self.build_with(region.key, edits, true, cancel)
    }

    /// Builds `key` as generated, with no edits, physics included.
    fn build(&self, key: RegionKey, cancel: &CancelToken) -> Option<BuiltRegion> {
        self.build_with(key, &RegionEdits::default(), true, cancel)
    }
}

/// The last stage of what a region shows; the stages after it are its physics.
const LAST_SHOWN: Stage = &stages::SCATTER;

/// How many times each stage has finished, across all jobs, by position in the pipeline.
#[derive(Debug, Default)]
pub struct StageCounters([AtomicU64; MAX_STAGES]);

impl StageCounters {
    /// How many times `stage` has finished.
    #[must_use]
    pub fn of(&self, stage: Stage) -> u64 {
        Pipeline::standard().index(stage).map_or(0, |i| self.0[i].load(Ordering::Relaxed))
    }

    /// Regions built so far (to their last shown stage, scatter: with
    /// or without their physics).
    #[must_use]
    pub fn regions(&self) -> u64 {
        self.of(LAST_SHOWN)
    }

    /// Every stage's count, by position in the pipeline.
    #[must_use]
    pub fn snapshot(&self) -> [u64; MAX_STAGES] {
        std::array::from_fn(|i| self.0[i].load(Ordering::Relaxed))
    }
}

/// The real stages of one planet.
#[derive(Debug)]
pub struct PlanetBuilder {
    terrain: Arc<Terrain>,
    /// Scratch memory, reused across jobs (a job takes one, or makes one).
    workspaces: Mutex<Vec<MeshWorkspace>>,
    /// The last few columns' 2D passes, which a column's regions share.
    column_memo: ColumnMemo,
    /// The habitat's nodes made lately, which regions' scatter shares.
    habitat_memo: HabitatMemo,
    /// Stage completions.
    pub counters: StageCounters,
    /// Whether regions get their scatter (off only to measure what it costs).
    scatter: bool,
}

impl PlanetBuilder {
    /// A builder for the planet of `terrain`.
    #[must_use]
    pub fn new(terrain: Arc<Terrain>) -> Self {
        Self {
            terrain,
            workspaces: Mutex::new(Vec::new()),
            column_memo: ColumnMemo::default(),
            habitat_memo: HabitatMemo::default(),
            counters: StageCounters::default(),
            scatter: true,
        }
    }

    /// The builder with its regions' scatter on or off (every region then
    /// holds no objects: what a run without scatter would cost).
    #[must_use]
    pub fn with_scatter(self, scatter: bool) -> Self {
        Self { scatter, ..self }
    }

    /// The planet's terrain.
    #[must_use]
    pub fn terrain(&self) -> &Arc<Terrain> {
        &self.terrain
    }
}

impl PlanetBuilder {
    /// Runs the region stages `which` (positions in the standard pipeline)
    /// on `chain`, counting and timing each; `None` once `cancel` is set.
    fn run(
        &self,
        input: &RegionInput<'_>,
        chain: &mut Chain,
        which: impl Fn(usize) -> bool,
        cancel: &CancelToken,
        times: &mut StageTimes,
    ) -> Option<()> {
        let pipeline = Pipeline::standard();
        let stages: Vec<usize> = pipeline.region_stages().map(|(i, _)| i).filter(|&i| which(i)).collect();
        let run = pipeline.run(input, chain, stages, &|| cancel.is_cancelled(), |i, t| {
            times.0[i] = t;
            self.counters.0[i].fetch_add(1, Ordering::Relaxed);
        });
        // The terrain is validated and the key comes from its own grid: the
        // region stages cannot refuse it.
        matches!(run, Ok(Run::Finished)).then_some(())
    }

    /// The input of `key`'s stages, with a workspace.
    fn input<'a>(
        &'a self,
        key: RegionKey,
        edits: &'a RegionEdits,
        workspace: &'a std::sync::Mutex<MeshWorkspace>,
    ) -> RegionInput<'a> {
        RegionInput {
            workspace: Some(workspace),
            column_memo: Some(&self.column_memo),
            habitat_memo: Some(&self.habitat_memo),
            scatter: self.scatter,
            edits: &edits.edits,
            bakes: &edits.bakes,
            ..RegionInput::of_terrain(&self.terrain, key)
        }
    }
}

impl RegionBuilder for PlanetBuilder {
    fn build_with(
        &self,
        key: RegionKey,
        edits: &RegionEdits,
        physics: bool,
        cancel: &CancelToken,
    ) -> Option<BuiltRegion> {
        let workspace = std::sync::Mutex::new(self.workspaces.lock().pop().unwrap_or_default());
        let input = self.input(key, edits, &workspace);
        let (mut chain, mut times) = (Chain::default(), StageTimes::default());
        let run = self.run(&input, &mut chain, |i| physics || i <= last_shown(), cancel, &mut times);
        self.workspaces.lock().push(workspace.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner));
        run?;
        let voxels = chain.value::<VoxelGrid>(&stages::VOXELS)?.signature();
        finish(chain, key, voxels, edits.stamp, physics, times)
    }

    /// Runs only the physics stages, on a copy of the region's meshes and scatter.
    fn add_physics(&self, region: &BuiltRegion, edits: &RegionEdits, cancel: &CancelToken) -> Option<BuiltRegion> {
        let workspace = std::sync::Mutex::new(MeshWorkspace::default());
        let input = self.input(region.key, edits, &workspace);
        let mut chain = Chain::default();
        chain.set(StageOutput::new(&stages::SPHERE_MESH, region.mesh.clone())?);
        chain.set(StageOutput::new(&stages::SCATTER, region.scatter.clone()?)?);
        let mut times = region.times;
        self.run(&input, &mut chain, |i| i > last_shown(), cancel, &mut times)?;
        finish(chain, region.key, region.voxels, region.stamp, true, times)
    }
}

/// The region `chain` holds, its stages run (those after scatter too when
/// `physics`), its buffers trimmed.
fn finish(
    mut chain: Chain,
    key: RegionKey,
    voxels: Signature,
    stamp: u64,
    physics: bool,
    times: StageTimes,
) -> Option<BuiltRegion> {
    let (collider, navmesh) = if physics {
        (Some(chain.take_value(&stages::COLLIDER)?), Some(chain.take_value(&stages::NAVMESH)?))
    } else {
        (None, None)
    };
    let mut built = BuiltRegion {
        key,
        voxels,
        stamp,
        mesh: chain.take_value(&stages::SPHERE_MESH)?,
        physics,
        collider,
        navmesh,
        scatter: Some(chain.take_value(&stages::SCATTER)?),
        times,
    };
    built.fit_to_blocks();
    Some(built)
}

/// The position of [`LAST_SHOWN`] in the standard pipeline: the stages after it are the physics.
fn last_shown() -> usize {
    Pipeline::standard().index(LAST_SHOWN).unwrap_or(usize::MAX)
}
