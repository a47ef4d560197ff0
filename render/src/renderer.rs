//! The renderer: pipelines for the sky, the terrain (also resource blocks and
//! proxies) and the sea; the frame's uniforms; one draw uniform slot per
//! mesh, bound with a dynamic offset; and `render`, which draws a `World`
//! from a camera into a colour view and a depth target.
//!
//! Camera-relative rendering: the camera stays f64 on the CPU; each mesh's
//! offset from it is an f64 difference cast to f32, so the GPU only ever sees
//! small numbers. Depth is reversed-Z with an infinite far plane in a 32-bit
//! float buffer, so a pebble at a metre and a planet at a thousand kilometres
//! share a frame without z-fighting.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use engine::{Camera, Pose, World};
use glam::{DQuat, DVec3, Mat4, Vec3};
use planet::mesh::Vertex;
use planet::proxy::ProxyMesh;
use planet::scatter::models::{LEVELS, ModelVertex};
use wgpu::util::DeviceExt;

use crate::batch::{DrawnInstance, gather};
use crate::buildings::{BuildingBatch, BuildingInstance, GpuBuildingModels, LightInstance};
use crate::creatures::GpuCreatures;
use crate::frame::RenderFrame;
use crate::gpu::Gpu;
use crate::meshes::{GpuMesh, GpuProxy, RegionStore};
use crate::models::GpuModels;
use crate::textures::{MIP_LEVELS, MaterialSet, TEXTURE_SIZE};
use planet::settlements::models::BuildingVertex;

/// Planets the shaders hold at once.
pub const MAX_PLANETS: usize = 8;
/// Bytes between draw uniform slots (the dynamic offset alignment).
const DRAW_SLOT: u64 = 256;
/// Depth format: f32, reversed.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Near plane, metres.
pub const NEAR_M: f32 = 0.05;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
struct PlanetGpu {
    centre: [f32; 4],
    atmosphere: [f32; 4],
    shell: [f32; 4],
    sun: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct FrameGpu {
    view_proj: [[f32; 4]; 4],
    inv_view_proj: [[f32; 4]; 4],
    sun: [f32; 4],
    sun_color: [f32; 4],
    detail: [f32; 4],
    viewport: [f32; 4],
    planets: [PlanetGpu; MAX_PLANETS],
    /// Frame to system axes (columns): the stars are fixed in the latter.
    sky_rotation: [[f32; 4]; 3],
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct DrawGpu {
    offset: [f32; 4],
    texture_origin: [f32; 4],
    info: [f32; 4],
    /// Planet-local to frame axes (columns; identity but for other planets' proxies).
    rotation: [[f32; 4]; 3],
    pad: [f32; 40],
}

const _: () = assert!(size_of::<DrawGpu>() as u64 == DRAW_SLOT);

/// A rotation as the shaders' `mat3x3<f32>` takes it: three padded columns.
fn columns(rotation: DQuat) -> [[f32; 4]; 3] {
    let m = glam::Mat3::from_quat(rotation.as_quat());
    [m.x_axis, m.y_axis, m.z_axis].map(|c| [c.x, c.y, c.z, 0.0])
}

/// The camera a frame is drawn from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewCamera {
    /// Pose in system space.
    pub pose: Pose,
    /// Vertical field of view, radians.
    pub fov_y: f64,
}

impl ViewCamera {
    /// A camera with a 60° vertical field of view.
    #[must_use]
    pub fn new(pose: Pose) -> Self {
        Self { pose, fov_y: 60f64.to_radians() }
    }

    /// The view-projection of camera-relative positions.
    #[must_use]
    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        use glam::camera::rh::{proj::directx, view};
        let look = view::look_to_mat4(Vec3::ZERO, self.pose.forward.as_vec3(), self.pose.up.as_vec3());
        directx::perspective_infinite_reverse(self.fov_y as f32, aspect, NEAR_M) * look
    }

    /// The streaming camera (system space).
    #[must_use]
    pub fn engine_camera(&self, aspect: f64) -> Camera {
        Camera {
            position: self.pose.position,
            forward: self.pose.forward,
            fov_y: self.fov_y,
            aspect,
            velocity: DVec3::ZERO,
        }
    }
}

/// How a frame is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderOptions {
    /// Draw the sky; without it the clear colour shows wherever nothing was
    /// drawn (hole tests look for it).
    pub sky: bool,
    /// Clear colour, linear RGBA.
    pub clear: [f64; 4],
    /// Time, seconds: drives fades.
    pub time: f64,
    /// Draw the town lights and the beacon; hole tests turn them off with
    /// the sky (a light on the limb stands a few pixels beyond the disc).
    pub lights: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self { sky: true, clear: [0.0, 0.0, 0.0, 1.0], time: 0.0, lights: true }
    }
}

/// What a frame drew.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// Draw calls.
    pub draws: u32,
    /// Triangles submitted.
    pub triangles: u64,
    /// Bytes of region meshes uploaded this frame.
    pub uploaded_bytes: u64,
    /// Regions resident on the GPU.
    pub resident_regions: usize,
    /// Scattered objects submitted (before the distance thinning).
    pub objects: u64,
    /// Draw calls of scattered objects: one multi-draw a planet with
    /// indirect draws, else one per batch.
    pub object_draws: u32,
    /// Object batches (one per planet, model type and detail level), each
    /// one instanced draw, direct or in a multi-draw.
    pub object_batches: u32,
    /// Buildings drawn.
    pub buildings: u64,
    /// Town lights drawn.
    pub lights: u32,
    /// Creatures drawn.
    pub creatures: u64,
}

/// A depth buffer of one size.
#[derive(Debug)]
pub struct DepthTarget {
    /// The texture (also sampled by the water pass).
    pub texture: wgpu::Texture,
    /// Its view.
    pub view: wgpu::TextureView,
    /// Size, px.
    pub size: (u32, u32),
}

impl DepthTarget {
    /// A depth buffer of `size`.
    #[must_use]
    pub fn new(device: &wgpu::Device, size: (u32, u32)) -> Self {
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("depth"),
            size: wgpu::Extent3d { width: size.0.max(1), height: size.1.max(1), depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Self { texture, view, size }
    }
}

/// Draws worlds.
#[derive(Debug)]
pub struct Renderer {
    gpu: Arc<Gpu>,
    format: wgpu::TextureFormat,
    frame_buffer: wgpu::Buffer,
    frame_group: wgpu::BindGroup,
    draw_layout: wgpu::BindGroupLayout,
    draw_buffer: wgpu::Buffer,
    draw_group: wgpu::BindGroup,
    draw_capacity: usize,
    material_group: wgpu::BindGroup,
    depth_layout: wgpu::BindGroupLayout,
    /// The water pass's view of the scene depth, made once per depth target.
    depth_group: Option<(wgpu::TextureView, wgpu::BindGroup)>,
    sky: wgpu::RenderPipeline,
    terrain: wgpu::RenderPipeline,
    terrain_fading: wgpu::RenderPipeline,
    water: wgpu::RenderPipeline,
    objects: wgpu::RenderPipeline,
    models: GpuModels,
    buildings: wgpu::RenderPipeline,
    lights: wgpu::RenderPipeline,
    building_models: GpuBuildingModels,
    /// The creature models and the frame's creatures (`creatures.rs`).
    creatures: GpuCreatures,
    /// The frame's buildings and town lights, and how many each buffer holds.
    building_stream: wgpu::Buffer,
    building_capacity: usize,
    light_stream: wgpu::Buffer,
    light_capacity: usize,
    /// The frame's object batches (`batch.rs`), and how many instances it holds.
    object_stream: wgpu::Buffer,
    object_capacity: usize,
    /// The frame's object draws as indirect arguments (one per batch), and
    /// how many it holds; used when `indirect` is set.
    object_draws: wgpu::Buffer,
    object_draws_capacity: usize,
    /// Whether the objects are drawn as one multi-draw a planet (the
    /// device's support, unless turned off by [`Renderer::set_indirect`]).
    indirect: bool,
    /// The edit brush's marker, where the client shows one.
    marker: Option<Marker>,
    /// A point to mark above all others (the client's nearest town): planet, planet-local position.
    beacon: Option<(u32, DVec3)>,
    regions: RegionStore,
    /// Per planet, its proxy once the planet is made (`sync` uploads those
    /// made since).
    proxies: Vec<Option<GpuProxy>>,
    first_layer: Vec<u32>,
    sea_colours: Vec<[f32; 3]>,
}

impl Renderer {
    /// A renderer for `world`'s system drawing into `format` targets:
    /// generates the material textures and uploads every planet's proxy.
    #[must_use]
    pub fn new(gpu: Arc<Gpu>, format: wgpu::TextureFormat, world: &World) -> Self {
        Self::with_materials(gpu, format, world, &MaterialSet::generate(&world.system))
    }

    /// [`Renderer::new`] with the material textures made already
    /// (`MaterialSet::generate` of `world.system`, say on another thread
    /// while the world was built).
    #[must_use]
    pub fn with_materials(gpu: Arc<Gpu>, format: wgpu::TextureFormat, world: &World, materials: &MaterialSet) -> Self {
        debug_assert_eq!(
            materials.layers.len(),
            world.system.planets.iter().map(|p| p.recipe.materials.len()).sum::<usize>(),
            "the materials of another system"
        );
        let device = &gpu.device;
        let uniform = |binding: u32, dynamic: bool, stages: wgpu::ShaderStages| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: stages,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: dynamic,
                min_binding_size: None,
            },
            count: None,
        };
        let both = wgpu::ShaderStages::VERTEX_FRAGMENT;
        let frame_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("frame"),
            entries: &[uniform(0, false, both)],
        });
        let draw_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("draw"),
            entries: &[uniform(0, true, both)],
        });
        let material_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("materials"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: both,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: true },
                        view_dimension: wgpu::TextureViewDimension::D2Array,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: both,
                    ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                    count: None,
                },
                uniform(2, false, both),
            ],
        });
        let depth_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("scene depth"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Depth,
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });

        let frame_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("frame"),
            size: size_of::<FrameGpu>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let frame_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("frame"),
            layout: &frame_layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: frame_buffer.as_entire_binding() }],
        });
        let draw_capacity = 1024;
        let (draw_buffer, draw_group) = draw_slots(device, &draw_layout, draw_capacity);
        let material_group = upload_materials(&gpu, &material_layout, materials);

        let common = include_str!("shaders/common.wgsl");
        let module = |name: &str, source: &str| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(name),
                source: wgpu::ShaderSource::Wgsl(format!("{common}\n{source}").into()),
            })
        };
        let sky_module = module("sky", include_str!("shaders/sky.wgsl"));
        let terrain_module = module("terrain", include_str!("shaders/terrain.wgsl"));
        let water_module = module("water", include_str!("shaders/water.wgsl"));
        let objects_module = module("objects", include_str!("shaders/objects.wgsl"));
        let buildings_module = module("buildings", include_str!("shaders/buildings.wgsl"));
        let layout = |name: &str, groups: &[Option<&wgpu::BindGroupLayout>]| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(name),
                bind_group_layouts: groups,
                immediate_size: 0,
            })
        };
        let sky_layout = layout("sky", &[Some(&frame_layout)]);
        let terrain_layout = layout("terrain", &[Some(&frame_layout), Some(&draw_layout), Some(&material_layout)]);
        let water_layout = layout("water", &[Some(&frame_layout), Some(&draw_layout), Some(&depth_layout)]);
        let objects_layout = layout("objects", &[Some(&frame_layout), Some(&draw_layout)]);

        let vertex_attributes = wgpu::vertex_attr_array![
            0 => Float32x3, 1 => Snorm16x2, 2 => Snorm16x2, 3 => Uint32
        ];
        let terrain_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<Vertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &vertex_attributes,
        })];
        let water_attributes = wgpu::vertex_attr_array![0 => Float32x3];
        let water_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<Vertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &water_attributes,
        })];
        let model_attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32];
        let instance_attributes =
            wgpu::vertex_attr_array![3 => Float32x3, 4 => Float32, 5 => Float32, 6 => Unorm8x4, 7 => Float32x2];
        let kind_attributes = wgpu::vertex_attr_array![8 => Float32x2];
        let objects_buffers = [
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<ModelVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &model_attributes,
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<DrawnInstance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &instance_attributes,
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<[f32; 2]>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &kind_attributes,
            }),
        ];
        let building_attributes = wgpu::vertex_attr_array![0 => Float32x4];
        let building_instance_attributes = wgpu::vertex_attr_array![
            1 => Float32x4, 2 => Float32x4, 3 => Float32x4, 4 => Float32x4, 5 => Float32x4, 6 => Float32x4, 7 => Unorm8x4
        ];
        let buildings_buffers = [
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<BuildingVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &building_attributes,
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: size_of::<BuildingInstance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &building_instance_attributes,
            }),
        ];
        let light_attributes = wgpu::vertex_attr_array![0 => Float32x4, 1 => Float32x4, 2 => Float32x4];
        let lights_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: size_of::<LightInstance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &light_attributes,
        })];
        let depth = |write: bool, compare: wgpu::CompareFunction| {
            Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(write),
                depth_compare: Some(compare),
                stencil: wgpu::StencilState::default(),
                bias: wgpu::DepthBiasState::default(),
            })
        };
        let pipeline = |name: &str,
                        layout: &wgpu::PipelineLayout,
                        module: &wgpu::ShaderModule,
                        entry: (&str, &str),
                        buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
                        depth_stencil: Option<wgpu::DepthStencilState>,
                        blend: Option<wgpu::BlendState>,
                        constants: &[(&str, f64)]| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(name),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module,
                    entry_point: Some(entry.0),
                    compilation_options: wgpu::PipelineCompilationOptions::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    front_face: wgpu::FrontFace::Ccw,
                    cull_mode: None,
                    ..wgpu::PrimitiveState::default()
                },
                depth_stencil,
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module,
                    entry_point: Some(entry.1),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants,
                        ..wgpu::PipelineCompilationOptions::default()
                    },
                    targets: &[Some(wgpu::ColorTargetState { format, blend, write_mask: wgpu::ColorWrites::ALL })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        // The sky is drawn first, behind everything: it neither tests nor writes depth.
        let sky_depth = depth(false, wgpu::CompareFunction::Always);
        let sky = pipeline("sky", &sky_layout, &sky_module, ("vs_sky", "fs_sky"), &[], sky_depth, None, &[]);
        // Terrain is not culled: caves and overhangs are seen from both sides
        // and the mesh's winding is only consistent within a region.
        let terrain = pipeline(
            "terrain",
            &terrain_layout,
            &terrain_module,
            ("vs_terrain", "fs_terrain"),
            &terrain_buffers,
            depth(true, wgpu::CompareFunction::GreaterEqual),
            None,
            &[("FADES", 0.0)],
        );
        let terrain_fading = pipeline(
            "terrain (fading)",
            &terrain_layout,
            &terrain_module,
            ("vs_terrain", "fs_terrain"),
            &terrain_buffers,
            depth(true, wgpu::CompareFunction::GreaterEqual),
            None,
            &[("FADES", 1.0)],
        );
        let water = pipeline(
            "water",
            &water_layout,
            &water_module,
            ("vs_water", "fs_water"),
            &water_buffers,
            depth(false, wgpu::CompareFunction::GreaterEqual),
            Some(wgpu::BlendState::ALPHA_BLENDING),
            &[],
        );
        let objects = pipeline(
            "objects",
            &objects_layout,
            &objects_module,
            ("vs_objects", "fs_objects"),
            &objects_buffers,
            depth(true, wgpu::CompareFunction::GreaterEqual),
            None,
            &[],
        );
        let models = GpuModels::new(device);
        let buildings = pipeline(
            "buildings",
            &objects_layout,
            &buildings_module,
            ("vs_buildings", "fs_buildings"),
            &buildings_buffers,
            depth(true, wgpu::CompareFunction::GreaterEqual),
            None,
            &[],
        );
        // Lights over what is behind them (premultiplied), hidden by what stands in front.
        let lights = pipeline(
            "town lights",
            &objects_layout,
            &buildings_module,
            ("vs_lights", "fs_lights"),
            &lights_buffers,
            depth(false, wgpu::CompareFunction::GreaterEqual),
            Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
            &[],
        );
        let building_models = GpuBuildingModels::new(device);
        let creatures = GpuCreatures::new(device, &frame_layout, format, common);

        let proxies = world
            .planets
            .iter()
            .map(|p| p.made().map(|m| upload_proxy(device, &m.proxy, world.proxy_shown(p.index))))
            .collect();
        let sea_colours = world
            .planets
            .iter()
            .map(|p| {
                let r = p.recipe();
                r.materials.get(r.sea.material as usize).map_or([0.1, 0.3, 0.5], |m| m.color)
            })
            .collect();
        Self {
            format,
            frame_buffer,
            frame_group,
            draw_layout,
            draw_buffer,
            draw_group,
            draw_capacity,
            material_group,
            depth_layout,
            depth_group: None,
            sky,
            terrain,
            terrain_fading,
            water,
            objects,
            models,
            buildings,
            lights,
            building_models,
            creatures,
            building_stream: stream_buffer(device, "buildings", 256 * size_of::<BuildingInstance>()),
            building_capacity: 256,
            light_stream: stream_buffer(device, "town lights", 256 * size_of::<LightInstance>()),
            light_capacity: 256,
            object_stream: stream_buffer(device, "object batches", 1024 * size_of::<DrawnInstance>()),
            object_capacity: 1024,
            object_draws: indirect_draws(device, 64),
            object_draws_capacity: 64,
            indirect: gpu.indirect,
            marker: None,
            beacon: None,
            regions: RegionStore::default(),
            proxies,
            first_layer: materials.first_layer.clone(),
            sea_colours,
            gpu,
        }
    }

    /// Draws the objects with one multi-draw a planet (`true`, where the
    /// device supports it) or one instanced draw per batch (`false`): the
    /// two draw the same pixels. Returns whether indirect draws are now on.
    pub fn set_indirect(&mut self, on: bool) -> bool {
        self.indirect = on && self.gpu.indirect;
        self.indirect
    }

    /// Shows the edit brush's marker (a ring on the ground), or none.
    pub fn set_marker(&mut self, marker: Option<Marker>) {
        self.marker = marker;
    }

    /// Marks a point (planet, planet-local metres) with a cyan ringed dot
    /// ten pixels across at any distance (the client's nearest town, 60 m
    /// over it), or none.
    pub fn set_beacon(&mut self, beacon: Option<(u32, DVec3)>) {
        self.beacon = beacon;
    }

    /// Whether the objects are drawn with indirect multi-draws.
    #[must_use]
    pub fn indirect(&self) -> bool {
        self.indirect
    }

    /// The colour format it draws into.
    #[must_use]
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// The device.
    #[must_use]
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }

    /// Waits until the device has finished every frame submitted.
    pub fn wait_idle(&self) {
        // A lost device shows up as an error on the next frame's readback.
        let _ = self.gpu.device.poll(wgpu::PollType::wait_indefinitely());
    }

    /// Total bytes of region meshes uploaded so far (what streaming sends;
    /// the proxies, uploaded once with the renderer, are not counted).
    #[must_use]
    pub fn uploaded_bytes(&self) -> u64 {
        self.regions.uploaded_bytes
    }

    /// Brings the GPU's meshes up to `world` at time `now`: uploads the
    /// streamed planet's newly shown regions (once they cover the planet;
    /// until then its proxy stands in) and the proxies of planets made
    /// since (shown whole at once: a proxy fading in over a planet that
    /// nothing else covers would show the sky through its ground), starts
    /// fades; returns bytes of regions uploaded.
    pub fn sync(&mut self, world: &World, now: f64) -> u64 {
        let attached = world.attached().filter(|a| a.report.complete);
        let shown: Vec<(u32, Arc<engine::BuiltRegion>)> =
            attached.map(|a| a.streamer.shown_regions().map(|r| (a.planet, r)).collect()).unwrap_or_default();
        for (i, (slot, planet)) in self.proxies.iter_mut().zip(&world.planets).enumerate() {
            let shown = world.proxy_shown(i as u32);
            if slot.is_none() {
                *slot = planet.made().map(|m| upload_proxy(&self.gpu.device, &m.proxy, shown));
            }
            if let Some(proxy) = slot {
                proxy.set_shown(shown, now);
            }
        }
        self.regions.sync(&self.gpu.device, shown.iter().map(|(p, r)| (*p, &r.mesh, r.scatter.as_ref(), r.stamp)), now)
    }

    /// Ends every fade at once (captures draw a settled world, not a moment
    /// of a transition).
    pub fn finish_fades(&mut self) {
        self.regions.regions.retain(|_, r| r.leaving_at.is_none());
        for r in self.regions.regions.values_mut() {
            r.shown_at = f64::NEG_INFINITY;
        }
        for p in self.proxies.iter_mut().flatten() {
            p.changed_at = f64::NEG_INFINITY;
        }
    }

    /// Draws `world` from `camera` into `color` (with `depth` of the same size).
    pub fn render(
        &mut self,
        world: &World,
        camera: &ViewCamera,
        color: &wgpu::TextureView,
        depth: &DepthTarget,
        options: &RenderOptions,
    ) -> FrameStats {
        let now = options.time;
        let (width, height) = depth.size;
        let aspect = width as f32 / height.max(1) as f32;
        // Everything below is in the frame's axes (`frame.rs`).
        let frame = RenderFrame::new(world, camera.pose.position);
        let system_eye = camera.pose.position;
        let camera = &ViewCamera { pose: frame.pose(&camera.pose), ..*camera };
        let eye = camera.pose.position;
        let cull = camera.engine_camera(f64::from(aspect));
        let uploaded_bytes = self.sync(world, now);
        let mut stats =
            FrameStats { uploaded_bytes, resident_regions: self.regions.regions.len(), ..FrameStats::default() };

        // Draw list: (distance, mesh, slot contents, is water).
        let mut draws: Vec<(f64, &GpuMesh, DrawGpu, bool)> = Vec::new();
        for (&(planet, _), region) in &self.regions.regions {
            // Regions of a planet left behind, fading out, are not drawn: the
            // frame holds only the reference planet still.
            if planet != frame.reference {
                continue;
            }
            let origin = frame.positions[planet as usize] + region.origin;
            let fade = region.fade(now);
            for (mesh, water) in [(&region.terrain, false), (&region.blocks, false), (&region.water, true)].into_iter()
            {
                let Some(mesh) = mesh else { continue };
                if !cull.sees(origin, f64::from(mesh.radius)) {
                    continue;
                }
                let slot = self.slot(planet, origin - eye, region.origin, fade, water);
                draws.push((origin.distance(eye), mesh, slot, water));
            }
        }
        for (i, proxy) in self.proxies.iter().enumerate() {
            let Some((proxy, fade)) = proxy.as_ref().and_then(|p| Some((p, p.fade(now)?))) else { continue };
            let (centre, turned) = (frame.positions[i], frame.orientations[i]);
            if !cull.sees(centre, f64::from(proxy.mesh.radius)) {
                continue;
            }
            let slot =
                DrawGpu { rotation: columns(turned), ..self.slot(i as u32, centre - eye, DVec3::ZERO, fade, false) };
            draws.push((centre.distance(eye) - world.planets[i].radius, &proxy.mesh, slot, false));
        }
        // Opaque front to back (early depth rejects more), those fully shown
        // first (their pipeline never discards, so hidden fragments are not
        // shaded); then water back to front.
        let fading = |d: &DrawGpu| d.offset[3] < 1.0;
        draws.sort_by(|a, b| a.3.cmp(&b.3).then(fading(&a.2).cmp(&fading(&b.2))).then(a.0.total_cmp(&b.0)));
        let first_fading = draws.iter().position(|d| d.3 || fading(&d.2)).unwrap_or(draws.len());
        let first_water = draws.iter().position(|d| d.3).unwrap_or(draws.len());
        draws[first_water..].reverse();
        let planet_position = |p: u32| frame.positions[p as usize];
        let (mut stream, mut objects) = gather(&self.regions, planet_position, eye, |c, r| cull.sees(c, r), now);
        if let Some(marker) = self.marker.as_ref().filter(|m| !m.points.is_empty()) {
            let (instances, batch) = marker.ring(planet_position(marker.planet), eye, stream.len() as u32);
            stream.extend(instances);
            objects.push(batch);
        }

        let (building_stream, building_batches) =
            crate::buildings::gather(&self.regions, planet_position, eye, |c, r| cull.sees(c, r), now);
        let mut light_stream = Vec::new();
        if options.lights {
            // Towns of the planets made so far (the rest light up once made).
            let towns = world.planets.iter().enumerate().filter_map(|(i, p)| {
                let (centre, turned) = (frame.positions[i], frame.orientations[i]);
                let sites = &p.made()?.terrain.settlements.data.sites;
                Some((
                    centre,
                    f64::from(p.recipe().radius_m),
                    frame.to_sun(centre).as_vec3(),
                    sites.iter().map(|s| ((turned * s.centre.as_dvec3()).as_vec3(), s.height_m)).collect(),
                ))
            });
            light_stream = crate::buildings::lights(towns, eye, |c, r| cull.sees(c, r));
            if let Some((planet, at)) = self.beacon.filter(|b| (b.0 as usize) < world.planets.len()) {
                let i = planet as usize;
                let p = (frame.positions[i] + frame.orientations[i] * at - eye).as_vec3();
                light_stream.push(LightInstance {
                    position: [p.x, p.y, p.z, 10.0],
                    color: [0.25, 0.85, 1.0, 1.0],
                    night: [0.0; 4],
                });
            }
        }
        // The lights' slot: planet 0's (they carry their positions; the planet index is unused).
        let slot_count = draws.len() + objects.len() + building_batches.len() + 1;
        if slot_count > self.draw_capacity {
            self.draw_capacity = slot_count.next_power_of_two();
            (self.draw_buffer, self.draw_group) = draw_slots(&self.gpu.device, &self.draw_layout, self.draw_capacity);
        }
        // A batch's instances are camera-relative and carry their fades and glides.
        let object_slot = |b: &crate::batch::Batch| self.slot(b.planet, DVec3::ZERO, DVec3::ZERO, 1.0, false);
        let building_slot = |b: &BuildingBatch| self.slot(b.planet, DVec3::ZERO, DVec3::ZERO, 1.0, false);
        let slots: Vec<DrawGpu> = draws
            .iter()
            .map(|d| d.2)
            .chain(objects.iter().map(object_slot))
            .chain(building_batches.iter().map(building_slot))
            .chain(std::iter::once(self.slot(0, DVec3::ZERO, DVec3::ZERO, 1.0, false)))
            .collect();
        if building_stream.len() > self.building_capacity {
            self.building_capacity = building_stream.len().next_power_of_two();
            self.building_stream =
                stream_buffer(&self.gpu.device, "buildings", self.building_capacity * size_of::<BuildingInstance>());
        }
        if light_stream.len() > self.light_capacity {
            self.light_capacity = light_stream.len().next_power_of_two();
            self.light_stream =
                stream_buffer(&self.gpu.device, "town lights", self.light_capacity * size_of::<LightInstance>());
        }
        if stream.len() > self.object_capacity {
            self.object_capacity = stream.len().next_power_of_two();
            self.object_stream =
                stream_buffer(&self.gpu.device, "object batches", self.object_capacity * size_of::<DrawnInstance>());
        }
        let queue = &self.gpu.queue;
        queue.write_buffer(&self.draw_buffer, 0, bytemuck::cast_slice(&slots));
        if !stream.is_empty() {
            queue.write_buffer(&self.object_stream, 0, bytemuck::cast_slice(&stream));
        }
        if !building_stream.is_empty() {
            queue.write_buffer(&self.building_stream, 0, bytemuck::cast_slice(&building_stream));
        }
        if !light_stream.is_empty() {
            queue.write_buffer(&self.light_stream, 0, bytemuck::cast_slice(&light_stream));
        }
        if self.indirect && !objects.is_empty() {
            if objects.len() > self.object_draws_capacity {
                self.object_draws_capacity = objects.len().next_power_of_two();
                self.object_draws = indirect_draws(&self.gpu.device, self.object_draws_capacity);
            }
            let args: Vec<u8> = objects
                .iter()
                .flat_map(|o| {
                    let model = self.models.levels[o.model * LEVELS + o.level];
                    wgpu::util::DrawIndexedIndirectArgs {
                        index_count: model.count,
                        instance_count: o.count,
                        first_index: model.first,
                        base_vertex: 0,
                        first_instance: o.first,
                    }
                    .as_bytes()
                    .to_vec()
                })
                .collect();
            queue.write_buffer(&self.object_draws, 0, &args);
        }
        self.creatures.upload(&self.gpu, world, &frame, eye, |c, r| cull.sees(c, r));
        let frame = self.frame_uniforms(world, &frame, camera, system_eye, aspect, (width, height), options);
        queue.write_buffer(&self.frame_buffer, 0, bytemuck::bytes_of(&frame));

        if self.depth_group.as_ref().is_none_or(|(view, _)| *view != depth.view) {
            let group = self.gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("scene depth"),
                layout: &self.depth_layout,
                entries: &[wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&depth.view),
                }],
            });
            self.depth_group = Some((depth.view.clone(), group));
        }
        let depth_group = self.depth_group.as_ref().map(|(_, g)| g).expect("made above");
        let mut encoder =
            self.gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("frame") });
        {
            let [r, g, b, a] = options.clear;
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("opaque"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: color,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color { r, g, b, a }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth.view,
                    depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(0.0), store: wgpu::StoreOp::Store }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.frame_group, &[]);
            if options.sky {
                pass.set_pipeline(&self.sky);
                pass.draw(0..3, 0..1);
                stats.draws += 1;
            }
            pass.set_pipeline(&self.terrain);
            pass.set_bind_group(2, &self.material_group, &[]);
            for (i, (_, mesh, _, _)) in draws[..first_water].iter().enumerate() {
                if i == first_fading {
                    pass.set_pipeline(&self.terrain_fading);
                }
                pass.set_bind_group(1, &self.draw_group, &[(i as u64 * DRAW_SLOT) as u32]);
                pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                pass.set_index_buffer(mesh.indices.slice(..), mesh.format);
                pass.draw_indexed(0..mesh.count, 0, 0..1);
                stats.draws += 1;
                stats.triangles += u64::from(mesh.count / 3);
            }
            if !objects.is_empty() {
                pass.set_pipeline(&self.objects);
                pass.set_vertex_buffer(0, self.models.vertices.slice(..));
                pass.set_index_buffer(self.models.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.set_vertex_buffer(1, self.object_stream.slice(..));
                pass.set_vertex_buffer(2, self.models.kinds.slice(..));
                let mut i = 0;
                while i < objects.len() {
                    // A planet's batches are consecutive (gather sorts by planet first).
                    let end = i + objects[i..].iter().take_while(|o| o.planet == objects[i].planet).count();
                    let slot = (draws.len() + i) as u64 * DRAW_SLOT;
                    pass.set_bind_group(1, &self.draw_group, &[slot as u32]);
                    if self.indirect {
                        let stride = size_of::<wgpu::util::DrawIndexedIndirectArgs>() as u64;
                        pass.multi_draw_indexed_indirect(&self.object_draws, i as u64 * stride, (end - i) as u32);
                        stats.draws += 1;
                        stats.object_draws += 1;
                    }
                    for o in &objects[i..end] {
                        let model = self.models.levels[o.model * LEVELS + o.level];
                        if !self.indirect {
                            pass.draw_indexed(model.first..model.first + model.count, 0, o.first..o.first + o.count);
                            stats.draws += 1;
                            stats.object_draws += 1;
                        }
                        stats.object_batches += 1;
                        stats.objects += u64::from(o.count);
                        stats.triangles += u64::from(model.count / 3) * u64::from(o.count);
                    }
                    i = end;
                }
            }
            self.creatures.draw(&mut pass, &mut stats);
            if !building_batches.is_empty() {
                pass.set_pipeline(&self.buildings);
                pass.set_vertex_buffer(0, self.building_models.vertices.slice(..));
                pass.set_index_buffer(self.building_models.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.set_vertex_buffer(1, self.building_stream.slice(..));
                for (i, b) in building_batches.iter().enumerate() {
                    let slot = (draws.len() + objects.len() + i) as u64 * DRAW_SLOT;
                    pass.set_bind_group(1, &self.draw_group, &[slot as u32]);
                    let model = self.building_models.kinds[b.kind];
                    pass.draw_indexed(model.first..model.first + model.count, 0, b.first..b.first + b.count);
                    stats.draws += 1;
                    stats.buildings += u64::from(b.count);
                    stats.triangles += u64::from(model.count / 3) * u64::from(b.count);
                }
            }
            if !light_stream.is_empty() {
                pass.set_pipeline(&self.lights);
                let slot = (draws.len() + objects.len() + building_batches.len()) as u64 * DRAW_SLOT;
                pass.set_bind_group(1, &self.draw_group, &[slot as u32]);
                pass.set_vertex_buffer(0, self.light_stream.slice(..));
                pass.draw(0..6, 0..light_stream.len() as u32);
                stats.draws += 1;
                stats.lights = light_stream.len() as u32;
            }
        }
        if first_water < draws.len() {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("water"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: color,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                })],
                // Read-only depth: tested against, and sampled for the water's thickness.
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth.view,
                    depth_ops: None,
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.frame_group, &[]);
            pass.set_pipeline(&self.water);
            pass.set_bind_group(2, depth_group, &[]);
            for (i, (_, mesh, _, _)) in draws.iter().enumerate().skip(first_water) {
                pass.set_bind_group(1, &self.draw_group, &[(i as u64 * DRAW_SLOT) as u32]);
                pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                pass.set_index_buffer(mesh.indices.slice(..), mesh.format);
                pass.draw_indexed(0..mesh.count, 0, 0..1);
                stats.draws += 1;
                stats.triangles += u64::from(mesh.count / 3);
            }
        }
        queue.submit([encoder.finish()]);
        stats
    }

    /// A draw's uniform slot.
    /// A draw's uniform slot, unturned (proxies of other planets set their `rotation`).
    fn slot(&self, planet: u32, offset: DVec3, local_origin: DVec3, fade: f32, water: bool) -> DrawGpu {
        let first = self.first_layer.get(planet as usize).copied().unwrap_or(0);
        let sea = self.sea_colours.get(planet as usize).copied().unwrap_or([0.1, 0.3, 0.5]);
        let info = if water { [planet as f32, sea[0], sea[1], sea[2]] } else { [planet as f32, 0.0, 0.0, 0.0] };
        let o = offset.as_vec3();
        let t = local_origin.as_vec3();
        DrawGpu {
            offset: [o.x, o.y, o.z, fade],
            texture_origin: [t.x, t.y, t.z, first as f32],
            info,
            rotation: columns(DQuat::IDENTITY),
            pad: [0.0; 40],
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn frame_uniforms(
        &self,
        world: &World,
        frame: &RenderFrame,
        camera: &ViewCamera,
        system_eye: DVec3,
        aspect: f32,
        size: (u32, u32),
        options: &RenderOptions,
    ) -> FrameGpu {
        let eye = camera.pose.position;
        let view_proj = camera.view_proj(aspect);
        let sun = &world.system.system.sun;
        let to_sun = frame.to_sun(eye);
        let sun_distance = eye.distance(frame.sun);
        let sun_cos = libm::cos(libm::asin((sun.radius_m / sun_distance.max(sun.radius_m * 1.01)).min(1.0)));
        let mut planets = [PlanetGpu::default(); MAX_PLANETS];
        // Planet slots are indexed by system index; systems larger than the
        // table keep only their first planets' atmospheres.
        for (i, p) in world.planets.iter().enumerate().take(MAX_PLANETS) {
            let r = p.recipe();
            let c = (frame.positions[i] - eye).as_vec3();
            let s = frame.to_sun(frame.positions[i]).as_vec3();
            let sea = if r.sea.enabled { r.radius_m + r.sea.level_m } else { 0.0 };
            let a = &r.atmosphere;
            planets[i] = PlanetGpu {
                centre: [c.x, c.y, c.z, r.radius_m],
                atmosphere: [a.color[0], a.color[1], a.color[2], a.density],
                shell: [a.height_m, sea, 0.0, 0.0],
                sun: [s.x, s.y, s.z, 0.0],
            };
        }
        // Texture detail: the tile scale doubles every doubling of altitude
        // above 16 m, blended continuously between the two nearest levels.
        let signed_altitude = world.altitude(system_eye);
        let altitude = signed_altitude.max(1.0);
        let level = libm::log2(altitude / 16.0).clamp(0.0, 10.0);
        let (near, distance) = world.nearest(system_eye);
        let exposure = crate::exposure::exposure(
            (system_eye - near.position) / distance.max(1.0),
            (-near.position).normalize_or(DVec3::Y),
            signed_altitude,
            f64::from(near.recipe().atmosphere.height_m),
        );
        let to_sun = to_sun.as_vec3();
        FrameGpu {
            view_proj: view_proj.to_cols_array_2d(),
            inv_view_proj: view_proj.inverse().to_cols_array_2d(),
            sun: [to_sun.x, to_sun.y, to_sun.z, sun_cos as f32],
            sun_color: [sun.color[0] * 2.2, sun.color[1] * 2.2, sun.color[2] * 2.2, options.time as f32],
            detail: [
                libm::floor(level) as f32,
                (level - libm::floor(level)) as f32,
                f32::from(u8::from(options.sky)),
                exposure,
            ],
            viewport: [size.0 as f32, size.1 as f32, NEAR_M, world.planets.len().min(MAX_PLANETS) as f32],
            planets,
            sky_rotation: columns(frame.to_system()),
        }
    }
}

/// The edit brush's marker: small bright yellow stones on the ground around
/// the brush's rim (`engine::tool::Ground::rim`).
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// The planet.
    pub planet: u32,
    /// The points, planet-local metres.
    pub points: Vec<DVec3>,
    /// Each crystal's size, metres.
    pub size_m: f32,
}

impl Marker {
    /// The crystals' instances, seen from `eye` (system space) on a planet
    /// centred at `centre`, as one batch from instance `first` of the frame's stream.
    fn ring(&self, centre: DVec3, eye: DVec3, first: u32) -> (Vec<DrawnInstance>, crate::batch::Batch) {
        let instances: Vec<DrawnInstance> = self
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| DrawnInstance {
                base: (centre + *p - eye).as_vec3().to_array(),
                yaw: i as f32,
                size: self.size_m,
                color: [255, 220, 0, 255],
                glide_m: 0.0,
                fade: 1.0,
            })
            .collect();
        let stone = planet::scatter::kind_index(planet::recipe::ScatterKind::Rock) * planet::scatter::VARIANTS as usize;
        let count = instances.len() as u32;
        (instances, crate::batch::Batch { planet: self.planet, model: stone, level: 0, first, count })
    }
}

/// A vertex buffer of `bytes` the frame writes.
fn stream_buffer(device: &wgpu::Device, label: &str, bytes: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size: bytes as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

/// A buffer for `capacity` indirect indexed draws.
fn indirect_draws(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("object draws"),
        size: (capacity * size_of::<wgpu::util::DrawIndexedIndirectArgs>()) as u64,
        usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn draw_slots(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    capacity: usize,
) -> (wgpu::Buffer, wgpu::BindGroup) {
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("draws"),
        size: capacity as u64 * DRAW_SLOT,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("draws"),
        layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &buffer,
                offset: 0,
                size: wgpu::BufferSize::new(DRAW_SLOT),
            }),
        }],
    });
    (buffer, group)
}

fn upload_materials(gpu: &Gpu, layout: &wgpu::BindGroupLayout, set: &MaterialSet) -> wgpu::BindGroup {
    let device = &gpu.device;
    let layers = set.layers.len().max(1) as u32;
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("materials"),
        size: wgpu::Extent3d { width: TEXTURE_SIZE, height: TEXTURE_SIZE, depth_or_array_layers: layers },
        mip_level_count: MIP_LEVELS,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::Rgba8UnormSrgb,
        usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    for (layer, levels) in set.layers.iter().enumerate() {
        for (mip, texels) in levels.iter().enumerate() {
            let size = (TEXTURE_SIZE >> mip).max(1);
            gpu.queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &texture,
                    mip_level: mip as u32,
                    origin: wgpu::Origin3d { x: 0, y: 0, z: layer as u32 },
                    aspect: wgpu::TextureAspect::All,
                },
                texels,
                wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(4 * size), rows_per_image: Some(size) },
                wgpu::Extent3d { width: size, height: size, depth_or_array_layers: 1 },
            );
        }
    }
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(wgpu::TextureViewDimension::D2Array),
        ..wgpu::TextureViewDescriptor::default()
    });
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("materials"),
        address_mode_u: wgpu::AddressMode::Repeat,
        address_mode_v: wgpu::AddressMode::Repeat,
        address_mode_w: wgpu::AddressMode::Repeat,
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        mipmap_filter: wgpu::MipmapFilterMode::Linear,
        // Anisotropic filtering on a GPU; not on a CPU device: lavapipe's
        // anisotropic path loops over the whole footprint, and triplanar
        // texturing seen at grazing angles near the ground made single
        // frames take minutes.
        anisotropy_clamp: if gpu.adapter.get_info().device_type == wgpu::DeviceType::Cpu { 1 } else { 8 },
        ..wgpu::SamplerDescriptor::default()
    });
    // Per layer: parameters, then mean colour (`MaterialGpu` in terrain.wgsl).
    let mut params = vec![[0f32; 4]; 512];
    for (i, (p, m)) in set.params.iter().zip(&set.means).take(256).enumerate() {
        params[2 * i] = *p;
        params[2 * i + 1] = *m;
    }
    let params = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("material parameters"),
        contents: bytemuck::cast_slice(&params),
        usage: wgpu::BufferUsages::UNIFORM,
    });
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("materials"),
        layout,
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: wgpu::BindingResource::TextureView(&view) },
            wgpu::BindGroupEntry { binding: 1, resource: wgpu::BindingResource::Sampler(&sampler) },
            wgpu::BindGroupEntry { binding: 2, resource: params.as_entire_binding() },
        ],
    })
}

/// A made planet's proxy on the GPU, shown whole or hidden (no fade either
/// way: it was not drawn before).
fn upload_proxy(device: &wgpu::Device, proxy: &ProxyMesh, shown: bool) -> GpuProxy {
    // Region uploads are what `uploaded_bytes` counts; a proxy's are not.
    let mut uploaded = 0;
    let mesh = GpuMesh::upload(device, &proxy.part, true, "proxy", &mut uploaded).expect("proxies have triangles");
    GpuProxy { mesh, shown, changed_at: f64::NEG_INFINITY }
}
