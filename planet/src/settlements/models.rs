//! Building models, generated at load time (there are no art assets): one
//! unit mesh per building type in the building's own shape coordinates
//! `(a, b, t, rise)`: `a` and `b` in [-1, 1] across its width and depth, `t`
//! in [0, 1] up its height, `rise` above its top in half-widths (a roof's).
//! `PlacedBuilding::point` turns them into metres, bent by the building's
//! curve, and the buildings shader does the same sum, so one mesh serves
//! every building of a type.
//!
//! - **Flat**: a box of one row with a stair house on its roof.
//! - **Curved**: an octagonal prism of `BENT_ROWS` rows (its corners cut), so
//!   the bend reads as a smooth sweep.
//! - **Arched**: a box of `BENT_ROWS` rows under a barrel vault across its width.
//!
//! The meshes carry no normals: the shader takes a face's normal from the
//! screen-space derivatives of its position, which stay right however a
//! building is stretched and bent.

use bytemuck::{Pod, Zeroable};
use glam::Vec2;

use super::BuildingKind;
use crate::scatter::models::ModelRange;

/// Rows up the walls of a bent building's mesh.
pub const BENT_ROWS: u32 = 16;

/// The stair house on a flat roof: its half-size against the roof's, and
/// its height in half-widths of the building.
pub const STAIR_HOUSE: (f32, f32) = (0.3, 0.45);

/// The barrel vault's height, half-widths.
pub const VAULT_RISE: f32 = 0.5;

/// Segments around the vault's arch.
pub const VAULT_SEGMENTS: u32 = 8;

/// Where the corners of a curved building are cut, as a share of a half-side.
const CHAMFER: f32 = 0.3;

/// A model vertex: its shape coordinates `[a, b, t, rise]`, 16 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct BuildingVertex {
    /// `a`, `b`, `t`, `rise`.
    pub shape: [f32; 4],
}

/// Every building type's triangles, on the CPU.
#[derive(Debug, Default)]
pub struct BuildingModels {
    /// Vertices.
    pub vertices: Vec<BuildingVertex>,
    /// Indices (u32).
    pub indices: Vec<u32>,
    /// Per type (`BuildingKind::ALL` order), its range.
    pub kinds: Vec<ModelRange>,
}

/// The cross-section of a type's walls, counter-clockwise seen from above, in `(a, b)`.
#[must_use]
pub fn section(kind: BuildingKind) -> Vec<Vec2> {
    match kind {
        BuildingKind::Flat | BuildingKind::Arched => {
            vec![Vec2::new(-1.0, -1.0), Vec2::new(1.0, -1.0), Vec2::new(1.0, 1.0), Vec2::new(-1.0, 1.0)]
        }
        BuildingKind::Curved => {
            let (o, c) = (1.0, 1.0 - CHAMFER);
            [(-c, -o), (c, -o), (o, -c), (o, c), (c, o), (-c, o), (-o, c), (-o, -c)]
                .into_iter()
                .map(|(a, b)| Vec2::new(a, b))
                .collect()
        }
    }
}

/// Rows up the walls of a type's mesh.
#[must_use]
pub fn rows(kind: BuildingKind) -> u32 {
    if kind == BuildingKind::Flat { 1 } else { BENT_ROWS }
}

/// The vault's arch across the width, `(a, rise)` from `a = 1` over to `a = -1`.
#[must_use]
pub fn vault_arch() -> Vec<Vec2> {
    (0..=VAULT_SEGMENTS)
        .map(|i| {
            let angle = core::f32::consts::PI * i as f32 / VAULT_SEGMENTS as f32;
            Vec2::new(libm::cosf(angle), VAULT_RISE * libm::sinf(angle))
        })
        .collect()
}

struct Builder<'a> {
    models: &'a mut BuildingModels,
}

impl Builder<'_> {
    fn vertex(&mut self, a: f32, b: f32, t: f32, rise: f32) -> u32 {
        self.models.vertices.push(BuildingVertex { shape: [a, b, t, rise] });
        self.models.vertices.len() as u32 - 1
    }

    fn quad(&mut self, [p, q, r, s]: [u32; 4]) {
        self.models.indices.extend([p, q, r, p, r, s]);
    }

    /// Walls of `section` from `t0` to `t1` in `rows` rows, at `rise`
    /// offsets `rise0` and `rise1` (a stair house's walls stand on the roof).
    fn walls(&mut self, section: &[Vec2], rows: u32, (t0, rise0): (f32, f32), (t1, rise1): (f32, f32)) {
        let n = section.len() as u32;
        let first = self.models.vertices.len() as u32;
        for row in 0..=rows {
            let k = row as f32 / rows as f32;
            let (t, rise) = (t0 + (t1 - t0) * k, rise0 + (rise1 - rise0) * k);
            for p in section {
                self.vertex(p.x, p.y, t, rise);
            }
        }
        for row in 0..rows {
            for i in 0..n {
                let j = (i + 1) % n;
                let at = |r: u32, i: u32| first + r * n + i;
                self.quad([at(row, i), at(row, j), at(row + 1, j), at(row + 1, i)]);
            }
        }
    }

    /// A flat cap of `section` at `t`, `rise`.
    fn cap(&mut self, section: &[Vec2], t: f32, rise: f32) {
        let first = self.models.vertices.len() as u32;
        for p in section {
            self.vertex(p.x, p.y, t, rise);
        }
        for i in 1..section.len() as u32 - 1 {
            self.models.indices.extend([first, first + i, first + i + 1]);
        }
    }

    /// The barrel vault on the roof: the arch swept along `b`, and its two end walls.
    fn vault(&mut self) {
        let arch = vault_arch();
        let first = self.models.vertices.len() as u32;
        for b in [-1.0, 1.0] {
            for p in &arch {
                self.vertex(p.x, b, 1.0, p.y);
            }
        }
        let n = arch.len() as u32;
        for i in 0..n - 1 {
            self.quad([first + i, first + i + 1, first + n + i + 1, first + n + i]);
        }
        for end in [first, first + n] {
            for i in 1..n - 1 {
                self.models.indices.extend([end, end + i, end + i + 1]);
            }
        }
    }
}

impl BuildingModels {
    /// Generates every type's mesh.
    #[must_use]
    pub fn generate() -> Self {
        let mut models = Self::default();
        for kind in BuildingKind::ALL {
            let first = models.indices.len() as u32;
            let mut b = Builder { models: &mut models };
            let section = section(kind);
            b.walls(&section, rows(kind), (0.0, 0.0), (1.0, 0.0));
            match kind {
                BuildingKind::Flat => {
                    b.cap(&section, 1.0, 0.0);
                    let (size, height) = STAIR_HOUSE;
                    let hut: Vec<Vec2> = section.iter().map(|p| *p * size).collect();
                    b.walls(&hut, 1, (1.0, 0.0), (1.0, height));
                    b.cap(&hut, 1.0, height);
                }
                BuildingKind::Curved => b.cap(&section, 1.0, 0.0),
                BuildingKind::Arched => b.vault(),
            }
            let count = models.indices.len() as u32 - first;
            models.kinds.push(ModelRange { first, count });
        }
        models
    }

    /// The models, generated once per process.
    #[must_use]
    pub fn shared() -> &'static Self {
        static SET: std::sync::OnceLock<BuildingModels> = std::sync::OnceLock::new();
        SET.get_or_init(Self::generate)
    }

    /// The triangles of type `kind`, as vertex triples.
    pub fn triangles(&self, kind: BuildingKind) -> impl Iterator<Item = [BuildingVertex; 3]> + '_ {
        let range = self.kinds[kind.index()];
        self.indices[range.first as usize..(range.first + range.count) as usize]
            .chunks_exact(3)
            .map(|t| [0, 1, 2].map(|i| self.vertices[t[i] as usize]))
    }
}
