//! Building a region: the stages a streamed region goes through (generate ->
//! polygonize -> spherify -> collider -> navmesh; scatter joins later), run
//! as one job that checks its cancellation token between stages. A region is
//! ready (and so shown) only with its collider: the player never stands on
//! ground that cannot hold it, and regions near the player, built first,
//! get their colliders first.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use jobs::CancelToken;
use parking_lot::Mutex;
use planet::mesh::{MeshWorkspace, SphereMesh, polygonize, spherify};
use planet::physics::{Collider, NavMesh, NavSettings, collider, navmesh};
use planet::terrain::Terrain;
use planet::{RegionKey, Signature};

/// How long each stage of a region took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StageTimes {
    /// Both terrain passes.
    pub generate: Duration,
    /// Polygonizers.
    pub polygonize: Duration,
    /// Spherify.
    pub spherify: Duration,
    /// The collider (a `TriMesh` and its BVH).
    pub collider: Duration,
    /// The navmesh.
    pub navmesh: Duration,
}

/// A region ready to show.
#[derive(Clone, Debug)]
pub struct BuiltRegion {
    /// The region.
    pub key: RegionKey,
    /// Its meshes on the planet.
    pub mesh: SphereMesh,
    /// Signature of its voxels (what determinism tests compare).
    pub voxels: Signature,
    /// Its collision mesh (`None` only from test doubles).
    pub collider: Option<Collider>,
    /// Its navigation polygons (`None` only from test doubles).
    pub navmesh: Option<NavMesh>,
    /// Stage times.
    pub times: StageTimes,
}

impl BuiltRegion {
    /// Approximate memory held, bytes.
    #[must_use]
    pub fn bytes(&self) -> usize {
        let part = |p: &planet::mesh::MeshPart| p.vertices.len() * 24 + (p.indices.len() + p.overlap.len()) * 4;
        256 + part(&self.mesh.terrain)
            + part(&self.mesh.blocks)
            + part(&self.mesh.water)
            + self.collider.as_ref().map_or(0, Collider::bytes)
            + self.navmesh.as_ref().map_or(0, NavMesh::bytes)
    }
}

/// Something that builds regions from keys: the real stages, or a test double.
pub trait RegionBuilder: Send + Sync + 'static {
    /// Builds `key`, or returns `None` once `cancel` is set (checked between stages).
    fn build(&self, key: RegionKey, cancel: &CancelToken) -> Option<BuiltRegion>;
}

/// How many times each stage has finished, across all jobs.
#[derive(Debug, Default)]
pub struct StageCounters {
    /// Generate stages finished.
    pub generate: AtomicU64,
    /// Polygonize stages finished.
    pub polygonize: AtomicU64,
    /// Spherify stages finished.
    pub spherify: AtomicU64,
    /// Collider stages finished.
    pub collider: AtomicU64,
    /// Navmesh stages finished.
    pub navmesh: AtomicU64,
}

impl StageCounters {
    /// (generate, polygonize, spherify) so far.
    #[must_use]
    pub fn snapshot(&self) -> [u64; 3] {
        [&self.generate, &self.polygonize, &self.spherify].map(|c| c.load(Ordering::Relaxed))
    }
}

/// The real stages of one planet.
#[derive(Debug)]
pub struct PlanetBuilder {
    terrain: Arc<Terrain>,
    nav: NavSettings,
    /// Scratch memory, reused across jobs (a job takes one, or makes one).
    workspaces: Mutex<Vec<MeshWorkspace>>,
    /// Stage completions.
    pub counters: StageCounters,
}

impl PlanetBuilder {
    /// A builder for the planet of `terrain`.
    #[must_use]
    pub fn new(terrain: Arc<Terrain>) -> Self {
        let nav = NavSettings::for_recipe(&terrain.recipe);
        Self { terrain, nav, workspaces: Mutex::new(Vec::new()), counters: StageCounters::default() }
    }

    /// The planet's terrain.
    #[must_use]
    pub fn terrain(&self) -> &Arc<Terrain> {
        &self.terrain
    }
}

impl RegionBuilder for PlanetBuilder {
    fn build(&self, key: RegionKey, cancel: &CancelToken) -> Option<BuiltRegion> {
        let t = &self.terrain;
        let start = Instant::now();
        let columns = t.columns(key);
        if cancel.is_cancelled() {
            return None;
        }
        let voxels = t.voxels(&columns);
        let generated = Instant::now();
        self.counters.generate.fetch_add(1, Ordering::Relaxed);
        if cancel.is_cancelled() {
            return None;
        }
        let mut ws = self.workspaces.lock().pop().unwrap_or_default();
        let cube = polygonize(t, &columns, &voxels, &mut ws);
        self.workspaces.lock().push(ws);
        let polygonized = Instant::now();
        self.counters.polygonize.fetch_add(1, Ordering::Relaxed);
        if cancel.is_cancelled() {
            return None;
        }
        let mesh = spherify(&t.grid, &cube);
        let spherified = Instant::now();
        self.counters.spherify.fetch_add(1, Ordering::Relaxed);
        if cancel.is_cancelled() {
            return None;
        }
        let collider = collider(&mesh);
        let collided = Instant::now();
        self.counters.collider.fetch_add(1, Ordering::Relaxed);
        if cancel.is_cancelled() {
            return None;
        }
        let navmesh = navmesh(&mesh, &collider, &self.nav);
        let done = Instant::now();
        self.counters.navmesh.fetch_add(1, Ordering::Relaxed);
        Some(BuiltRegion {
            key,
            mesh,
            voxels: voxels.signature(),
            collider: Some(collider),
            navmesh: Some(navmesh),
            times: StageTimes {
                generate: generated - start,
                polygonize: polygonized - generated,
                spherify: spherified - polygonized,
                collider: collided - spherified,
                navmesh: done - collided,
            },
        })
    }
}
