//! The edit log: every edit in the order it was made, with a spatial index
//! from each region it touches, at every LOD, to its edits. An edit touches
//! a region when the ball of its reach at the region's LOD (`Edit::reach_m`)
//! meets the box of the region's sample window (`window_box`, conservative: it may name a region the brush
//! misses by a little, never the other way round); the regions are found by
//! walking out from the one holding the brush's centre through neighbours,
//! across face edges and corners, so nothing is scanned per region.
//!
//! A region's edits are named by a stamp, a hash of their bytes in order:
//! the engine builds and caches a region under (signature, key, stamp), so
//! an edit makes every region it touches another entry, and the same edits
//! always give the same stamp, whatever order regions are built in.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::Arc;

use glam::Vec3;

use super::bake::{BAKE_AT, Bake, BakeAt, bake_ball, bake_region};
use super::{Brush, Edit, EditError, Operation, fit_surface};
use crate::Face;
use crate::geometry::{GridPoint, MARGIN, REGION_CELLS, RegionKey, face_coords};
use crate::terrain::Terrain;

/// Every edit of one planet, the bakes of the LOD-0 regions where many
/// overlapped (`bake.rs`), and which regions each touches.
#[derive(Clone, Debug)]
pub struct EditLog {
    edits: Vec<Edit>,
    /// Bakes by id (ids only grow): each placed before the edit of its
    /// position (`edits.len()` when it was made, less the edits removed before it).
    bakes: BTreeMap<u64, (u32, Arc<Bake>)>,
    next_bake: u64,
    /// Each baked LOD-0 region's bake.
    baked: BTreeMap<RegionKey, u64>,
    /// Per region touched, what touches it and its stamp.
    touched: BTreeMap<RegionKey, Touch>,
    /// Edits since its last bake at which a LOD-0 region is baked.
    bake_at: usize,
}

impl Default for EditLog {
    fn default() -> Self {
        Self {
            edits: Vec::new(),
            bakes: BTreeMap::new(),
            next_bake: 0,
            baked: BTreeMap::new(),
            touched: BTreeMap::new(),
            bake_at: BAKE_AT,
        }
    }
}

/// Two logs are alike when they hold the same edits and bakes in the same
/// places and give every region the same edits and stamp (bake ids aside).
impl PartialEq for EditLog {
    fn eq(&self, other: &Self) -> bool {
        self.edits == other.edits
            && self.bakes() == other.bakes()
            && self.touched.len() == other.touched.len()
            && self
                .touched
                .iter()
                .zip(&other.touched)
                .all(|((k, a), (l, b))| k == l && a.edits == b.edits && a.stamp == b.stamp)
    }
}

/// What touches one region: its edits' positions in the log, ascending, the
/// ids of the bakes over it, and their stamp (kept with the lists:
/// streaming asks for stamps every frame).
#[derive(Clone, Debug, Default, PartialEq)]
struct Touch {
    edits: Vec<u32>,
    bakes: Vec<u64>,
    stamp: u64,
}

/// The edits and bakes of one region, in log order, and their stamp (0: none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegionEdits {
    /// The edits touching the region.
    pub edits: Vec<Edit>,
    /// The bakes over it, each in its place among the edits.
    pub bakes: Vec<BakeAt>,
    /// Their stamp.
    pub stamp: u64,
}

impl RegionEdits {
    /// The edits `edits` name, with their stamp (and no bakes).
    #[must_use]
    pub fn of(edits: Vec<Edit>) -> Self {
        let stamp = stamp(&edits);
        Self { edits, bakes: Vec::new(), stamp }
    }
}

/// The stamp of a region's edits: a chain of XXH3-64 over their bytes in
/// order (each edit's hash seeded with the stamp before it, so a log can
/// extend a region's stamp by one edit without hashing the rest again);
/// 0 for none, never 0 for some.
#[must_use]
pub fn stamp(edits: &[Edit]) -> u64 {
    edits.iter().fold(0, chain)
}

/// `stamp` of a list that had stamp `h`, with `e` added.
fn chain(h: u64, e: &Edit) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(&e.to_bytes(), h ^ 0x9e37_79b9_7f4a_7c15).max(1)
}

/// `stamp` of a list that had stamp `h`, with a bake of hash `bake` added.
fn chain_bake(h: u64, bake: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(&bake.to_le_bytes(), h ^ 0xbac0_bac0_bac0_bac0).max(1)
}

impl EditLog {
    /// An empty log.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A log of `edits` in order, or the first that `terrain`'s planet refuses and why.
    pub fn with_edits(terrain: &Terrain, edits: &[Edit]) -> Result<Self, (usize, EditError)> {
        let mut log = Self::new();
        for (i, e) in edits.iter().enumerate() {
            log.push(terrain, *e).map_err(|err| (i, err))?;
        }
        Ok(log)
    }

    /// The log a save holds: `edits` in order with `bakes` (each placed
    /// before the edit of its position) as they were, nothing compacted or
    /// baked again; or the first edit or bake `terrain`'s planet refuses.
    pub fn with_bakes(terrain: &Terrain, edits: &[Edit], bakes: &[(u32, Bake)]) -> Result<Self, (usize, EditError)> {
        let mut log = Self::new();
        let mut next = bakes.iter().enumerate().peekable();
        for i in 0..=edits.len() {
            while let Some((b, (_, bake))) = next.next_if(|(_, (before, _))| *before as usize <= i) {
                terrain.grid.check(bake.key).map_err(|e| {
                    (b, EditError::Range { field: "bake.key", value: bake.key.to_string(), range: e.to_string() })
                })?;
                log.add_bake(terrain, Arc::new(bake.clone()));
            }
            let Some(edit) = edits.get(i) else { break };
            edit.check(terrain.recipe.radius_m, terrain.recipe.materials.len()).map_err(|e| (i, e))?;
            log.append(*edit, &touched_by(terrain, edit));
        }
        if let Some((b, (before, _))) = next.next() {
            return Err((
                b,
                EditError::Range {
                    field: "bake.before",
                    value: before.to_string(),
                    range: format!("0..={} (the planet's edits)", edits.len()),
                },
            ));
        }
        Ok(log)
    }

    /// Adds `edit` (checked against the planet) and returns the regions it
    /// touches, at every LOD, sorted: those to build again. Earlier edits
    /// it makes redundant leave the log (see [`EditLog::redundant`]); a
    /// LOD-0 region it leaves holding [`BAKE_AT`] edits is baked, and the
    /// regions that changes are among those returned.
    pub fn push(&mut self, terrain: &Terrain, edit: Edit) -> Result<Vec<RegionKey>, EditError> {
        edit.check(terrain.recipe.radius_m, terrain.recipe.materials.len())?;
        if self.edits.len() >= u32::MAX as usize {
            return Err(EditError::Range {
                field: "edits",
                value: self.edits.len().to_string(),
                range: format!("at most {} edits a planet", u32::MAX),
            });
        }
        let regions = touched_by(terrain, &edit);
        let mut changed: BTreeSet<RegionKey> = regions.iter().copied().collect();
        for gone in self.redundant(&edit, &regions).into_iter().rev() {
            self.remove(gone);
        }
        self.append(edit, &regions);
        let full: Vec<RegionKey> =
            regions.iter().filter(|k| k.lod == 0 && self.since_bake(**k) >= self.bake_at).copied().collect();
        for key in full {
            changed.extend(self.bake(terrain, key));
        }
        Ok(changed.into_iter().collect())
    }

    /// Bakes a LOD-0 region once it holds `edits` edits made since its last
    /// bake ([`BAKE_AT`] unless set; `usize::MAX`: never).
    pub fn set_bake_at(&mut self, edits: usize) {
        self.bake_at = edits.max(1);
    }

    /// How many of `key`'s edits came after its bake (all, if it has none).
    fn since_bake(&self, key: RegionKey) -> usize {
        let Some(touch) = self.touched.get(&key) else { return 0 };
        let after = self.baked_at(key).unwrap_or(0);
        touch.edits.len() - touch.edits.partition_point(|&e| e < after)
    }

    /// The place of LOD-0 region `key`'s bake: how many edits come before it.
    fn baked_at(&self, key: RegionKey) -> Option<u32> {
        self.baked.get(&key).map(|id| self.bakes[id].0)
    }

    /// Appends `edit` to the log and the lists of `regions`, those it touches.
    fn append(&mut self, edit: Edit, regions: &[RegionKey]) {
        let index = self.edits.len() as u32;
        for &key in regions {
            let touch = self.touched.entry(key).or_default();
            touch.edits.push(index);
            touch.stamp = chain(touch.stamp, &edit);
        }
        self.edits.push(edit);
    }

    /// Bakes LOD-0 region `key` as the log leaves it (`bake.rs`), in place
    /// of its bake before, and drops the edits every LOD-0 region of which
    /// is now baked after them. Returns the regions whose stamps changed.
    pub fn bake(&mut self, terrain: &Terrain, key: RegionKey) -> BTreeSet<RegionKey> {
        let region = self.region(key);
        let held = self.touched.get(&key).map(|t| t.edits.clone()).unwrap_or_default();
        let bake = Arc::new(bake_region(terrain, key, &region));
        let mut changed = BTreeSet::new();
        if let Some(old) = self.baked.get(&key).copied() {
            changed.extend(self.remove_bake(old));
        }
        changed.extend(self.add_bake(terrain, bake));
        // Every sample those edits changed is now a baked one's: each such
        // edit whose LOD-0 regions are all baked after it goes.
        for &i in held.iter().rev() {
            let regions = self.regions_of(i);
            if regions.iter().filter(|k| k.lod == 0).all(|&k| self.baked_at(k).is_some_and(|at| at > i)) {
                changed.extend(regions);
                self.remove(i as usize);
            }
        }
        changed
    }

    /// The regions edit `i` touches, at every LOD (from the index: no walk again).
    fn regions_of(&self, i: u32) -> Vec<RegionKey> {
        self.touched.iter().filter(|(_, t)| t.edits.binary_search(&i).is_ok()).map(|(k, _)| *k).collect()
    }

    /// Places `bake` at the log's end; returns the regions it is over.
    fn add_bake(&mut self, terrain: &Terrain, bake: Arc<Bake>) -> Vec<RegionKey> {
        let id = self.next_bake;
        self.next_bake += 1;
        let (centre, radius) = bake_ball(terrain, bake.key);
        let regions = regions_meeting(terrain, centre, |_| radius);
        for key in &regions {
            let touch = self.touched.entry(*key).or_default();
            touch.bakes.push(id);
            touch.stamp = chain_bake(touch.stamp, bake.hash);
        }
        self.baked.insert(bake.key, id);
        self.bakes.insert(id, (self.edits.len() as u32, bake));
        regions
    }

    /// Takes bake `id` out; returns the regions it was over.
    fn remove_bake(&mut self, id: u64) -> Vec<RegionKey> {
        let Some((_, bake)) = self.bakes.remove(&id) else { return Vec::new() };
        if self.baked.get(&bake.key) == Some(&id) {
            self.baked.remove(&bake.key);
        }
        let keys: Vec<RegionKey> =
            self.touched.iter().filter(|(_, t)| t.bakes.contains(&id)).map(|(k, _)| *k).collect();
        for key in &keys {
            if let Some(touch) = self.touched.get_mut(key) {
                touch.bakes.retain(|&b| b != id);
            }
            self.restamp(*key);
        }
        keys
    }

    /// Hashes `key`'s stamp again from its lists (and forgets a region
    /// nothing touches any more).
    fn restamp(&mut self, key: RegionKey) {
        let Some(touch) = self.touched.get(&key) else { return };
        if touch.edits.is_empty() && touch.bakes.is_empty() {
            self.touched.remove(&key);
            return;
        }
        let stamp = self.sequence(touch).fold(0, |h, entry| match entry {
            Entry::Edit(e) => chain(h, &self.edits[e as usize]),
            Entry::Bake(b) => chain_bake(h, self.bakes[&b].1.hash),
        });
        self.touched.get_mut(&key).expect("held").stamp = stamp;
    }

    /// A region's edits and bakes merged in log order: a bake before the
    /// edit of its position, bakes of one position by id.
    fn sequence<'a>(&'a self, touch: &'a Touch) -> impl Iterator<Item = Entry> + 'a {
        let mut bakes: Vec<(u32, u64)> = touch.bakes.iter().map(|&id| (self.bakes[&id].0, id)).collect();
        bakes.sort_unstable();
        let mut b = 0;
        let mut e = 0;
        std::iter::from_fn(move || {
            let next_edit = touch.edits.get(e).copied();
            match bakes.get(b) {
                Some(&(before, id)) if next_edit.is_none_or(|i| before <= i) => {
                    b += 1;
                    Some(Entry::Bake(id))
                }
                _ => {
                    e += 1;
                    next_edit.map(Entry::Edit)
                }
            }
        })
    }

    /// The earlier edits that `edit` (touching `regions`) makes redundant,
    /// ascending: those whose every effect it overwrites, so that the log
    /// without them builds every region to the same bytes. An earlier edit
    /// is redundant when it is the same dig, fill or paint again, or a
    /// ball of the same operation that the new ball holds with a
    /// centimetre to spare (so the new one's distance is below the old
    /// one's at every sample, f32 rounding included), and no edit between
    /// them that does not commute with it reaches where it does (a dig
    /// commutes with paint; a paint with digs and flattens).
    fn redundant(&self, edit: &Edit, regions: &[RegionKey]) -> Vec<usize> {
        let near: BTreeSet<u32> = regions
            .iter()
            .filter(|k| k.lod == 0)
            .filter_map(|k| self.touched.get(k))
            .flat_map(|t| t.edits.iter().copied())
            .collect();
        let ball = |e: &Edit| (Vec3::from_array(e.centre), 2.0 * e.brush.reach_m());
        let mut out = Vec::new();
        for &j in &near {
            let old = &self.edits[j as usize];
            if old.op != edit.op || !overwrites(edit, old) {
                continue;
            }
            let (c, r) = ball(old);
            let blocked = near.range(j + 1..).any(|&k| {
                let between = &self.edits[k as usize];
                let (ck, rk) = ball(between);
                !commutes(old.op, between.op) && c.distance(ck) <= r + rk
            });
            if !blocked {
                out.push(j as usize);
            }
        }
        out
    }

    /// `edit` ready to push: a smooth's surface fitted to the ground under
    /// its brush as this log leaves it (`smooth.rs`); any other edit as it is.
    #[must_use]
    pub fn fit(&self, terrain: &Terrain, edit: Edit) -> Edit {
        let Operation::Smooth(_) = edit.op else { return edit };
        let regions: Vec<(RegionKey, RegionEdits)> =
            touched_by(terrain, &edit).into_iter().filter(|k| k.lod == 0).map(|k| (k, self.region(k))).collect();
        Edit { op: Operation::Smooth(fit_surface(terrain, &regions, &edit)), ..edit }
    }

    /// Takes edit `i` out of the log: the index's positions after it and
    /// the bakes' places after it shift down, and the stamps of the regions
    /// it touched are hashed again.
    fn remove(&mut self, i: usize) {
        self.edits.remove(i);
        let i = i as u32;
        for (before, _) in self.bakes.values_mut() {
            if *before > i {
                *before -= 1;
            }
        }
        let mut held = Vec::new();
        for (key, touch) in &mut self.touched {
            if touch.edits.binary_search(&i).is_ok() {
                held.push(*key);
            }
            touch.edits.retain(|&e| e != i);
            for e in &mut touch.edits {
                if *e > i {
                    *e -= 1;
                }
            }
        }
        for key in held {
            self.restamp(key);
        }
    }

    /// Every edit, in order.
    #[must_use]
    pub fn edits(&self) -> &[Edit] {
        &self.edits
    }

    /// How many edits.
    #[must_use]
    pub fn len(&self) -> usize {
        self.edits.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// The edits touching `key`, with their stamp.
    #[must_use]
    pub fn region(&self, key: RegionKey) -> RegionEdits {
        let Some(touch) = self.touched.get(&key) else { return RegionEdits::default() };
        let mut out = RegionEdits { stamp: touch.stamp, ..RegionEdits::default() };
        for entry in self.sequence(touch) {
            match entry {
                Entry::Edit(e) => out.edits.push(self.edits[e as usize]),
                Entry::Bake(b) => {
                    out.bakes.push(BakeAt { before: out.edits.len() as u32, bake: Arc::clone(&self.bakes[&b].1) });
                }
            }
        }
        out
    }

    /// Every bake, in order, each with its place: how many of the log's
    /// edits come before it (what a save holds).
    #[must_use]
    pub fn bakes(&self) -> Vec<(u32, Bake)> {
        let mut out: Vec<(u32, u64, Bake)> =
            self.bakes.iter().map(|(&id, (before, bake))| (*before, id, Bake::clone(bake))).collect();
        out.sort_unstable_by_key(|b| (b.0, b.1));
        out.into_iter().map(|(before, _, bake)| (before, bake)).collect()
    }

    /// How many LOD-0 regions are baked.
    #[must_use]
    pub fn baked_regions(&self) -> usize {
        self.baked.len()
    }

    /// The stamp of `key`'s edits (0 when none touches it).
    #[must_use]
    pub fn stamp(&self, key: RegionKey) -> u64 {
        self.touched.get(&key).map_or(0, |t| t.stamp)
    }

    /// Regions touched by at least one edit, at any LOD.
    #[must_use]
    pub fn regions_touched(&self) -> usize {
        self.touched.len()
    }

    /// Memory the log holds, bytes (capacities: the edits, the bakes, and
    /// the index's entries with their lists, and a B-tree's overhead per entry).
    #[must_use]
    pub fn bytes(&self) -> usize {
        let entry = size_of::<RegionKey>() + size_of::<Touch>() + 16;
        self.edits.capacity() * size_of::<Edit>()
            + self.bakes.values().map(|(_, b)| b.bytes() + 48).sum::<usize>()
            + self.baked.len() * (size_of::<RegionKey>() + 24)
            + self.touched.values().map(|t| entry + t.edits.capacity() * 4 + t.bakes.capacity() * 8).sum::<usize>()
    }
}

/// One place in a region's sequence: an edit's position in the log, or a bake's id.
#[derive(Clone, Copy, Debug)]
enum Entry {
    Edit(u32),
    Bake(u64),
}

/// Whether `new`, done after `old` (of the same operation), leaves nothing
/// of it: the same edit again (a dig, a fill or a paint done twice is done
/// once), or a ball holding the old ball with a centimetre to spare (a
/// fill or a paint then lays its material on every sample the old one did).
fn overwrites(new: &Edit, old: &Edit) -> bool {
    // A flatten or a smooth blends: done twice it is not done once.
    if matches!(new.op, Operation::Flatten | Operation::Smooth(_)) {
        return false;
    }
    if new == old {
        return true;
    }
    match (new.brush, old.brush) {
        (Brush::Sphere { radius_m: outer }, Brush::Sphere { radius_m: inner }) => {
            Vec3::from_array(new.centre).distance(Vec3::from_array(old.centre)) + inner <= outer - 0.01
        }
        _ => false,
    }
}

/// Whether edits of operations `a` and `b` give the same samples in
/// either order: a dig and a paint (density, then materials), a paint and
/// a flatten or a smooth.
fn commutes(a: Operation, b: Operation) -> bool {
    use Operation::{Dig, Flatten, Paint, Smooth};
    matches!(
        (a, b),
        (Dig, Paint) | (Paint, Dig) | (Paint, Flatten) | (Flatten, Paint) | (Paint, Smooth(_)) | (Smooth(_), Paint)
    )
}

/// Every region, at every LOD, whose window box meets `edit`'s reach.
fn touched_by(terrain: &Terrain, edit: &Edit) -> Vec<RegionKey> {
    regions_meeting(terrain, Vec3::from_array(edit.centre), |lod| edit.reach_m(&terrain.grid, lod))
}

/// Every region, at every LOD, whose window box meets the ball at `centre`
/// of radius `reach(lod)`.
fn regions_meeting(terrain: &Terrain, centre: Vec3, reach: impl Fn(u8) -> f32) -> Vec<RegionKey> {
    let meets = |key: RegionKey| window_box(terrain, key).meets_ball(centre, reach(key.lod));
    let mut out = Vec::new();
    for lod in 0..=terrain.grid.max_lod {
        let start = key_at(terrain, centre, lod);
        let mut seen: BTreeSet<RegionKey> = BTreeSet::new();
        let mut queue: VecDeque<RegionKey> = VecDeque::new();
        // The region holding the centre's direction and its neighbours seed
        // the walk (a brush in the air above the shell may meet none of them).
        for key in std::iter::once(start).chain(terrain.grid.neighbours(start)) {
            if seen.insert(key) && meets(key) {
                queue.push_back(key);
            }
        }
        while let Some(key) = queue.pop_front() {
            out.push(key);
            for n in terrain.grid.neighbours(key) {
                if seen.insert(n) && meets(n) {
                    queue.push_back(n);
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// The region at `lod` holding planet-local point `p` (its layer clamped into the shell).
fn key_at(terrain: &Terrain, p: Vec3, lod: u8) -> RegionKey {
    let grid = &terrain.grid;
    let d = p.normalize_or(Vec3::Y);
    let (face, u, v) = face_coords(d);
    let cells = grid.cells_across(lod) as f32;
    let regions = grid.regions_across(lod);
    let column = |t: f32| (((t + 1.0) * 0.5 * cells / REGION_CELLS as f32) as u32).min(regions - 1);
    let floor = terrain.recipe.radius_m + terrain.elevation_m(d, terrain.node_cell_m(lod)) - grid.shell_below_m;
    let layer = (p.length() - floor) / grid.layer_m(lod);
    let z = ((layer / REGION_CELLS as f32).max(0.0) as u32).min(grid.regions_up(lod) - 1);
    RegionKey { face: face.index(), lod, x: column(u), y: column(v), z }
}

/// A box holding every sample of a region's window, square to the
/// window's centre direction (a region far from a face's centre is tilted
/// against the planet's axes: a box along them would hold far more).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WindowBox {
    /// The box's axes: along the window's x and y, and its centre's up.
    pub axes: [Vec3; 3],
    /// Its lowest corner, along the axes (planet-local metres projected on them).
    pub lo: Vec3,
    /// Its highest corner, along the axes.
    pub hi: Vec3,
}

impl WindowBox {
    /// Whether the ball at planet-local `centre` of `radius` meets the box.
    #[must_use]
    pub fn meets_ball(&self, centre: Vec3, radius: f32) -> bool {
        let local = Vec3::new(centre.dot(self.axes[0]), centre.dot(self.axes[1]), centre.dot(self.axes[2]));
        let nearest = local.clamp(self.lo, self.hi);
        (local - nearest).length_squared() <= radius * radius
    }
}

/// The [`WindowBox`] of `key`: a 5 x 5 lattice of directions over the
/// window between the lowest and highest radius its layers can have (the
/// elevation there, give or take a slope of 1:2 between lattice
/// directions), widened by how far the sphere bulges between them.
#[must_use]
pub fn window_box(terrain: &Terrain, key: RegionKey) -> WindowBox {
    let grid = &terrain.grid;
    let face = Face::from_index(key.face).expect("a checked key");
    let (x0, y0) = (key.x as i32 * REGION_CELLS - MARGIN, key.y as i32 * REGION_CELLS - MARGIN);
    let span = REGION_CELLS + 2 * MARGIN;
    // A 5 x 5 lattice of directions over the window, corners included.
    let mut directions = [Vec3::ZERO; 25];
    for (i, d) in directions.iter_mut().enumerate() {
        let (a, b) = ((i % 5) as i32, (i / 5) as i32);
        *d = grid.direction(key.lod, GridPoint { face, x: x0 + a * span / 4, y: y0 + b * span / 4 });
    }
    let cell_m = terrain.node_cell_m(key.lod);
    let elevations = directions.map(|d| terrain.elevation_m(d, cell_m));
    let low = elevations.iter().copied().fold(f32::MAX, f32::min);
    let high = elevations.iter().copied().fold(f32::MIN, f32::max);
    // Between lattice directions the elevation may rise or fall by a slope of
    // 1:2 over half their spacing (it is a smooth field: hundreds of metres
    // over kilometres).
    let spacing = grid.radius_m * angle(directions[0], directions[6]);
    let allowance = 1.0 + 0.25 * spacing;
    let layer_m = grid.layer_m(key.lod);
    let floor = terrain.recipe.radius_m - grid.shell_below_m;
    let bottom = floor + low - allowance + (key.z as i32 * REGION_CELLS - MARGIN) as f32 * layer_m;
    let top = floor + high + allowance + ((key.z as i32 + 1) * REGION_CELLS + MARGIN) as f32 * layer_m;
    let up = directions[12];
    let along_x = (directions[13] - directions[11]).reject_from_normalized(up).normalize();
    let axes = [along_x, up.cross(along_x), up];
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for d in directions {
        for r in [bottom, top] {
            let p = d * r;
            let local = Vec3::new(p.dot(axes[0]), p.dot(axes[1]), p.dot(axes[2]));
            lo = lo.min(local);
            hi = hi.max(local);
        }
    }
    // Between lattice directions the sphere of radius `top` bulges out by
    // its sagitta; neighbours are at most a diagonal step apart.
    let apart = angle(directions[0], directions[6]).max(angle(directions[18], directions[24]));
    let bulge = top * (1.0 - libm::cosf(apart)) + 0.5;
    WindowBox { axes, lo: lo - Vec3::splat(bulge), hi: hi + Vec3::splat(bulge) }
}

/// The angle between two unit directions, radians (libm, as generation must).
fn angle(a: Vec3, b: Vec3) -> f32 {
    libm::acosf(a.dot(b).clamp(-1.0, 1.0))
}
