//! Building a region: the pipeline's region stages (`planet::pipeline`:
//! columns, voxels, polygonize, spherify, collider, navmesh, scatter) run as one job through the pipeline's runner, which checks the
//! job's cancellation token between stages. A region is ready (and so
//! shown) only with its collider: the player never stands on ground that
//! cannot hold it, and regions near the player, built first, get their
//! colliders first.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use jobs::CancelToken;
use parking_lot::Mutex;
use planet::edit::RegionEdits;
use planet::mesh::{MeshWorkspace, SphereMesh};
use planet::physics::{Collider, NavMesh};
use planet::pipeline::{MAX_STAGES, Pipeline, RegionInput, Stage, StageTimes, stages};
use planet::scatter::Scatter;
use planet::terrain::{Terrain, VoxelGrid};
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
    /// Its collision mesh (`None` only from test doubles).
    pub collider: Option<Collider>,
    /// Its navigation polygons (`None` only from test doubles).
    pub navmesh: Option<NavMesh>,
    /// Its trees, bushes, grass, rocks and crystals (`None` only from test doubles).
    pub scatter: Option<Scatter>,
    /// Stage times, by position in the standard pipeline.
    pub times: StageTimes,
}

impl BuiltRegion {
    /// Heap bytes the region holds as the cache keeps it: its own block
    /// behind an `Arc` (the struct and the `Arc`'s two counts) and the
    /// allocated capacity of every buffer its parts own, indices at their
    /// width. `tests/region_bytes.rs` checks it against a counting allocator.
    #[must_use]
    pub fn bytes(&self) -> usize {
        size_of::<Self>()
            + 2 * size_of::<usize>()
            + self.mesh.heap_bytes()
            + self.collider.as_ref().map_or(0, Collider::bytes)
            + self.navmesh.as_ref().map_or(0, NavMesh::bytes)
            + self.scatter.as_ref().map_or(0, Scatter::bytes)
    }

    /// Frees every buffer's capacity beyond its length: the stages grow
    /// their buffers as they go, and a region is kept far longer than built.
    pub fn shrink_to_fit(&mut self) {
        self.mesh.shrink_to_fit();
        self.collider.as_mut().map(Collider::shrink_to_fit);
        self.navmesh.as_mut().map(NavMesh::shrink_to_fit);
        self.scatter.as_mut().map(Scatter::shrink_to_fit);
    }
}

/// Something that builds regions from keys: the real stages, or a test double.
pub trait RegionBuilder: Send + Sync + 'static {
    /// Builds `key` with `edits` (the region's edits and bakes, in log
    /// order, and their stamp: `EditLog::region`), or returns `None` once
    /// `cancel` is set (checked between stages).
    fn build_with(&self, key: RegionKey, edits: &RegionEdits, cancel: &CancelToken) -> Option<BuiltRegion>;

    /// Builds `key` as generated, with no edits.
    fn build(&self, key: RegionKey, cancel: &CancelToken) -> Option<BuiltRegion> {
        self.build_with(key, &RegionEdits::default(), cancel)
    }
}

/// How many times each stage has finished, across all jobs, by position in the pipeline.
#[derive(Debug, Default)]
pub struct StageCounters([AtomicU64; MAX_STAGES]);

impl StageCounters {
    /// How many times `stage` has finished.
    #[must_use]
    pub fn of(&self, stage: Stage) -> u64 {
        Pipeline::standard().index(stage).map_or(0, |i| self.0[i].load(Ordering::Relaxed))
    }

    /// Regions built to the end of the pipeline so far.
    #[must_use]
    pub fn regions(&self) -> u64 {
        Pipeline::standard().stages().last().map_or(0, |&s| self.of(s))
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
    /// Stage completions.
    pub counters: StageCounters,
    /// Whether regions get their scatter (off only to measure what it costs).
    scatter: bool,
}

impl PlanetBuilder {
    /// A builder for the planet of `terrain`.
    #[must_use]
    pub fn new(terrain: Arc<Terrain>) -> Self {
        Self { terrain, workspaces: Mutex::new(Vec::new()), counters: StageCounters::default(), scatter: true }
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

impl RegionBuilder for PlanetBuilder {
    fn build_with(&self, key: RegionKey, edits: &RegionEdits, cancel: &CancelToken) -> Option<BuiltRegion> {
        let workspace = std::sync::Mutex::new(self.workspaces.lock().pop().unwrap_or_default());
        let input = RegionInput {
            workspace: Some(&workspace),
            scatter: self.scatter,
            edits: &edits.edits,
            bakes: &edits.bakes,
            ..RegionInput::of_terrain(&self.terrain, key)
        };
        let mut times = StageTimes::default();
        let run = Pipeline::standard().run_region(&input, &|| cancel.is_cancelled(), |i, t| {
            times.0[i] = t;
            self.counters.0[i].fetch_add(1, Ordering::Relaxed);
        });
        self.workspaces.lock().push(workspace.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner));
        // `None` when cancelled. The terrain is validated and the key comes
        // from its own grid: the region stages cannot refuse it.
        let mut chain = run.ok()??;
        let mut built = BuiltRegion {
            key,
            voxels: chain.value::<VoxelGrid>(&stages::VOXELS)?.signature(),
            stamp: edits.stamp,
            mesh: chain.take_value(&stages::SPHERE_MESH)?,
            collider: Some(chain.take_value(&stages::COLLIDER)?),
            navmesh: Some(chain.take_value(&stages::NAVMESH)?),
            scatter: Some(chain.take_value(&stages::SCATTER)?),
            times,
        };
        built.shrink_to_fit();
        Some(built)
    }
}
