//! The animals drawn: one model per gait, generated at renderer creation
//! from low-poly ellipsoids in a unit body-length space (x forward, y up,
//! z right, feet at y = 0), and each frame the attached planet's creatures
//! as one camera-relative instance stream, one instanced draw per gait.
//! Each vertex names its part and the point it turns about, so the shader
//! walks the model (legs, head bob, tail, wings); the hop's bounce and the
//! rest's sink are worked out here, where tests can see them.

use std::ops::Range;

use bytemuck::{Pod, Zeroable};
use engine::World;
use engine::creatures::{CreatureView, Gait};
use glam::{DVec3, Vec3};
use wgpu::util::DeviceExt;

use crate::frame::RenderFrame;
use crate::gpu::Gpu;
use crate::renderer::{DEPTH_FORMAT, FrameStats};

/// Models, one per gait.
const MODELS: usize = Gait::ALL.len();

/// Part kinds, as the shader reads a vertex's `limb`.
const BODY: u32 = 0;
const HEAD: u32 = 1;
const LEG: u32 = 2;
const WING: u32 = 3;
const TAIL: u32 = 4;

/// Colour slots (`CreatureVertex::colour`): back, belly and legs, dark (eyes, beaks).
const BACK: f32 = 0.0;
const BELLY: f32 = 1.0;
const DARK: f32 = 2.0;

/// One vertex of a creature model: 56 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct CreatureVertex {
    /// Unit body-length space: x forward, y up, z right, feet at y = 0.
    pub position: [f32; 3],
    /// Unit normal.
    pub normal: [f32; 3],
    /// Where its part turns (hip, shoulder, neck root).
    pub pivot: [f32; 3],
    /// 0 back to 1 belly (blended), 2 dark.
    pub colour: f32,
    /// Its part's kind (body, head, leg, wing, tail).
    pub limb: u32,
    /// Its part's swing: phase offset (cycles), amplitude (radians), fold
    /// angle at rest (radians; a wing's fold on the ground).
    pub swing: [f32; 3],
}

/// The four models on the CPU.
#[derive(Debug, Default)]
pub struct CreatureModels {
    /// Every model's vertices.
    pub vertices: Vec<CreatureVertex>,
    /// Every model's triangles (u32, into `vertices`).
    pub indices: Vec<u32>,
    /// Per gait, its range of `indices`.
    pub ranges: Vec<Range<u32>>,
}

/// One ellipsoid of a model.
#[derive(Clone, Copy)]
struct Part {
    centre: Vec3,
    /// Unit axes (the first is the poles'), each with its radius.
    axes: [Vec3; 3],
    radii: Vec3,
    /// Around and pole-to-pole divisions.
    segments: u32,
    rings: u32,
    limb: u32,
    pivot: Vec3,
    swing: [f32; 3],
    /// A slot, or `None` for back above blending to belly below.
    colour: Option<f32>,
}

impl Part {
    /// A rigid body part centred at `centre` with radii along x, y, z.
    fn blob(centre: [f32; 3], radii: [f32; 3]) -> Self {
        Self {
            centre: Vec3::from_array(centre),
            axes: [Vec3::X, Vec3::Y, Vec3::Z],
            radii: Vec3::from_array(radii),
            segments: 8,
            rings: 6,
            limb: BODY,
            pivot: Vec3::from_array(centre),
            swing: [0.0; 3],
            colour: None,
        }
    }

    /// A part from `a` to `b` (in the xy plane), `thick` across (y', z).
    fn limb(a: [f32; 3], b: [f32; 3], thick: [f32; 2]) -> Self {
        let (a, b) = (Vec3::from_array(a), Vec3::from_array(b));
        let along = (b - a).normalize();
        let across = Vec3::new(-along.y, along.x, 0.0).normalize_or(Vec3::Y);
        Self {
            centre: (a + b) * 0.5,
            axes: [along, across, Vec3::Z],
            radii: Vec3::new(a.distance(b) * 0.5, thick[0], thick[1]),
            segments: 6,
            rings: 4,
            limb: BODY,
            pivot: a,
            swing: [0.0; 3],
            colour: None,
        }
    }

    /// Turned about z by `angle` radians (its x and y axes).
    fn pitched(mut self, angle: f32) -> Self {
        let turn = glam::Quat::from_rotation_z(angle);
        self.axes = self.axes.map(|a| turn * a);
        self
    }

    fn detail(mut self, segments: u32, rings: u32) -> Self {
        (self.segments, self.rings) = (segments, rings);
        self
    }

    fn colour(mut self, slot: f32) -> Self {
        self.colour = Some(slot);
        self
    }

    /// Moves with part kind `limb` about `pivot`.
    fn moves(mut self, limb: u32, pivot: [f32; 3], swing: [f32; 3]) -> Self {
        (self.limb, self.pivot, self.swing) = (limb, Vec3::from_array(pivot), swing);
        self
    }

    /// The same part on the other side (z mirrored), its swing half a cycle on where `opposite`.
    fn mirrored(self, opposite: bool) -> Self {
        let flip = |v: Vec3| Vec3::new(v.x, v.y, -v.z);
        let offset = if opposite { 0.5 } else { 0.0 };
        Self {
            centre: flip(self.centre),
            axes: self.axes.map(flip),
            pivot: flip(self.pivot),
            swing: [self.swing[0] + offset, self.swing[1], self.swing[2]],
            ..self
        }
    }
}

fn smoothstep(edge0: f32, edge1: f32, x: f32) -> f32 {
    let t = ((x - edge0) / (edge1 - edge0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

impl CreatureModels {
    /// The four models, in `Gait::ALL` order.
    #[must_use]
    pub fn generate() -> Self {
        let mut set = Self::default();
        for gait in Gait::ALL {
            let first = set.indices.len() as u32;
            for part in parts(gait) {
                set.add(&part);
            }
            set.ranges.push(first..set.indices.len() as u32);
        }
        set
    }

    /// Tessellates one ellipsoid (a UV sphere about its first axis), its
    /// triangles wound counter-clockwise seen from outside.
    fn add(&mut self, part: &Part) {
        let base = self.vertices.len() as u32;
        let (n, rings) = (part.segments, part.rings);
        let mut push = |s: Vec3| {
            let [a, b, c] = part.axes;
            let r = part.radii;
            let position = part.centre + a * (r.x * s.x) + b * (r.y * s.y) + c * (r.z * s.z);
            let normal = (a * (s.x / r.x) + b * (s.y / r.y) + c * (s.z / r.z)).normalize();
            let colour = part.colour.unwrap_or_else(|| smoothstep(0.15, -0.55, normal.y));
            self.vertices.push(CreatureVertex {
                position: position.to_array(),
                normal: normal.to_array(),
                pivot: part.pivot.to_array(),
                colour,
                limb: part.limb,
                swing: part.swing,
            });
        };
        push(Vec3::X);
        for i in 1..rings {
            let theta = std::f32::consts::PI * i as f32 / rings as f32;
            for j in 0..n {
                let phi = std::f32::consts::TAU * j as f32 / n as f32;
                let ring = libm::sinf(theta);
                push(Vec3::new(libm::cosf(theta), ring * libm::cosf(phi), ring * libm::sinf(phi)));
            }
        }
        push(Vec3::NEG_X);
        let ring = |i: u32, j: u32| base + 1 + (i - 1) * n + j % n;
        let last = base + 1 + (rings - 1) * n;
        let mut triangles = Vec::new();
        for j in 0..n {
            triangles.push([base, ring(1, j), ring(1, j + 1)]);
            for i in 1..rings - 1 {
                triangles.push([ring(i, j), ring(i + 1, j), ring(i + 1, j + 1)]);
                triangles.push([ring(i, j), ring(i + 1, j + 1), ring(i, j + 1)]);
            }
            triangles.push([ring(rings - 1, j), last, ring(rings - 1, j + 1)]);
        }
        for mut t in triangles {
            // Whichever way the axes turn, wind each triangle outward.
            if face_normal(&self.vertices, t).dot(vertex_normals(&self.vertices, t)) < 0.0 {
                t.swap(1, 2);
            }
            self.indices.extend(t);
        }
    }
}

/// A triangle's normal by its winding (unnormalised).
fn face_normal(vertices: &[CreatureVertex], t: [u32; 3]) -> Vec3 {
    let [a, b, c] = t.map(|i| Vec3::from_array(vertices[i as usize].position));
    (b - a).cross(c - a)
}

/// The sum of a triangle's vertex normals.
fn vertex_normals(vertices: &[CreatureVertex], t: [u32; 3]) -> Vec3 {
    t.iter().map(|&i| Vec3::from_array(vertices[i as usize].normal)).sum()
}

/// A gait's body plan. Legs' swings: [phase offset, amplitude, fold at rest]
/// (a positive angle swings a foot forward).
fn parts(gait: Gait) -> Vec<Part> {
    let eye = |at: [f32; 3], r: f32| Part::blob(at, [r, r, r]).detail(4, 3).colour(DARK).moves(HEAD, at, [0.0; 3]);
    let mut parts = Vec::new();
    let mut pair = |part: Part, opposite: bool| {
        parts.push(part);
        parts.push(part.mirrored(opposite));
    };
    match gait {
        Gait::Quadruped => {
            let neck = [0.26, 0.62, 0.0];
            let head = [0.0, 0.14, -0.35];
            let front = [0.0, 0.55, -1.3];
            let hind = [0.5, 0.55, 1.3];
            pair(
                Part::limb([0.21, 0.5, 0.09], [0.23, 0.0, 0.09], [0.035, 0.035]).colour(BELLY).moves(
                    LEG,
                    [0.21, 0.5, 0.09],
                    front,
                ),
                true,
            );
            pair(
                Part::limb([-0.22, 0.52, 0.09], [-0.25, 0.0, 0.09], [0.045, 0.04]).colour(BELLY).moves(
                    LEG,
                    [-0.22, 0.52, 0.09],
                    hind,
                ),
                true,
            );
            pair(eye([0.47, 0.97, 0.045], 0.018).moves(HEAD, neck, head), false);
            pair(Part::blob([0.39, 1.04, 0.035], [0.02, 0.05, 0.015]).detail(5, 4).moves(HEAD, neck, head), false);
            parts.extend([
                Part::blob([0.0, 0.58, 0.0], [0.34, 0.17, 0.15]).detail(12, 8),
                Part::limb(neck, [0.4, 0.93, 0.0], [0.065, 0.055]).moves(HEAD, neck, head),
                Part::blob([0.45, 0.93, 0.0], [0.1, 0.062, 0.058]).pitched(-0.4).moves(HEAD, neck, head),
                Part::blob([0.535, 0.885, 0.0], [0.025, 0.025, 0.03]).detail(5, 3).colour(DARK).moves(HEAD, neck, head),
                Part::limb([-0.31, 0.64, 0.0], [-0.46, 0.46, 0.0], [0.03, 0.03]).moves(
                    TAIL,
                    [-0.31, 0.64, 0.0],
                    [0.0, 0.3, 0.0],
                ),
            ]);
        }
        Gait::Biped => {
            // A leaning runner: a long tail balancing a long neck, two strong legs, small arms.
            let neck = [0.16, 0.7, 0.0];
            let head = [0.0, 0.12, -0.3];
            let leg = [0.0, 0.64, 0.1];
            let swing = [0.0, 0.6, 1.4];
            pair(Part::limb(leg, [0.09, 0.32, 0.1], [0.06, 0.045]).colour(BELLY).moves(LEG, leg, swing), true);
            pair(
                Part::limb([0.09, 0.32, 0.1], [-0.02, 0.04, 0.1], [0.03, 0.03]).colour(BELLY).moves(LEG, leg, swing),
                true,
            );
            pair(
                Part::blob([0.04, 0.025, 0.1], [0.07, 0.025, 0.035]).detail(6, 4).colour(BELLY).moves(LEG, leg, swing),
                true,
            );
            pair(
                Part::limb([0.17, 0.6, 0.09], [0.24, 0.47, 0.09], [0.022, 0.022]).colour(BELLY).moves(
                    LEG,
                    [0.17, 0.6, 0.09],
                    [0.25, 0.3, -0.6],
                ),
                true,
            );
            pair(eye([0.41, 0.92, 0.04], 0.017).moves(HEAD, neck, head), false);
            parts.extend([
                Part::blob([0.0, 0.67, 0.0], [0.22, 0.13, 0.12]).pitched(0.1).detail(12, 8),
                Part::limb(neck, [0.3, 0.88, 0.0], [0.055, 0.05]).moves(HEAD, neck, head),
                Part::blob([0.37, 0.9, 0.0], [0.1, 0.055, 0.05]).pitched(-0.15).moves(HEAD, neck, head),
                Part::limb([-0.16, 0.69, 0.0], [-0.52, 0.56, 0.0], [0.06, 0.05]).detail(8, 6).moves(
                    TAIL,
                    [-0.16, 0.69, 0.0],
                    [0.25, 0.2, 0.0],
                ),
            ]);
        }
        Gait::Hopper => {
            // Big folded hind legs with long feet, small forepaws, an upright body, long ears and a thick tail.
            let hip = [-0.1, 0.3, 0.1];
            let neck = [0.19, 0.58, 0.0];
            let head = [0.0, 0.1, -0.3];
            let hind = [0.5, 0.5, 0.0];
            pair(
                Part::blob([-0.1, 0.22, 0.1], [0.16, 0.11, 0.065]).pitched(0.5).colour(BELLY).moves(LEG, hip, hind),
                false,
            );
            pair(
                Part::limb([-0.22, 0.1, 0.1], [-0.18, 0.03, 0.1], [0.04, 0.04]).colour(BELLY).moves(LEG, hip, hind),
                false,
            );
            pair(
                Part::blob([-0.06, 0.028, 0.1], [0.15, 0.028, 0.045]).detail(8, 4).colour(BELLY).moves(LEG, hip, hind),
                false,
            );
            pair(
                Part::limb([0.14, 0.36, 0.07], [0.18, 0.13, 0.07], [0.03, 0.03]).colour(BELLY).moves(
                    LEG,
                    [0.14, 0.36, 0.07],
                    [0.5, 0.4, -0.5],
                ),
                false,
            );
            pair(
                Part::blob([0.19, 0.78, 0.045], [0.03, 0.13, 0.02]).pitched(0.3).detail(6, 5).moves(HEAD, neck, head),
                false,
            );
            pair(eye([0.31, 0.67, 0.05], 0.018).moves(HEAD, neck, head), false);
            parts.extend([
                Part::blob([0.0, 0.38, 0.0], [0.24, 0.17, 0.14]).pitched(0.55).detail(12, 8),
                Part::limb([0.08, 0.45, 0.0], neck, [0.09, 0.08]).moves(HEAD, neck, head),
                Part::blob([0.24, 0.63, 0.0], [0.11, 0.08, 0.075]).pitched(-0.3).moves(HEAD, neck, head),
                Part::blob([0.34, 0.6, 0.0], [0.02, 0.02, 0.025]).detail(5, 3).colour(DARK).moves(HEAD, neck, head),
                Part::limb([-0.2, 0.24, 0.0], [-0.5, 0.05, 0.0], [0.06, 0.05]).detail(8, 5).moves(
                    TAIL,
                    [-0.2, 0.24, 0.0],
                    [0.0, 0.1, 0.0],
                ),
            ]);
        }
        Gait::Flyer => {
            // A bird: wings out to the sides (folded back along the body on the ground), short legs, a fanned tail.
            let shoulder = [0.06, 0.42, 0.07];
            let neck = [0.18, 0.42, 0.0];
            let head = [0.0, 0.12, -0.3];
            let wing = Part {
                axes: [Vec3::Z, Vec3::X, Vec3::Y],
                ..Part::blob([0.02, 0.43, 0.37], [0.3, 0.13, 0.018]).detail(10, 6).colour(BACK)
            };
            pair(wing.moves(WING, shoulder, [0.0, 0.8, 1.45]), false);
            pair(
                Part::limb([0.0, 0.3, 0.05], [0.02, 0.0, 0.05], [0.018, 0.018]).colour(DARK).moves(
                    LEG,
                    [0.0, 0.3, 0.05],
                    [0.0, 0.4, 1.5],
                ),
                true,
            );
            pair(eye([0.35, 0.5, 0.04], 0.014).moves(HEAD, neck, head), false);
            parts.extend([
                Part::blob([0.0, 0.4, 0.0], [0.24, 0.11, 0.1]).pitched(0.08).detail(12, 8),
                Part::blob([0.28, 0.48, 0.0], [0.09, 0.075, 0.07]).moves(HEAD, neck, head),
                Part::limb([0.35, 0.47, 0.0], [0.46, 0.44, 0.0], [0.018, 0.015]).colour(DARK).moves(HEAD, neck, head),
                Part { axes: [Vec3::X, Vec3::Z, Vec3::Y], ..Part::blob([-0.36, 0.38, 0.0], [0.16, 0.09, 0.015]) }
                    .detail(8, 5)
                    .colour(BACK)
                    .moves(TAIL, [-0.22, 0.38, 0.0], [0.0, 0.1, 0.0]),
            ]);
        }
    }
    parts
}

/// How far a gait's body sinks lying down, body lengths.
fn lie_drop(gait: Gait) -> f32 {
    match gait {
        Gait::Quadruped => 0.36,
        Gait::Biped => 0.48,
        Gait::Hopper => 0.02,
        Gait::Flyer => 0.22,
    }
}

/// How high its walk lifts the body at `phase` (cycles) and `stride`, body
/// lengths: a hopper leaps once a cycle, the others bob twice a stride.
fn bounce(gait: Gait, phase: f32, stride: f32) -> f32 {
    let wave = libm::sinf(std::f32::consts::TAU * phase);
    match gait {
        Gait::Hopper => 0.25 * stride * wave.max(0.0),
        _ => 0.02 * stride * wave.abs(),
    }
}

/// One creature as the creatures shader reads it: 96 bytes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct CreatureInstance {
    /// Where its model's origin is, relative to the camera (its feet, lifted
    /// by its flight and bounce, lowered lying down), and its size, metres.
    pub position: [f32; 4],
    /// Forward (unit, square to up), and the walk cycle's phase (0..1).
    pub forward: [f32; 4],
    /// Up (unit), and its stride (0..1).
    pub up: [f32; 4],
    /// Back colour (linear RGB), and its rest (0..1).
    pub back: [f32; 4],
    /// Belly colour (linear RGB), and how far its wings are spread (0..1, flyers in flight).
    pub belly: [f32; 4],
    /// Its fade (0..1), the planet's index; the rest unused.
    pub misc: [f32; 4],
}

impl CreatureInstance {
    /// `c` on a planet centred at `centre` seen from `eye` (frame coordinates).
    #[must_use]
    pub fn new(c: &CreatureView, planet: u32, centre: DVec3, eye: DVec3) -> Self {
        let up = c.up.normalize_or(Vec3::Y);
        let forward = (c.forward - up * c.forward.dot(up)).normalize_or(up.any_orthonormal_vector());
        let (rest, stride) = (c.rest.clamp(0.0, 1.0), c.stride.clamp(0.0, 1.0));
        let phase = c.phase - libm::floorf(c.phase);
        // Flyers lift off on the engine's flight height; wings spread over the first quarter body length.
        let spread =
            if c.gait == Gait::Flyer { (c.flight_m / (0.25 * c.size_m).max(1e-3)).clamp(0.0, 1.0) } else { 0.0 };
        let lift = c.size_m * (bounce(c.gait, phase, stride) - rest * lie_drop(c.gait)) + c.flight_m.max(0.0);
        let at = (centre + c.position - eye).as_vec3() + up * lift;
        let [back, belly] = c.colours;
        Self {
            position: [at.x, at.y, at.z, c.size_m],
            forward: [forward.x, forward.y, forward.z, phase],
            up: [up.x, up.y, up.z, stride],
            back: [back.x, back.y, back.z, rest],
            belly: [belly.x, belly.y, belly.z, spread],
            misc: [c.fade.clamp(0.0, 1.0), planet as f32, 0.0, 0.0],
        }
    }
}

/// The creatures to draw, camera-relative, grouped by gait (the ranges in
/// `Gait::ALL` order): `creatures` stand on planet `planet` (the attached
/// one, if any), drawn only when that is the frame's `reference` (centred
/// at `centre`); those `sees` (frame centre, radius) lets through, seen from `eye`.
pub fn gather(
    creatures: &[CreatureView],
    planet: Option<u32>,
    reference: u32,
    centre: DVec3,
    eye: DVec3,
    sees: impl Fn(DVec3, f64) -> bool,
) -> (Vec<CreatureInstance>, Vec<Range<u32>>) {
    let mut groups: [Vec<CreatureInstance>; MODELS] = Default::default();
    if planet == Some(reference) {
        for c in creatures {
            let middle = centre + c.position + c.up.as_dvec3() * f64::from(c.size_m * 0.5 + c.flight_m);
            if c.fade > 0.0 && c.size_m > 0.0 && sees(middle, f64::from(c.size_m)) {
                groups[c.gait.index()].push(CreatureInstance::new(c, reference, centre, eye));
            }
        }
    }
    let mut stream = Vec::with_capacity(groups.iter().map(Vec::len).sum());
    let mut ranges = Vec::with_capacity(MODELS);
    for group in groups {
        let first = stream.len() as u32;
        stream.extend(group);
        ranges.push(first..stream.len() as u32);
    }
    (stream, ranges)
}

/// The creature pipeline, models and the frame's instances on the GPU.
#[derive(Debug)]
pub struct GpuCreatures {
    pipeline: wgpu::RenderPipeline,
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    /// Per gait, its model's indices.
    models: Vec<Range<u32>>,
    /// The frame's instances, and how many the buffer holds.
    stream: wgpu::Buffer,
    capacity: usize,
    /// Per gait, the frame's instances.
    drawn: Vec<Range<u32>>,
}

impl GpuCreatures {
    /// Generates and uploads the models and makes the pipeline (frame
    /// uniforms in group 0, `common` the shared shader source).
    #[must_use]
    pub fn new(
        device: &wgpu::Device,
        frame_layout: &wgpu::BindGroupLayout,
        format: wgpu::TextureFormat,
        common: &str,
    ) -> Self {
        let set = CreatureModels::generate();
        let buffer = |label, contents: &[u8], usage| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents, usage })
        };
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("creatures"),
            source: wgpu::ShaderSource::Wgsl(format!("{common}\n{}", include_str!("shaders/creatures.wgsl")).into()),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("creatures"),
            bind_group_layouts: &[Some(frame_layout)],
            immediate_size: 0,
        });
        let vertex_attributes = wgpu::vertex_attr_array![
            0 => Float32x3, 1 => Float32x3, 2 => Float32x3, 3 => Float32, 4 => Uint32, 5 => Float32x3
        ];
        let instance_attributes = wgpu::vertex_attr_array![
            6 => Float32x4, 7 => Float32x4, 8 => Float32x4, 9 => Float32x4, 10 => Float32x4, 11 => Float32x4
        ];
        let buffers = [
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<CreatureVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &vertex_attributes,
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<CreatureInstance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &instance_attributes,
            }),
        ];
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("creatures"),
            layout: Some(&layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_creatures"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                buffers: &buffers,
            },
            // The models are closed and wound outward, and only ever turned, never mirrored.
            primitive: wgpu::PrimitiveState {
                topology: wgpu::PrimitiveTopology::TriangleList,
                front_face: wgpu::FrontFace::Ccw,
                cull_mode: Some(wgpu::Face::Back),
                ..wgpu::PrimitiveState::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::GreaterEqual),
                stencil: wgpu::StencilState::default(),
                bias: wgpu::DepthBiasState::default(),
            }),
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs_creatures"),
                compilation_options: wgpu::PipelineCompilationOptions::default(),
                targets: &[Some(wgpu::ColorTargetState { format, blend: None, write_mask: wgpu::ColorWrites::ALL })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let capacity = 64;
        Self {
            pipeline,
            vertices: buffer("creature models", bytemuck::cast_slice(&set.vertices), wgpu::BufferUsages::VERTEX),
            indices: buffer("creature models", bytemuck::cast_slice(&set.indices), wgpu::BufferUsages::INDEX),
            models: set.ranges,
            stream: stream_buffer(device, capacity),
            capacity,
            drawn: vec![0..0; MODELS],
        }
    }

    /// Uploads the frame's creatures: `world`'s, in `frame` seen from `eye`
    /// (frame coordinates), those `sees` lets through. Creatures move every
    /// frame, so the stream is written anew each time.
    pub fn upload(
        &mut self,
        gpu: &Gpu,
        world: &World,
        frame: &RenderFrame,
        eye: DVec3,
        sees: impl Fn(DVec3, f64) -> bool,
    ) {
        let planet = world.attached().map(|a| a.planet);
        let centre = frame.positions[frame.reference as usize];
        let (stream, drawn) = gather(world.creatures(), planet, frame.reference, centre, eye, sees);
        if stream.len() > self.capacity {
            self.capacity = stream.len().next_power_of_two();
            self.stream = stream_buffer(&gpu.device, self.capacity);
        }
        if !stream.is_empty() {
            gpu.queue.write_buffer(&self.stream, 0, bytemuck::cast_slice(&stream));
        }
        self.drawn = drawn;
    }

    /// Draws the uploaded creatures, one instanced draw per gait (the frame's
    /// uniforms bound in group 0).
    pub fn draw(&self, pass: &mut wgpu::RenderPass<'_>, stats: &mut FrameStats) {
        if self.drawn.iter().all(Range::is_empty) {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_vertex_buffer(0, self.vertices.slice(..));
        pass.set_vertex_buffer(1, self.stream.slice(..));
        pass.set_index_buffer(self.indices.slice(..), wgpu::IndexFormat::Uint32);
        for (model, instances) in self.models.iter().zip(&self.drawn).filter(|(_, d)| !d.is_empty()) {
            pass.draw_indexed(model.clone(), 0, instances.clone());
            stats.draws += 1;
            stats.creatures += u64::from(instances.len() as u32);
            stats.triangles += u64::from(model.len() as u32 / 3) * instances.len() as u64;
        }
    }
}

fn stream_buffer(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("creatures"),
        size: (capacity * size_of::<CreatureInstance>()) as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(set: &CreatureModels, gait: Gait) -> Vec<CreatureVertex> {
        let range = &set.ranges[gait.index()];
        set.indices[range.start as usize..range.end as usize].iter().map(|&i| set.vertices[i as usize]).collect()
    }

    /// Every model: indices in range, whole triangles wound outward (their
    /// winding agrees with their vertices' normals: back-face culling keeps
    /// the outside), unit normals, no slivers, feet on y = 0, about a unit
    /// long, a few hundred triangles.
    #[test]
    fn models_are_well_formed() {
        let set = CreatureModels::generate();
        assert_eq!(set.ranges.len(), Gait::ALL.len());
        assert_eq!(set.ranges.last().unwrap().end as usize, set.indices.len());
        assert!(set.indices.iter().all(|&i| (i as usize) < set.vertices.len()));
        for v in &set.vertices {
            assert!((Vec3::from_array(v.normal).length() - 1.0).abs() < 1e-4, "{v:?}");
            assert!(v.limb <= TAIL && (0.0..=DARK).contains(&v.colour), "{v:?}");
        }
        for gait in Gait::ALL {
            let range = set.ranges[gait.index()].clone();
            assert_eq!(range.len() % 3, 0);
            let triangles = range.len() / 3;
            assert!((200..=1000).contains(&triangles), "{gait:?}: {triangles} triangles");
            for t in set.indices[range.start as usize..range.end as usize].chunks(3) {
                let t = [t[0], t[1], t[2]];
                let face = face_normal(&set.vertices, t);
                assert!(face.length() > 1e-7, "{gait:?}: a degenerate triangle {t:?}");
                assert!(face.dot(vertex_normals(&set.vertices, t)) > 0.0, "{gait:?}: {t:?} wound inward");
            }
            let points: Vec<Vec3> = model(&set, gait).iter().map(|v| Vec3::from_array(v.position)).collect();
            let low = points.iter().copied().fold(Vec3::splat(f32::MAX), Vec3::min);
            let high = points.iter().copied().fold(Vec3::splat(f32::MIN), Vec3::max);
            assert!(low.y.abs() < 0.01, "{gait:?}: feet at {}", low.y);
            assert!((0.85..=1.2).contains(&(high.x - low.x)), "{gait:?}: {low} to {high}");
            assert!(high.y > 0.3 && high.y < 1.2, "{gait:?}: {high}");
            // Every moving part turns about a point near its own vertices, inside the model's box.
            for v in model(&set, gait) {
                let pivot = Vec3::from_array(v.pivot);
                assert!(pivot.cmpge(low - 0.01).all() && pivot.cmple(high + 0.01).all(), "{gait:?}: {v:?}");
            }
        }
    }

    /// The four body plans differ where their walks need them to: four legs
    /// in diagonal pairs, two alternating, a hopper's hind legs in step, and
    /// only the flyer has wings.
    #[test]
    fn the_four_models_differ() {
        let set = CreatureModels::generate();
        // Per model, each leg (by pivot) with its phase offset.
        let legs = |gait: Gait| {
            let mut legs: Vec<([i32; 3], i32)> = model(&set, gait)
                .iter()
                .filter(|v| v.limb == LEG)
                .map(|v| (v.pivot.map(|p| (p * 1000.0) as i32), (v.swing[0].fract() * 1000.0) as i32))
                .collect();
            legs.sort_unstable();
            legs.dedup();
            legs
        };
        let quadruped = legs(Gait::Quadruped);
        let hind: Vec<_> = quadruped.iter().filter(|l| l.0[0] < 0).collect();
        let front: Vec<_> = quadruped.iter().filter(|l| l.0[0] > 0).collect();
        assert!(front.len() == 2 && hind.len() == 2, "{quadruped:?}");
        // Diagonal pairs: the front left steps with the hind right.
        let left_front = front.iter().find(|l| l.0[2] < 0).unwrap();
        let right_hind = hind.iter().find(|l| l.0[2] > 0).unwrap();
        assert_eq!(left_front.1, right_hind.1);
        assert_ne!(front[0].1, front[1].1);
        let biped = legs(Gait::Biped);
        let main: Vec<_> = biped.iter().filter(|l| l.0[1] == 640).collect();
        assert!(main.len() == 2 && main[0].1 != main[1].1, "{biped:?}");
        let hopper = legs(Gait::Hopper);
        let hips: Vec<_> = hopper.iter().filter(|l| l.0[0] < 0).collect();
        assert!(hips.len() == 2 && hips[0].1 == hips[1].1, "{hopper:?}");
        for gait in Gait::ALL {
            let wings = model(&set, gait).iter().filter(|v| v.limb == WING).count();
            assert_eq!(wings > 0, gait == Gait::Flyer, "{gait:?}");
        }
        for (i, a) in Gait::ALL.iter().enumerate() {
            for b in &Gait::ALL[i + 1..] {
                assert_ne!(model(&set, *a), model(&set, *b), "{a:?} and {b:?}");
            }
        }
    }

    fn creature(gait: Gait, position: DVec3) -> CreatureView {
        CreatureView {
            id: 1,
            species: 0,
            gait,
            size_m: 2.0,
            position,
            forward: Vec3::X,
            up: Vec3::Y,
            phase: 3.0,
            stride: 0.0,
            rest: 0.0,
            flight_m: 0.0,
            fade: 1.0,
            colours: [Vec3::new(0.3, 0.2, 0.1), Vec3::new(0.8, 0.7, 0.6)],
        }
    }

    /// Instances are camera-relative, grouped by gait in `Gait::ALL` order,
    /// with their colours; unseen and unfaded ones are left out.
    #[test]
    fn instances_are_camera_relative_by_gait() {
        let centre = DVec3::new(0.0, -1e6, 0.0);
        let eye = DVec3::new(5_000.0, 3_000.0, -2_000.0);
        let at = |x: f64| DVec3::new(5_010.0 + x, 1_003_000.0, -2_000.0);
        let mut hidden = creature(Gait::Biped, at(0.0));
        hidden.fade = 0.0;
        let all = [
            creature(Gait::Flyer, at(1.0)),
            creature(Gait::Quadruped, at(2.0)),
            creature(Gait::Flyer, at(3.0)),
            hidden,
            creature(Gait::Hopper, at(-40.0)),
        ];
        let (stream, ranges) = gather(&all, Some(2), 2, centre, eye, |c, _| c.x > eye.x);
        assert_eq!(ranges, vec![0..1, 1..1, 1..1, 1..3]);
        let want = [(2.0, Gait::Quadruped), (1.0, Gait::Flyer), (3.0, Gait::Flyer)];
        for (i, (x, _)) in want.iter().enumerate() {
            let p = Vec3::from_slice(&stream[i].position[..3]);
            assert!((p - Vec3::new(10.0 + *x as f32, 0.0, 0.0)).length() < 1e-3, "{i}: {p}");
            assert_eq!(stream[i].position[3], 2.0);
            assert_eq!(&stream[i].back[..3], &[0.3, 0.2, 0.1]);
            assert_eq!(&stream[i].belly[..3], &[0.8, 0.7, 0.6]);
            assert_eq!(stream[i].misc[..2], [1.0, 2.0]);
        }
    }

    /// Creatures are drawn only on the attached planet when it is the frame's reference.
    #[test]
    fn creatures_of_another_planet_are_not_drawn() {
        let all = [creature(Gait::Quadruped, DVec3::new(0.0, 1000.0, 0.0))];
        let eye = DVec3::new(0.0, 990.0, 0.0);
        assert_eq!(gather(&all, Some(1), 1, DVec3::ZERO, eye, |_, _| true).0.len(), 1);
        assert!(gather(&all, Some(1), 0, DVec3::ZERO, eye, |_, _| true).0.is_empty());
        assert!(gather(&all, None, 1, DVec3::ZERO, eye, |_, _| true).0.is_empty());
    }

    /// A hopper leaves the ground mid-hop, a resting animal sinks, a flyer
    /// in flight is lifted with its wings spread; phases wrap to one cycle
    /// and a slanted forward is squared to up.
    #[test]
    fn hops_rests_and_flight_move_the_body() {
        let height = |c: &CreatureView| CreatureInstance::new(c, 0, DVec3::ZERO, DVec3::ZERO).position[1];
        let mut hop = creature(Gait::Hopper, DVec3::ZERO);
        (hop.phase, hop.stride) = (7.25, 1.0);
        assert!((height(&hop) - 0.5).abs() < 1e-4, "{}", height(&hop));
        let mut lying = creature(Gait::Quadruped, DVec3::ZERO);
        lying.rest = 1.0;
        assert!((height(&lying) + 0.72).abs() < 1e-4);
        let mut bird = creature(Gait::Flyer, DVec3::ZERO);
        bird.flight_m = 6.0;
        bird.forward = Vec3::new(1.0, 1.0, 0.0).normalize();
        let flying = CreatureInstance::new(&bird, 0, DVec3::ZERO, DVec3::ZERO);
        assert!((flying.position[1] - 6.0).abs() < 1e-4 && flying.belly[3] == 1.0, "{flying:?}");
        assert!((Vec3::from_slice(&flying.forward[..3]) - Vec3::X).length() < 1e-6);
        assert_eq!(flying.forward[3], 0.0);
        bird.flight_m = 0.0;
        assert_eq!(CreatureInstance::new(&bird, 0, DVec3::ZERO, DVec3::ZERO).belly[3], 0.0);
    }
}
