//! Streaming one planet around a camera: which regions are wanted, jobs for
//! the missing ones in visual priority order, results applied within a
//! per-frame budget, and the visible set, which never has holes.
//!
//! Priority (lower first): a region that covers a hole (nothing shown there
//! yet), coarse before fine; then regions in view; then nearer before farther.
//! A column is shown only when all its regions are ready; a split column stays
//! shown until all its children are ready, and a merged column's children stay
//! shown until it is ready again.
//!
//! Physics: a region within the physics range of the camera is built with
//! its collider and navmesh; one beyond it without (it shows the same).
//! A shown region that comes within range gets a physics job (after every
//! hole, ranked as a build in view four times as far), and one the camera
//! leaves, or that falls well beyond the range, is kept without them.
//!
//! Edits: the streamer holds its planet's edit log, and builds and caches
//! each region under the stamp of the edits touching it. An edit gives every
//! region it touches, at every LOD, a new stamp, so they are missing and
//! built again (nearest first, as any missing region); until all of their
//! new builds have landed, the builds from before the edit stay shown, and
//! then all switch in one frame, so an edit never opens a hole.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use glam::DVec3;
use jobs::{CancelToken, JobBatch, JobSystem, Priority};
use parking_lot::Mutex;
use planet::edit::{Edit, EditError, EditLog, RegionEdits};
use planet::geometry::{GridPoint, REGION_CELLS};
use planet::terrain::Terrain;
use planet::{RegionKey, Signature};

use crate::builder::{BuiltRegion, RegionBuilder};
use crate::cache::{RegionCache, RegionId};
use crate::camera::Camera;
use crate::coverage::overlaps;
use crate::lod::{ColumnKey, LodSettings, LodTree};
use crate::{FastMap, FastSet};

/// The job system streamers share: region ids to built regions.
pub type RegionJobs = JobSystem<RegionId, Arc<BuiltRegion>>;

/// A frame's changes to the region jobs, committed at once.
type RegionBatch = JobBatch<RegionId, Arc<BuiltRegion>>;

/// A region being built: the stamp it was submitted with, and the priority
/// its job was last given (re-prioritised only when that changes).
#[derive(Clone, Copy, Debug)]
struct Requested {
    stamp: u64,
    priority: Priority,
}

/// Streaming settings.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StreamSettings {
    /// How the region tree splits.
    pub lod: LodSettings,
    /// Time the main thread may spend applying finished work per frame.
    pub apply_budget: Duration,
    /// Regions within this distance of the camera (metres, to their
    /// bounds) hold their physics: collider and navmesh. Beyond it they are
    /// built and kept without them; one that comes within it gets them
    /// from a physics job, and one left beyond 1.5 times it lets them go.
    /// Negative: no region has physics.
    pub physics_range_m: f64,
    /// Whether every split column is kept built as the fallback its area
    /// shows while one of its leaves is missing: a moving camera's frames
    /// never show a hole. A still view drawn once settled does without
    /// them: what it shows then is the wanted leaves alone, the same cover
    /// with or without fallbacks, which are a fifth of its regions.
    pub fallbacks: bool,
    /// Whether wanted columns out of the camera's view are built. A still
    /// view drawn once settled does without them: nothing they hold could
    /// be in its frame (`LodTree::may_show`), so it draws the same pixels
    /// (tests build what random still views leave out and find none of it
    /// in view). A camera that turns needs them.
    pub build_unseen: bool,
}

/// How much farther than the physics range a region keeps physics it has.
const PHYSICS_KEEP: f64 = 1.5;

impl Default for StreamSettings {
    /// The physics range covers everything that stands on the ground near
    /// the camera: animals are placed within 380 m of it, their herds'
    /// loops 640 m beyond, and the tool reaches 250 m.
    fn default() -> Self {
        Self {
            lod: LodSettings::default(),
            apply_budget: Duration::from_millis(2),
            physics_range_m: 1_200.0,
            fallbacks: true,
            build_unseen: true,
        }
    }
}

/// What one update did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameReport {
    /// Time spent applying finished regions.
    pub apply_time: Duration,
    /// Regions applied.
    pub applied: usize,
    /// Jobs submitted (builds and physics).
    pub submitted: usize,
    /// Of them, physics jobs (a shown region coming within the physics range).
    pub physics_submitted: usize,
    /// Regions that let their physics go (left behind).
    pub physics_dropped: usize,
    /// Jobs cancelled (no longer wanted).
    pub cancelled: usize,
    /// Regions wanted.
    pub wanted: usize,
    /// Wanted regions ready.
    pub ready: usize,
    /// Regions shown.
    pub visible: usize,
    /// Whether the shown columns cover the whole planet (false until the
    /// coarsest are ready), bar the columns out of view that are not built
    /// (`StreamSettings::build_unseen` off).
    pub complete: bool,
    /// Regions of the wanted columns out of view, not built (`StreamSettings::build_unseen` off).
    pub unseen: usize,
}

/// Streams one planet.
pub struct Streamer<B: RegionBuilder> {
    signature: Signature,
    terrain: Arc<Terrain>,
    builder: Arc<B>,
    jobs: Arc<RegionJobs>,
    cache: Arc<Mutex<RegionCache>>,
    tree: LodTree,
    settings: StreamSettings,
    wanted: Vec<ColumnKey>,
    /// Leaves of the tree out of view, not built (`StreamSettings::build_unseen` off), sorted.
    unseen: Vec<ColumnKey>,
    /// Whether each column asked about may be in view of the camera it was asked for
    /// (a still view asks every frame, about the same columns).
    may_show: (Option<Camera>, FastMap<ColumnKey, bool>),
    visible: Vec<ColumnKey>,
    /// Regions being built.
    requested: BTreeMap<RegionKey, Requested>,
    failed: BTreeSet<RegionKey>,
    /// The planet's edits.
    edits: EditLog,
    /// Regions an edit has touched whose new build has not landed yet: the
    /// stamp of the build shown meanwhile.
    superseded: BTreeMap<RegionKey, u64>,
    /// Regions shown or wanted last frame.
    in_use: FastSet<RegionKey>,
}

impl<B: RegionBuilder> std::fmt::Debug for Streamer<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Streamer")
            .field("signature", &self.signature)
            .field("wanted", &self.wanted.len())
            .finish_non_exhaustive()
    }
}

impl<B: RegionBuilder> Streamer<B> {
    /// A streamer for the planet named `signature` (its terrain gives the
    /// geometry; `builder` the regions), sharing `jobs` and `cache`.
    #[must_use]
    pub fn new(
        signature: Signature,
        terrain: Arc<Terrain>,
        builder: Arc<B>,
        jobs: Arc<RegionJobs>,
        cache: Arc<Mutex<RegionCache>>,
        settings: StreamSettings,
    ) -> Self {
        let tree = LodTree::new(&terrain, settings.lod);
        Self {
            signature,
            terrain,
            builder,
            jobs,
            cache,
            tree,
            settings,
            wanted: Vec::new(),
            unseen: Vec::new(),
            may_show: (None, FastMap::default()),
            visible: Vec::new(),
            requested: BTreeMap::new(),
            failed: BTreeSet::new(),
            edits: EditLog::new(),
            superseded: BTreeMap::new(),
            in_use: FastSet::default(),
        }
    }

    /// The planet's signature.
    #[must_use]
    pub fn signature(&self) -> Signature {
        self.signature
    }

    /// The id region `key` is built and cached under: its edits' stamp.
    fn id(&self, key: RegionKey) -> RegionId {
        self.built_as(key, self.edits.stamp(key))
    }

    /// The id of `key` built with edits of stamp `stamp`.
    fn built_as(&self, key: RegionKey, stamp: u64) -> RegionId {
        RegionId { stamp, ..RegionId::new(self.signature, key) }
    }

    /// The id of the build of `key` to show: while the regions an edit
    /// touched are being built again, the one from before the edit (all of
    /// them switch to their new builds in one frame, once every one has
    /// landed: a hole's floor, a region below, never lags its opening);
    /// else the current one.
    fn shown_id(&self, key: RegionKey, cache: &RegionCache) -> Option<RegionId> {
        if let Some(&stamp) = self.superseded.get(&key) {
            let old = self.built_as(key, stamp);
            if cache.contains(&old) {
                return Some(old);
            }
        }
        let id = self.id(key);
        cache.contains(&id).then_some(id)
    }

    /// The planet's edits.
    #[must_use]
    pub fn edits(&self) -> &EditLog {
        &self.edits
    }

    /// Replaces the planet's edit log (a save loaded): every region it
    /// touches is built again; what is shown stays until then.
    pub fn set_edits(&mut self, edits: EditLog) {
        let mut touched: BTreeSet<RegionKey> = self.in_use.iter().copied().collect();
        touched.extend(self.requested.keys().copied());
        let cache = self.cache.lock();
        let shown: Vec<(RegionKey, u64)> =
            touched.iter().filter_map(|&k| self.shown_id(k, &cache).map(|id| (k, id.stamp))).collect();
        drop(cache);
        self.edits = edits;
        for (key, stamp) in shown {
            if stamp != self.edits.stamp(key) {
                self.superseded.insert(key, stamp);
            }
        }
    }

    /// Takes the planet's edit log out (the streamer is leaving the planet).
    pub fn take_edits(&mut self) -> EditLog {
        std::mem::take(&mut self.edits)
    }

    /// Applies `edit` (a smooth's surface fitted first, `EditLog::fit`):
    /// logs it and marks every region it touches, at every LOD, for
    /// building again (those shown stay shown until their new builds
    /// land). Returns the regions touched.
    pub fn edit(&mut self, edit: Edit) -> Result<Vec<RegionKey>, EditError> {
        let edit = self.edits.fit(&self.terrain, edit);
        let before: Vec<(RegionKey, Option<RegionId>)> = {
            // The touched regions are known only after the push: remember
            // what each in-use region shows now, then keep those touched.
            let cache = self.cache.lock();
            self.in_use.iter().map(|&k| (k, self.shown_id(k, &cache))).collect()
        };
        let touched = self.edits.push(&self.terrain, edit)?;
        for (key, shown) in before {
            if touched.binary_search(&key).is_ok()
                && let Some(id) = shown
            {
                self.superseded.insert(key, id.stamp);
            }
        }
        for key in &touched {
            self.failed.remove(key);
            if let Some(r) = self.requested.remove(key) {
                self.jobs.cancel(&self.built_as(*key, r.stamp));
            }
        }
        Ok(touched)
    }

    /// The planet's terrain.
    #[must_use]
    pub fn terrain(&self) -> &Arc<Terrain> {
        &self.terrain
    }

    /// The wanted columns (leaves of the region tree; with
    /// `StreamSettings::build_unseen` off, those that may be in view), sorted.
    #[must_use]
    pub fn wanted(&self) -> &[ColumnKey] {
        &self.wanted
    }

    /// The wanted columns out of view, not built (`StreamSettings::build_unseen` off), sorted.
    #[must_use]
    pub fn unseen(&self) -> &[ColumnKey] {
        &self.unseen
    }

    /// The shown columns: an exact cover of the planet once `complete`.
    #[must_use]
    pub fn visible(&self) -> &[ColumnKey] {
        &self.visible
    }

    /// The region tree.
    #[must_use]
    pub fn tree(&self) -> &LodTree {
        &self.tree
    }

    /// Regions that failed to build (a panicking stage); they are not retried.
    #[must_use]
    pub fn failed(&self) -> &BTreeSet<RegionKey> {
        &self.failed
    }

    /// A ready region, from the cache (while an edit's new build of it is
    /// on its way, the build from before the edit).
    #[must_use]
    pub fn region(&self, key: RegionKey) -> Option<Arc<BuiltRegion>> {
        let mut cache = self.cache.lock();
        let id = self.shown_id(key, &cache)?;
        cache.get(&id)
    }

    /// The built regions of the shown columns (what the renderer draws and
    /// the physics and navigation stand on).
    pub fn shown_regions(&self) -> impl Iterator<Item = Arc<BuiltRegion>> + '_ {
        let grid = self.tree.grid();
        self.visible.iter().flat_map(move |c| c.regions(grid)).filter_map(|k| self.region(k))
    }

    /// The shown regions whose columns may reach within `reach_m` of
    /// planet-local `point` (along the ground): a cheap test on each
    /// column's centre before any region is looked up.
    pub fn shown_regions_near(&self, point: DVec3, reach_m: f64) -> impl Iterator<Item = Arc<BuiltRegion>> + '_ {
        let grid = self.tree.grid();
        let up = point.normalize_or_zero();
        let radius = f64::from(grid.radius_m);
        self.visible
            .iter()
            .filter(move |c| {
                let cells = REGION_CELLS << c.lod;
                let middle = GridPoint {
                    face: planet::Face::from_index(c.face).unwrap_or(planet::Face::PosX),
                    x: c.x as i32 * cells + cells / 2,
                    y: c.y as i32 * cells + cells / 2,
                };
                let centre = grid.direction(0, middle).as_dvec3();
                // A column's corner is at most its diagonal (1.5 widths where faces squeeze) from its centre.
                let half = 0.75 * f64::from(grid.cell_m(c.lod)) * f64::from(REGION_CELLS) * std::f64::consts::SQRT_2;
                libm::acos(centre.dot(up).clamp(-1.0, 1.0)) * radius <= reach_m + half
            })
            .flat_map(move |c| c.regions(grid))
            .filter_map(|k| self.region(k))
    }

    /// Whether every region of `column` is ready.
    #[must_use]
    pub fn column_ready(&self, column: ColumnKey) -> bool {
        let cache = self.cache.lock();
        column.regions(self.tree.grid()).all(|k| cache.contains(&self.id(k)))
    }

    /// Whether every wanted region is ready (after every edit) and nothing is being built.
    #[must_use]
    pub fn is_settled(&self) -> bool {
        self.requested.is_empty() && self.superseded.is_empty() && self.wanted.iter().all(|&c| self.column_ready(c))
    }

    /// One frame: apply finished work within the budget, follow the camera
    /// with the region tree, queue what is missing, re-prioritise what waits,
    /// cancel what is no longer wanted, and work out what to show.
    pub fn update(&mut self, camera: &Camera) -> FrameReport {
        let mut report = FrameReport::default();
        let start = Instant::now();
        {
            let mut cache = self.cache.lock();
            report.applied = self.jobs.drain(self.settings.apply_budget, |done| {
                if let Some(region) = done.result {
                    cache.insert(done.key, region);
                }
            });
        }
        report.apply_time = start.elapsed();

        // Forget requests that have finished (or failed).
        let finished: Vec<(RegionKey, u64)> = self
            .requested
            .iter()
            .map(|(&k, r)| (k, r.stamp))
            .filter(|&(k, stamp)| !self.jobs.is_pending(&self.built_as(k, stamp)))
            .collect();
        for (k, stamp) in finished {
            self.requested.remove(&k);
            if !self.cache.lock().contains(&self.built_as(k, stamp)) {
                self.failed.insert(k);
            }
        }
        // Once every edited region's new build has landed (or failed), all
        // of them show their new builds from this frame on.
        if !self.superseded.is_empty() {
            let cache = self.cache.lock();
            let landed = self.superseded.keys().all(|&k| cache.contains(&self.id(k)) || self.failed.contains(&k));
            drop(cache);
            if landed {
                self.superseded.clear();
            }
        }

        let leaves = self.tree.update(&self.terrain, camera);
        (self.wanted, self.unseen) = if self.settings.build_unseen {
            (leaves, Vec::new())
        } else {
            if self.may_show.0.as_ref() != Some(camera) {
                self.may_show = (Some(*camera), FastMap::default());
            }
            let (tree, memo) = (&self.tree, &mut self.may_show.1);
            leaves.into_iter().partition(|&c| *memo.entry(c).or_insert_with(|| tree.may_show(c, camera)))
        };
        (self.visible, report.complete) = self.cover();
        report.unseen = self.unseen.iter().map(|c| self.tree.grid().regions_up(c.lod) as usize).sum();

        // What is wanted, and what of it is missing. Every split column is
        // kept built too: the fallback its area shows while one of its leaves
        // is missing, one LOD coarser rather than all the way up to a face
        // (a camera that outruns the builds would see only the six roots).
        // The roots among them are the floor of the cover, so no frame after
        // the first few ever has a hole, wherever the camera jumps. (Unless
        // `fallbacks` is off: a still view waits for its leaves instead.)
        let grid = self.tree.grid().clone();
        let visible: BTreeSet<ColumnKey> = self.visible.iter().copied().collect();
        let mut wanted_regions = FastSet::default();
        let split_columns = if self.settings.fallbacks { self.tree.split_columns() } else { Vec::new() };
        // Edited regions shown but no longer wanted are built again too: the
        // switch to the new builds waits for them.
        let mut edited: Vec<ColumnKey> = self.superseded.keys().map(|&k| ColumnKey::of(k)).collect();
        edited.dedup();
        edited.retain(|c| self.wanted.binary_search(c).is_err() && split_columns.binary_search(c).is_err());
        let fallbacks = self.wanted.len()..self.wanted.len() + split_columns.len();
        let columns: Vec<ColumnKey> = self.wanted.iter().copied().chain(split_columns).chain(edited).collect();
        let mut batch = RegionBatch::new();
        for (i, &column) in columns.iter().enumerate() {
            let regions: Vec<RegionKey> = column.regions(&grid).collect();
            wanted_regions.extend(regions.iter().copied());
            let distance = self.distance(column, camera);
            // A split column, shown only for moments as a fallback, gets no
            // physics job, and keeps what it has (from when it was a leaf)
            // only while it is shown: a walker stands on it until its
            // children are in. The rest hold physics near the camera.
            let fallback = fallbacks.contains(&i);
            let near = !fallback && distance <= self.settings.physics_range_m;
            let far = (fallback && !visible.contains(&column))
                || distance > self.settings.physics_range_m.max(0.0) * PHYSICS_KEEP;
            let (missing, unphysical) = self.sort_out(&regions, near, far, &mut report);
            if i < self.wanted.len() {
                report.wanted += regions.len();
                report.ready += regions.len() - missing.len();
            }
            if missing.is_empty() && unphysical.is_empty() {
                continue;
            }
            let priority = self.priority(column, camera, &visible, distance);
            for key in missing {
                if !self.failed.contains(&key) {
                    let build =
                        move |b: &B, edits: &RegionEdits, cancel: &CancelToken| b.build_with(key, edits, near, cancel);
                    report.submitted += usize::from(self.request(&mut batch, key, "region", priority, build));
                }
            }
            for region in unphysical {
                let key = region.key;
                let add = move |b: &B, edits: &RegionEdits, cancel: &CancelToken| b.add_physics(&region, edits, cancel);
                let submitted = usize::from(self.request(&mut batch, key, "physics", physics_priority(distance), add));
                report.submitted += submitted;
                report.physics_submitted += submitted;
            }
        }
        // Cancel what the camera has left behind.
        let stale: Vec<(RegionKey, u64)> =
            self.requested.iter().map(|(&k, r)| (k, r.stamp)).filter(|(k, _)| !wanted_regions.contains(k)).collect();
        for (key, stamp) in stale {
            batch.cancel(self.built_as(key, stamp));
            self.requested.remove(&key);
            report.cancelled += 1;
        }
        self.jobs.commit(batch);
        report.visible = self.visible.iter().map(|c| grid.regions_up(c.lod) as usize).sum();

        // Keep the cache within budget, never evicting what this planet shows
        // or wants. A region's last use is the frame it stopped being shown or
        // wanted, so the least recently used is the one left behind longest.
        let mut in_use: FastSet<RegionKey> = self.visible.iter().flat_map(|c| c.regions(&grid)).collect();
        in_use.extend(wanted_regions);
        let mut cache = self.cache.lock();
        for left in self.in_use.difference(&in_use) {
            let id = self.id(*left);
            cache.touch(&id);
            report.physics_dropped += usize::from(cache.drop_physics(&id));
        }
        // Of an edited region, only the build shown and the current one are kept.
        let (signature, edits, superseded) = (self.signature, &self.edits, &self.superseded);
        cache.evict(|id| {
            id.signature == signature
                && in_use.contains(&id.key)
                && (id.stamp == edits.stamp(id.key) || superseded.get(&id.key) == Some(&id.stamp))
        });
        self.in_use = in_use;
        // Superseded builds no longer in use are not shown again.
        self.superseded.retain(|k, _| self.in_use.contains(k));
        report
    }

    /// Of a wanted column's regions, those missing from the cache, and
    /// those held without physics though `near` the camera; a region held
    /// with physics though `far` from it lets them go.
    fn sort_out(
        &self,
        regions: &[RegionKey],
        near: bool,
        far: bool,
        report: &mut FrameReport,
    ) -> (Vec<RegionKey>, Vec<Arc<BuiltRegion>>) {
        let mut cache = self.cache.lock();
        let mut missing = Vec::new();
        let mut unphysical = Vec::new();
        for &key in regions {
            let id = self.id(key);
            match cache.peek(&id) {
                None => missing.push(key),
                Some(region) if near && !region.physics => unphysical.push(Arc::clone(region)),
                Some(_) if far => report.physics_dropped += usize::from(cache.drop_physics(&id)),
                Some(_) => {}
            }
        }
        (missing, unphysical)
    }

    /// Queues a job (of `kind`, for the job statistics) making `key` at its
    /// current stamp with `make`, or re-prioritises the one queued if its
    /// priority changed; true if a job was submitted. The changes go into
    /// the frame's `batch`.
    fn request(
        &mut self,
        batch: &mut RegionBatch,
        key: RegionKey,
        kind: &'static str,
        priority: Priority,
        make: impl FnOnce(&B, &RegionEdits, &CancelToken) -> Option<BuiltRegion> + Send + 'static,
    ) -> bool {
        if let Some(&r) = self.requested.get(&key) {
            if r.priority != priority {
                batch.reprioritize(self.built_as(key, r.stamp), priority);
                self.requested.insert(key, Requested { priority, ..r });
            }
            return false;
        }
        let builder = Arc::clone(&self.builder);
        let edits = self.edits.region(key);
        let stamp = edits.stamp;
        batch.submit(self.built_as(key, stamp), kind, priority, move |cancel| {
            make(&builder, &edits, cancel).map(Arc::new)
        });
        self.requested.insert(key, Requested { stamp, priority });
        true
    }

    /// The distance from the camera to a column's bounds, metres.
    fn distance(&mut self, column: ColumnKey, camera: &Camera) -> f64 {
        let bounds = self.tree.bounds(&self.terrain, column);
        (bounds.centre.distance(camera.position) - bounds.radius).max(0.0)
    }

    /// A wanted column's job priority.
    fn priority(
        &mut self,
        column: ColumnKey,
        camera: &Camera,
        visible: &BTreeSet<ColumnKey>,
        distance: f64,
    ) -> Priority {
        // A hole: nothing shown over this column's area (neither it, an
        // ancestor, nor any descendant is visible).
        let hole = !overlaps(visible, column, self.tree.grid().max_lod);
        let bounds = self.tree.bounds(&self.terrain, column);
        let in_view = camera.sees(bounds.centre, bounds.radius);
        let decimetres = ((distance * 10.0) as u64).min((1 << 55) - 1);
        let coarse_first = if hole { 31 - u64::from(column.lod.min(31)) } else { 0 };
        Priority((u64::from(!hole) << 62) | (coarse_first << 56) | (u64::from(!in_view) << 55) | decimetres)
    }

    /// The shown columns: the finest ready cover of the region tree; and
    /// whether it covers the whole planet (bar the leaves out of view that
    /// are not built).
    fn cover(&self) -> (Vec<ColumnKey>, bool) {
        let mut out = Vec::new();
        let cache = self.cache.lock();
        let grid = self.tree.grid();
        let ready = |c: ColumnKey| c.regions(grid).all(|k| self.shown_id(k, &cache).is_some());
        let mut complete = true;
        for root in self.tree.roots() {
            complete &= self.cover_column(root, &ready, &mut out);
        }
        out.sort_unstable();
        (out, complete)
    }

    /// Covers `c` with ready columns, preferring the finest the tree wants
    /// (a leaf out of view that is not built counts as covered); true if covered.
    fn cover_column(&self, c: ColumnKey, ready: &impl Fn(ColumnKey) -> bool, out: &mut Vec<ColumnKey>) -> bool {
        let mark = out.len();
        if self.tree.is_split(c) {
            if c.children().iter().all(|&child| self.cover_column(child, ready, out)) {
                return true;
            }
            out.truncate(mark);
            if ready(c) {
                out.push(c);
                return true;
            }
            return false;
        }
        if ready(c) {
            out.push(c);
            return true;
        }
        if self.unseen.binary_search(&c).is_ok() {
            return true;
        }
        // Not ready: children still in the cache from before may cover it.
        if c.lod > 0 && c.children().iter().all(|&child| cover_cached(child, ready, out)) {
            return true;
        }
        out.truncate(mark);
        false
    }
}

/// A physics job's priority, `distance` metres from the camera: after every
/// hole, and as a build of a region in view four times as far (the ground
/// under a walker soon, the farther ground animals stand on after what the
/// eye misses).
fn physics_priority(distance: f64) -> Priority {
    Priority((1 << 62) | ((distance * 40.0) as u64).min((1 << 55) - 1))
}

/// Covers `c` with whatever ready columns there are, coarsest first.
fn cover_cached(c: ColumnKey, ready: &impl Fn(ColumnKey) -> bool, out: &mut Vec<ColumnKey>) -> bool {
    if ready(c) {
        out.push(c);
        return true;
    }
    let mark = out.len();
    if c.lod > 0 && c.children().iter().all(|&child| cover_cached(child, ready, out)) {
        return true;
    }
    out.truncate(mark);
    false
}

impl<B: RegionBuilder> Drop for Streamer<B> {
    /// A streamer left behind (the camera moved to another planet) cancels
    /// its queued work; what finishes anyway still lands in the shared cache.
    fn drop(&mut self) {
        for (&key, r) in &self.requested {
            self.jobs.cancel(&self.built_as(key, r.stamp));
        }
    }
}

/// Whether `c` is `ancestor` or lies inside it.
#[must_use]
pub fn descends_from(c: ColumnKey, ancestor: ColumnKey) -> bool {
    c.face == ancestor.face
        && c.lod <= ancestor.lod
        && (c.x >> (ancestor.lod - c.lod)) == ancestor.x
        && (c.y >> (ancestor.lod - c.lod)) == ancestor.y
}
