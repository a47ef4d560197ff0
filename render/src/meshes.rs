//! Meshes on the GPU: each region's terrain, block and water parts uploaded
//! as vertex and index buffers, and its scattered objects as instances
//! grouped by model type, when the region is first shown, and freed when
//! it has faded out; each planet's proxy uploaded once. Fades are tracked
//! here: a region that appears dissolves in over `FADE_S`, one that goes
//! dissolves out over the same time with the complementary dither, so a LOD
//! swap never shows a hole or a pop; the objects the arriving and leaving
//! regions share are carried over and glide (`glide.rs`).

use std::collections::BTreeMap;

use glam::{DVec3, Vec3};
use planet::RegionKey;
use planet::mesh::{Indices, MeshPart, SphereMesh};
use planet::recipe::ScatterKind;
use planet::scatter::Scatter;
use wgpu::util::DeviceExt;

use crate::glide::{Departures, GLIDE_S};

/// Seconds a region or proxy takes to dissolve in or out.
pub const FADE_S: f64 = 0.4;

/// One mesh part's buffers.
#[derive(Debug)]
pub struct GpuMesh {
    /// Vertices (`planet::mesh::Vertex`, 24 bytes).
    pub vertices: wgpu::Buffer,
    /// Indices: the owned triangles, then the overlap strip.
    pub indices: wgpu::Buffer,
    /// `u16` or `u32`.
    pub format: wgpu::IndexFormat,
    /// Index count.
    pub count: u32,
    /// Radius around the origin that holds every vertex, m.
    pub radius: f32,
}

impl GpuMesh {
    /// Uploads `part` (None when it has no triangles); adds its byte size to `uploaded`.
    #[must_use]
    pub fn upload(
        device: &wgpu::Device,
        part: &MeshPart,
        with_overlap: bool,
        label: &str,
        uploaded: &mut u64,
    ) -> Option<Self> {
        // The overlap strip is drawn with opaque parts: where the neighbour is
        // at the same LOD it coincides exactly with the neighbour's own
        // triangles, where it is not it closes the gap between the LODs. The
        // sea leaves it out: blended twice, the strips would show as bands.
        let empty = Indices::default();
        let overlap = if with_overlap { &part.overlap } else { &empty };
        if part.indices.is_empty() && overlap.is_empty() {
            return None;
        }
        let (bytes, format) = match (&part.indices, overlap) {
            (Indices::U16(a), Indices::U16(b)) => {
                let all: Vec<u16> = a.iter().chain(b).copied().collect();
                (bytemuck::cast_slice(&all).to_vec(), wgpu::IndexFormat::Uint16)
            }
            (a, b) => {
                let all: Vec<u32> = a.to_u32().into_iter().chain(b.to_u32()).collect();
                (bytemuck::cast_slice(&all).to_vec(), wgpu::IndexFormat::Uint32)
            }
        };
        let count = (part.indices.len() + overlap.len()) as u32;
        let radius = part.vertices.iter().map(|v| Vec3::from_array(v.position).length()).fold(0.0, f32::max);
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(&part.vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: &bytes,
            usage: wgpu::BufferUsages::INDEX,
        });
        *uploaded += (size_of_val(part.vertices.as_slice()) + bytes.len()) as u64;
        Some(Self { vertices, indices, format, count, radius })
    }
}

/// One scattered object as the objects shader reads it: 32 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Instance {
    /// Its base, relative to the region's origin.
    pub base: [f32; 3],
    /// Its turn about the local up, radians.
    pub yaw: f32,
    /// Its size, metres (0: hidden, carried on by an arriving region).
    pub size: f32,
    /// Its colour, linear RGBA8.
    pub color: [u8; 4],
    /// Metres along the local up it starts its glide from (see `glide.rs`).
    pub glide_m: f32,
    /// `glide::CARRIED` when it came from a leaving region: drawn at once, not dithered in.
    pub carried: f32,
}

/// How far away a kind is still drawn, metres: past it its objects have thinned out.
#[must_use]
pub fn far_m(kind: ScatterKind) -> f32 {
    match kind {
        ScatterKind::Tree => 3_000.0,
        ScatterKind::Bush => 300.0,
        ScatterKind::Grass => 70.0,
        ScatterKind::Rock => 500.0,
        ScatterKind::Crystal => 600.0,
    }
}

/// Beyond these distances, metres, a kind's objects are drawn with their
/// low model, then with their impostor (`planet::scatter::models::LEVELS`).
#[must_use]
pub fn level_m(kind: ScatterKind) -> [f32; 2] {
    match kind {
        ScatterKind::Tree => [80.0, 400.0],
        ScatterKind::Bush => [30.0, 120.0],
        ScatterKind::Grass => [20.0, 45.0],
        ScatterKind::Rock => [40.0, 200.0],
        ScatterKind::Crystal => [60.0, 300.0],
    }
}

/// The detail level (0 full, 1 low, 2 impostor) a kind is drawn at from `distance_m`.
#[must_use]
pub fn level(kind: ScatterKind, distance_m: f64) -> usize {
    let [low, impostor] = level_m(kind).map(f64::from);
    usize::from(distance_m >= low) + usize::from(distance_m >= impostor)
}

/// A region's objects as made: the instances grouped by type, each one's
/// object id, and per type its first instance and count.
pub type Made = (Vec<Instance>, Vec<u64>, Vec<(u32, u32)>);

/// A region's scattered objects, grouped by model type: what the frame's
/// batches (`batch.rs`) copy from.
#[derive(Debug)]
pub struct RegionObjects {
    /// Per type (`kind_index * VARIANTS + variant`), its first instance and count.
    pub types: Vec<(u32, u32)>,
    /// The instances as made, and each one's object id: what the next
    /// regions' objects are matched against (see `glide.rs`).
    cpu: Vec<Instance>,
    ids: Vec<u64>,
    /// The instances drawn: `cpu`, less those carried on by a region that
    /// replaced this one (size 0).
    pub shown: Vec<Instance>,
}

impl RegionObjects {
    /// A region's objects as instances grouped by type, and their ids (None when it has none).
    #[must_use]
    pub fn instances(scatter: &Scatter) -> Option<Made> {
        if scatter.objects.is_empty() {
            return None;
        }
        let types = planet::scatter::models::TYPES;
        let type_of = planet::scatter::models::type_of;
        let mut counts = vec![0u32; types];
        for o in &scatter.objects {
            counts[type_of(o)] += 1;
        }
        let mut starts = vec![0u32; types];
        for t in 1..types {
            starts[t] = starts[t - 1] + counts[t - 1];
        }
        let mut fill = starts.clone();
        let none = Instance { base: [0.0; 3], yaw: 0.0, size: 0.0, color: [0; 4], glide_m: 0.0, carried: 0.0 };
        let mut instances = vec![none; scatter.objects.len()];
        let mut ids = vec![0; scatter.objects.len()];
        for o in &scatter.objects {
            let t = type_of(o);
            let i = fill[t] as usize;
            instances[i] = Instance { base: o.position.to_array(), yaw: o.yaw, size: o.size_m, color: o.color, ..none };
            ids[i] = o.id;
            fill[t] += 1;
        }
        Some((instances, ids, starts.into_iter().zip(counts).collect()))
    }

    /// The objects of instances made by [`RegionObjects::instances`]; adds their bytes to `kept`.
    #[must_use]
    pub fn new((cpu, ids, types): Made, kept: &mut u64) -> Self {
        *kept += size_of_val(cpu.as_slice()) as u64;
        Self { types, shown: cpu.clone(), cpu, ids }
    }

    /// Hides instances `indices` (their objects are carried on by arriving regions).
    pub fn hide(&mut self, indices: &[u32]) {
        for &i in indices {
            self.shown[i as usize].size = 0.0;
        }
    }

    /// Shows every instance again, as made but settled (a region back before it had gone).
    pub fn unhide(&mut self) {
        self.shown = self.cpu.iter().map(|o| Instance { carried: 0.0, glide_m: 0.0, ..*o }).collect();
    }
}

/// A region on the GPU.
#[derive(Debug)]
pub struct GpuRegion {
    /// Planet-local origin of its vertices.
    pub origin: DVec3,
    /// Terrain.
    pub terrain: Option<GpuMesh>,
    /// Resource blocks.
    pub blocks: Option<GpuMesh>,
    /// Sea surface.
    pub water: Option<GpuMesh>,
    /// Scattered objects.
    pub objects: Option<RegionObjects>,
    /// The buildings it draws (those whose base it holds).
    pub buildings: Vec<planet::settlements::PlacedBuilding>,
    /// When it started to fade in.
    pub shown_at: f64,
    /// When it started to fade out, if it is leaving.
    pub leaving_at: Option<f64>,
    /// The stamp of the edits its build holds.
    pub stamp: u64,
}

impl GpuRegion {
    /// The fade value the shaders take: 0..1 fading in, -1..0 fading out
    /// (minus the share already gone), 1 when fully shown.
    #[must_use]
    pub fn fade(&self, now: f64) -> f32 {
        match self.leaving_at {
            Some(t) => -(((now - t) / FADE_S).clamp(0.001, 1.0) as f32),
            None => ((now - self.shown_at) / FADE_S).clamp(0.0, 1.0) as f32,
        }
    }
}

/// Every region on the GPU, by planet and key.
#[derive(Debug, Default)]
pub struct RegionStore {
    /// Resident regions.
    pub regions: BTreeMap<(u32, RegionKey), GpuRegion>,
    /// Bytes uploaded since the store was made.
    pub uploaded_bytes: u64,
}

impl RegionStore {
    /// Brings the store to `shown` (the regions to draw now, with their
    /// meshes) at time `now`: uploads what is new, starts fading out what
    /// left, frees what has faded out. Returns the bytes uploaded.
    pub fn sync<'a>(
        &mut self,
        device: &wgpu::Device,
        shown: impl Iterator<Item = (u32, &'a SphereMesh, Option<&'a Scatter>, u64)>,
        now: f64,
    ) -> u64 {
        let before = self.uploaded_bytes;
        let shown: Vec<_> = shown.collect();
        let present: std::collections::BTreeSet<(u32, RegionKey)> = shown.iter().map(|s| (s.0, s.1.key)).collect();
        // The objects of the regions that leave now, for those arriving to carry on.
        let mut departures = Departures::default();
        for (&(planet, key), r) in &self.regions {
            if let (false, None, Some(o)) = (present.contains(&(planet, key)), r.leaving_at, &r.objects) {
                departures.add(planet, key, r.origin, &o.ids, &o.shown);
            }
        }
        // A region built again after an edit replaces its old build at once
        // (the streamer switches every edited region in one frame).
        let mut replaced = std::collections::BTreeSet::new();
        for &(planet, mesh, _, stamp) in &shown {
            if self.regions.get(&(planet, mesh.key)).is_some_and(|r| r.stamp != stamp) {
                self.regions.remove(&(planet, mesh.key));
                replaced.insert((planet, mesh.key));
            }
        }
        let mut hide: BTreeMap<(u32, RegionKey), Vec<u32>> = BTreeMap::new();
        for (planet, mesh, scatter, stamp) in shown {
            let id = (planet, mesh.key);
            let uploaded = &mut self.uploaded_bytes;
            match self.regions.get_mut(&id) {
                Some(r) => {
                    if r.leaving_at.take().is_some() {
                        // Back before it had gone: show it at once.
                        r.shown_at = now - FADE_S.max(GLIDE_S);
                        if let Some(o) = &mut r.objects {
                            o.unhide();
                        }
                    }
                }
                None => {
                    let objects = scatter.and_then(RegionObjects::instances).map(|mut made| {
                        for (region, index) in departures.carry(planet, mesh.origin, &made.1, &mut made.0) {
                            hide.entry((planet, region)).or_default().push(index);
                        }
                        RegionObjects::new(made, uploaded)
                    });
                    let region = GpuRegion {
                        origin: mesh.origin,
                        terrain: GpuMesh::upload(device, &mesh.terrain, true, "terrain", uploaded),
                        blocks: GpuMesh::upload(device, &mesh.blocks, true, "blocks", uploaded),
                        water: GpuMesh::upload(device, &mesh.water, false, "water", uploaded),
                        objects,
                        buildings: scatter
                            .map(|s| s.buildings.iter().filter(|b| b.owned).copied().collect())
                            .unwrap_or_default(),
                        // An edited region's new build is shown whole at once.
                        shown_at: if replaced.remove(&id) { now - FADE_S.max(GLIDE_S) } else { now },
                        leaving_at: None,
                        stamp,
                    };
                    self.regions.insert(id, region);
                }
            }
        }
        for (id, indices) in hide {
            if let Some(o) = self.regions.get_mut(&id).and_then(|r| r.objects.as_mut()) {
                o.hide(&indices);
            }
        }
        self.regions.retain(|id, r| {
            if present.contains(id) {
                return true;
            }
            // A region that was never fully in has nothing to fade out from.
            let leaving = *r.leaving_at.get_or_insert(now);
            now - leaving < FADE_S && now - r.shown_at >= FADE_S
        });
        self.uploaded_bytes - before
    }
}

/// A planet's proxy on the GPU, with its own fade.
#[derive(Debug)]
pub struct GpuProxy {
    /// The mesh, planet-local (origin at the centre).
    pub mesh: GpuMesh,
    /// Whether it is meant to be shown, and since when.
    pub shown: bool,
    /// When `shown` last changed.
    pub changed_at: f64,
}

impl GpuProxy {
    /// Sets whether it should show, from `now`.
    pub fn set_shown(&mut self, shown: bool, now: f64) {
        if shown != self.shown {
            self.shown = shown;
            self.changed_at = now;
        }
    }

    /// The fade value for the shaders, or None when it is wholly hidden.
    #[must_use]
    pub fn fade(&self, now: f64) -> Option<f32> {
        let progress = ((now - self.changed_at) / FADE_S).clamp(0.0, 1.0) as f32;
        if self.shown {
            Some(progress)
        } else if progress < 1.0 {
            Some(-progress.max(0.001))
        } else {
            None
        }
    }
}

/// Per kind (in `planet::scatter::KINDS` order), the objects of the shown
/// regions that a frame of `camera` (system space, the renderer's culling
/// camera) draws whole within `within_m`: in its view, and nearer than
/// both that and where their kind starts to thin out (0.6 of its far distance).
#[must_use]
pub fn objects_within(
    world: &engine::World,
    camera: &engine::Camera,
    within_m: f64,
) -> [u64; planet::scatter::KINDS.len()] {
    let mut counts = [0; planet::scatter::KINDS.len()];
    let Some(attached) = world.attached() else { return counts };
    // In the planet's local space, where its objects are.
    let camera = &world.planets[attached.planet as usize].camera_to_local(camera);
    let eye = camera.position;
    for region in attached.streamer.shown_regions() {
        let Some(scatter) = &region.scatter else { continue };
        let origin = scatter.origin;
        for o in &scatter.objects {
            let reach = within_m.min(0.6 * f64::from(far_m(o.kind)));
            let at = origin + o.position.as_dvec3();
            if at.distance_squared(eye) < reach * reach && camera.sees(at, f64::from(o.size_m)) {
                counts[planet::scatter::kind_index(o.kind)] += 1;
            }
        }
    }
    counts
}
