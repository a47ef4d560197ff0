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

use glam::Vec3;

use super::{Brush, Edit, EditError, Operation, fit_surface};
use crate::Face;
use crate::geometry::{GridPoint, MARGIN, REGION_CELLS, RegionKey, face_coords};
use crate::terrain::Terrain;

/// Every edit of one planet, and which regions each touches.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EditLog {
    edits: Vec<Edit>,
    /// Per region touched, its edits' positions in `edits`, ascending, and
    /// their stamp (kept with the list: streaming asks for stamps every frame).
    touched: BTreeMap<RegionKey, (Vec<u32>, u64)>,
}

/// The edits of one region, in log order, and their stamp (0: none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegionEdits {
    /// The edits touching the region.
    pub edits: Vec<Edit>,
    /// Their stamp.
    pub stamp: u64,
}

impl RegionEdits {
    /// The edits `edits` name, with their stamp.
    #[must_use]
    pub fn of(edits: Vec<Edit>) -> Self {
        let stamp = stamp(&edits);
        Self { edits, stamp }
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

    /// Adds `edit` (checked against the planet) and returns the regions it
    /// touches, at every LOD, sorted: those to build again. Earlier edits
    /// it makes redundant leave the log (see [`EditLog::redundant`]).
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
        for gone in self.redundant(&edit, &regions).into_iter().rev() {
            self.remove(gone);
        }
        let index = self.edits.len() as u32;
        for key in &regions {
            let (list, stamp) = self.touched.entry(*key).or_default();
            list.push(index);
            *stamp = chain(*stamp, &edit);
        }
        self.edits.push(edit);
        Ok(regions)
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
            .flat_map(|(list, _)| list.iter().copied())
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
        let regions: Vec<(RegionKey, Vec<Edit>)> =
            touched_by(terrain, &edit).into_iter().filter(|k| k.lod == 0).map(|k| (k, self.region(k).edits)).collect();
        Edit { op: Operation::Smooth(fit_surface(terrain, &regions, &edit)), ..edit }
    }

    /// Takes edit `i` out of the log: the index's positions after it shift
    /// down, and the stamps of the regions it touched are hashed again.
    fn remove(&mut self, i: usize) {
        self.edits.remove(i);
        let i = i as u32;
        let edits = &self.edits;
        self.touched.retain(|_, (list, stamp)| {
            let held = list.binary_search(&i).is_ok();
            list.retain(|&e| e != i);
            for e in list.iter_mut() {
                if *e > i {
                    *e -= 1;
                }
            }
            if held {
                *stamp = list.iter().fold(0, |h, &e| chain(h, &edits[e as usize]));
            }
            !list.is_empty()
        });
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
        match self.touched.get(&key) {
            Some((list, stamp)) => {
                RegionEdits { edits: list.iter().map(|&i| self.edits[i as usize]).collect(), stamp: *stamp }
            }
            None => RegionEdits::default(),
        }
    }

    /// The stamp of `key`'s edits (0 when none touches it).
    #[must_use]
    pub fn stamp(&self, key: RegionKey) -> u64 {
        self.touched.get(&key).map_or(0, |t| t.1)
    }

    /// Regions touched by at least one edit, at any LOD.
    #[must_use]
    pub fn regions_touched(&self) -> usize {
        self.touched.len()
    }

    /// Memory the log holds, bytes (capacities: the edits and the index's
    /// entries with their lists, and a B-tree's overhead per entry).
    #[must_use]
    pub fn bytes(&self) -> usize {
        let entry = size_of::<RegionKey>() + size_of::<(Vec<u32>, u64)>() + 16;
        self.edits.capacity() * size_of::<Edit>()
            + self.touched.values().map(|v| entry + v.0.capacity() * 4).sum::<usize>()
    }
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

/// Every region, at every LOD, whose window box meets `edit`'s brush box.
fn touched_by(terrain: &Terrain, edit: &Edit) -> Vec<RegionKey> {
    let centre = Vec3::from_array(edit.centre);
    let meets = |key: RegionKey| window_box(terrain, key).meets_ball(centre, edit.reach_m(&terrain.grid, key.lod));
    let mut out = Vec::new();
    for lod in 0..=terrain.grid.max_lod {
        let start = key_at(terrain, Vec3::from_array(edit.centre), lod);
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
    let floor = terrain.recipe.radius_m + terrain.fields.elevation_m(d, terrain.node_cell_m(lod)) - grid.shell_below_m;
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
    let elevations = directions.map(|d| terrain.fields.elevation_m(d, cell_m));
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
