//! The settlements drawn: buildings and town lights.
//!
//! - **Buildings**: the three generated models (`planet::settlements::models`)
//!   in one vertex and index buffer; each frame, every shown region's own
//!   buildings (`PlacedBuilding::owned`) gathered into one camera-relative
//!   stream grouped by planet and type, one instanced draw each. The
//!   buildings shader bends each instance by its curve (the sum
//!   `PlacedBuilding::point` makes on the CPU for the collider) and draws the
//!   facades' windows, lit at night.
//! - **Town lights**: a point of light over each settlement of every planet,
//!   a few pixels across whatever the distance, so towns show from orbit:
//!   a warm glow on the night side, a bright dot ringed in dark by day; faded out
//!   close by, where the buildings themselves are drawn.

use glam::{DVec3, Vec3};
use planet::settlements::PlacedBuilding;
use planet::settlements::models::BuildingModels;
use wgpu::util::DeviceExt;

use crate::meshes::RegionStore;
use planet::scatter::models::ModelRange;

/// How far away buildings are drawn, metres.
pub const BUILDINGS_FAR_M: f32 = 6000.0;

/// Town lights fade in from this distance to a town, metres, to `LIGHTS_FULL_M`.
pub const LIGHTS_NEAR_M: f32 = 1500.0;
/// Distance from which a town's light is whole, metres.
pub const LIGHTS_FULL_M: f32 = 4000.0;
/// How far above the plot a town's light floats, metres (above a proxy's coarser ground).
const LIGHT_LIFT_M: f64 = 40.0;

/// One building as the buildings shader reads it: 100 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BuildingInstance {
    /// Its base relative to the camera, and its width, metres.
    pub base: [f32; 4],
    /// Up (unit), and its depth, metres.
    pub up: [f32; 4],
    /// Its width axis (unit), and its height, metres.
    pub across: [f32; 4],
    /// Curve: direction x, y, strength (m), exponent.
    pub curve: [f32; 4],
    /// Curve: wave amplitude (m), frequency, phase, profile blend.
    pub wave: [f32; 4],
    /// Floor height (m), its region's fade, 1 for a landmark, a hash for its windows.
    pub misc: [f32; 4],
    /// Wall colour, linear RGBA8.
    pub color: [u8; 4],
}

impl BuildingInstance {
    /// `b` of a region whose origin is `offset` from the camera, at `fade`.
    #[must_use]
    pub fn new(b: &PlacedBuilding, offset: Vec3, fade: f32) -> Self {
        let c = &b.curve;
        let base = b.base + offset;
        let seed = (b.town.wrapping_mul(7919) ^ b.index.wrapping_mul(104_729)) % 1024;
        Self {
            base: [base.x, base.y, base.z, b.width_m],
            up: [b.up.x, b.up.y, b.up.z, b.depth_m],
            across: [b.across.x, b.across.y, b.across.z, b.height_m],
            curve: [c.direction[0], c.direction[1], c.strength_m, c.exponent],
            wave: [c.wave_amplitude_m, c.wave_frequency, c.wave_phase, c.profile_blend],
            misc: [b.floor_height_m, fade, if b.landmark { 1.0 } else { 0.0 }, seed as f32 / 1024.0],
            color: b.color,
        }
    }
}

/// One town's light: 48 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LightInstance {
    /// Its position relative to the camera, and its size, pixels.
    pub position: [f32; 4],
    /// Linear RGB, and its strength 0..1.
    pub color: [f32; 4],
    /// How much night it is there, 0..1 (a glow at night, a ringed marker by day); the rest unused.
    pub night: [f32; 4],
}

/// One instanced draw of buildings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildingBatch {
    /// The planet.
    pub planet: u32,
    /// Type, in `BuildingKind::ALL` order.
    pub kind: usize,
    /// First instance in the frame's stream, and count.
    pub first: u32,
    /// Instances.
    pub count: u32,
}

/// The building models on the GPU.
#[derive(Debug)]
pub struct GpuBuildingModels {
    /// Vertices (`BuildingVertex`).
    pub vertices: wgpu::Buffer,
    /// Indices, u32.
    pub indices: wgpu::Buffer,
    /// Per type, its range.
    pub kinds: Vec<ModelRange>,
}

impl GpuBuildingModels {
    /// Generates and uploads the three models.
    #[must_use]
    pub fn new(device: &wgpu::Device) -> Self {
        let set = BuildingModels::shared();
        let buffer = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents, usage })
        };
        Self {
            vertices: buffer("buildings", bytemuck::cast_slice(&set.vertices), wgpu::BufferUsages::VERTEX),
            indices: buffer("buildings", bytemuck::cast_slice(&set.indices), wgpu::BufferUsages::INDEX),
            kinds: set.kinds.clone(),
        }
    }
}

/// The owned buildings of the regions `sees` lets through, within
/// [`BUILDINGS_FAR_M`] of `eye`, as one stream in batches by planet and type.
pub fn gather(
    regions: &RegionStore,
    planet_position: impl Fn(u32) -> DVec3,
    eye: DVec3,
    sees: impl Fn(DVec3, f64) -> bool,
    now: f64,
) -> (Vec<BuildingInstance>, Vec<BuildingBatch>) {
    let mut groups: std::collections::BTreeMap<(u32, usize), Vec<BuildingInstance>> = std::collections::BTreeMap::new();
    for (&(planet, _), region) in &regions.regions {
        if region.buildings.is_empty() {
            continue;
        }
        let origin = planet_position(planet) + region.origin;
        let radius = region.terrain.as_ref().map_or(0.0, |m| f64::from(m.radius)) + 80.0;
        if !sees(origin, radius) || origin.distance(eye) - radius > f64::from(BUILDINGS_FAR_M) {
            continue;
        }
        let (offset, fade) = ((origin - eye).as_vec3(), region.fade(now));
        for b in &region.buildings {
            groups.entry((planet, b.kind.index())).or_default().push(BuildingInstance::new(b, offset, fade));
        }
    }
    let mut stream = Vec::new();
    let mut batches = Vec::new();
    for ((planet, kind), instances) in groups {
        let first = stream.len() as u32;
        stream.extend(instances);
        batches.push(BuildingBatch { planet, kind, first, count: stream.len() as u32 - first });
    }
    (stream, batches)
}

/// Warm window light, linear RGB.
const NIGHT_LIGHT: [f32; 3] = [1.0, 0.62, 0.28];
/// A town's marker by day, linear RGB.
const DAY_MARKER: [f32; 3] = [1.0, 0.9, 0.6];

/// The light of each settlement of each planet (`towns(planet)`: its
/// settlements' unit directions and heights, the planet's radius, its
/// position and its sun direction), seen from `eye`.
pub fn lights(
    planets: impl Iterator<Item = (DVec3, f64, Vec3, Vec<(Vec3, f32)>)>,
    eye: DVec3,
    sees: impl Fn(DVec3, f64) -> bool,
) -> Vec<LightInstance> {
    let mut out = Vec::new();
    for (position, radius_m, sun, towns) in planets {
        for (centre, height_m) in towns {
            let at = position + centre.as_dvec3() * (radius_m + f64::from(height_m) + LIGHT_LIFT_M);
            let distance = at.distance(eye) as f32;
            let near = ((distance - LIGHTS_NEAR_M) / (LIGHTS_FULL_M - LIGHTS_NEAR_M)).clamp(0.0, 1.0);
            if near <= 0.0 || !sees(at, 50.0) {
                continue;
            }
            // Night where the sun is below the town's horizon, through a short dusk.
            let night = ((0.08 - centre.dot(sun)) / 0.16).clamp(0.0, 1.0);
            let mix = |day: f32, night_c: f32| day + (night_c - day) * night;
            let color = [0, 1, 2].map(|k| mix(DAY_MARKER[k], NIGHT_LIGHT[k]));
            let size = 6.0 - 1.0 * night;
            let p = (at - eye).as_vec3();
            out.push(LightInstance {
                position: [p.x, p.y, p.z, size],
                color: [color[0], color[1], color[2], near],
                night: [night, 0.0, 0.0, 0.0],
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A town's light fades in with distance, is warm and bigger at night,
    /// pale by day, and an unseen one is left out.
    #[test]
    fn town_lights_show_from_afar_warm_at_night() {
        let towns = vec![(Vec3::X, 10.0), (Vec3::NEG_X, 10.0)];
        let planet = (DVec3::ZERO, 4000.0, Vec3::X, towns);
        // From far out along +x the +x town is in daylight, the -x one at night but hidden.
        let eye = DVec3::new(20_000.0, 0.0, 0.0);
        let shown = lights(std::iter::once(planet.clone()), eye, |c, _| c.x > 0.0);
        assert_eq!(shown.len(), 1);
        assert!((shown[0].color[3] - 1.0).abs() < 1e-6 && shown[0].night[0] == 0.0, "{:?}", shown[0]);
        // Seen from the night side.
        let night = lights(std::iter::once(planet.clone()), -eye, |_, _| true);
        let dark = night.iter().find(|l| l.position[0] > 10_000.0 && l.position[0] < 20_000.0).unwrap();
        assert!(dark.color[0] > dark.color[2] * 3.0 && dark.night[0] == 1.0, "{dark:?}");
        // Close to a town its light is gone (its buildings are drawn).
        let close = DVec3::new(4000.0 + 10.0 + 40.0 + 500.0, 0.0, 0.0);
        assert!(lights(std::iter::once(planet), close, |_, _| true).iter().all(|l| l.position[0] < -1000.0));
    }
}
