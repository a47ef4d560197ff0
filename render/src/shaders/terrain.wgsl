// Terrain, resource blocks and proxies: triplanar texturing projected across
// the planet, two materials per vertex blended through their height maps,
// textures at two scales swapped continuously with altitude, the smooth
// normal for texturing and the face normal for lighting, haze from the
// atmosphere, and a dithered fade-in. Each vertex's sky light (how much of
// the open sky reaches it: none deep in a cave) dims the sun and the sky.

struct Draw {
    // xyz: mesh origin relative to the camera, m; w: fade (0..1 fading in,
    // -1..0 fading out, 1 shown).
    offset: vec4<f32>,
    // xyz: mesh origin in planet-local space (texture coordinates), m; w: first material layer.
    texture_origin: vec4<f32>,
    // x: planet index.
    info: vec4<f32>,
    // Planet-local to frame axes (identity but for other planets' proxies).
    rotation: mat3x3<f32>,
};

struct MaterialGpu {
    // x: texture tile size, m; y: roughness; z: emission; w: unused.
    params: vec4<f32>,
    // rgb: the layer's mean colour (linear).
    mean: vec4<f32>,
};

// The pipeline for meshes that are fading has this on. Without it the shader
// never discards, so the device can reject hidden fragments before shading.
override FADES: bool = true;

@group(1) @binding(0) var<uniform> draw: Draw;
@group(2) @binding(0) var material_textures: texture_2d_array<f32>;
@group(2) @binding(1) var material_sampler: sampler;
@group(2) @binding(2) var<uniform> materials: array<MaterialGpu, 256>;

struct VsIn {
    @location(0) position: vec3<f32>,
    @location(1) smooth_normal: vec2<f32>,
    @location(2) face_normal: vec2<f32>,
    @location(3) packed: u32,
};

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) relative: vec3<f32>,
    @location(1) planet_local: vec3<f32>,
    @location(2) smooth_normal: vec3<f32>,
    @location(3) @interpolate(flat) face_normal: vec3<f32>,
    @location(4) @interpolate(flat) materials: vec2<u32>,
    @location(5) blend: f32,
    // The vertex's materials' mean colour, interpolated smoothly across the
    // triangle (the material ids themselves cannot be).
    @location(6) mean_albedo: vec3<f32>,
    // Sky light, 0 (deep in a cave) to 1 (open ground).
    @location(7) sky: f32,
};

// The share of the sky's light a cave's deepest walls still get: the light
// that finds its way in, enough for an eye adapted to the dark.
const CAVE_AMBIENT: f32 = 0.04;

fn octahedral_decode(e: vec2<f32>) -> vec3<f32> {
    let z = 1.0 - abs(e.x) - abs(e.y);
    let t = max(-z, 0.0);
    let x = e.x + select(t, -t, e.x >= 0.0);
    let y = e.y + select(t, -t, e.y >= 0.0);
    return normalize(vec3<f32>(x, y, z));
}

@vertex
fn vs_terrain(in: VsIn) -> VsOut {
    var out: VsOut;
    let relative = draw.offset.xyz + draw.rotation * in.position;
    out.clip = frame.view_proj * vec4<f32>(relative, 1.0);
    out.relative = relative;
    out.planet_local = draw.texture_origin.xyz + in.position;
    // The smooth normal weighs the triplanar projection of planet-local
    // positions, so it stays in planet-local axes.
    out.smooth_normal = octahedral_decode(in.smooth_normal);
    out.face_normal = draw.rotation * octahedral_decode(in.face_normal);
    let base = u32(draw.texture_origin.w);
    out.materials = vec2<u32>(base + (in.packed & 0xffu), base + ((in.packed >> 8u) & 0xffu));
    out.blend = f32((in.packed >> 16u) & 0xffu) / 255.0;
    out.sky = f32(in.packed >> 24u) / 255.0;
    out.mean_albedo = mix(mean_colour(out.materials.x), mean_colour(out.materials.y), out.blend);
    return out;
}

// A layer's mean colour (its last mip level, worked out on the CPU).
fn mean_colour(layer: u32) -> vec3<f32> {
    return materials[layer].mean.rgb;
}

fn triplanar(layer: u32, p: vec3<f32>, w: vec3<f32>, scale: f32) -> vec4<f32> {
    let q = p / scale;
    let l = i32(layer);
    return textureSample(material_textures, material_sampler, q.yz, l) * w.x
        + textureSample(material_textures, material_sampler, q.zx, l) * w.y
        + textureSample(material_textures, material_sampler, q.xy, l) * w.z;
}

// A material at the two detail scales of this altitude, blended continuously.
fn material(layer: u32, p: vec3<f32>, w: vec3<f32>) -> vec4<f32> {
    let tile = materials[layer].params.x * exp2(frame.detail.x);
    let near = triplanar(layer, p, w, tile);
    let far = triplanar(layer, p, w, tile * 2.0);
    return mix(near, far, frame.detail.y);
}

@fragment
fn fs_terrain(in: VsOut) -> @location(0) vec4<f32> {
    // Lighting uses the triangle's own normal, from the screen-space
    // derivatives of its position (taken first: derivatives need uniform
    // control flow), on the side of the vertex's face normal. A flat face
    // normal is the first vertex's, so the two triangles of a quad across a
    // sharp rim were lit as two planes: a row of teeth a cell wide.
    let geometric = normalize(cross(dpdx(in.relative), dpdy(in.relative)));
    if FADES {
        let fade = draw.offset.w;
        let threshold = bayer(in.clip.xy);
        if (fade >= 0.0 && threshold >= fade) || (fade < 0.0 && threshold < -fade) {
            discard;
        }
    }
    let planet = frame.planets[u32(draw.info.x)];
    let n = normalize(in.smooth_normal);
    var w = pow(abs(n), vec3<f32>(4.0));
    w = w / (w.x + w.y + w.z);
    let a = material(in.materials.x, in.planet_local, w);
    let b = material(in.materials.y, in.planet_local, w);
    // Height blend: the higher texel of the two wins near the blend's middle.
    let ha = a.a + (1.0 - in.blend);
    let hb = b.a + in.blend;
    let top = max(ha, hb) - 0.25;
    let wa = max(ha - top, 0.0);
    let wb = max(hb - top, 0.0);
    let detail = (a.rgb * wa + b.rgb * wb) / max(wa + wb, 1e-4);
    // Materials are flat per triangle, so where neighbouring vertices carry
    // different ones the texture would change along the triangle's edge. The
    // colour comes from the smoothly interpolated means instead; the flat
    // materials only add their detail (texel over mean).
    let flat_mean = (mean_colour(in.materials.x) * wa + mean_colour(in.materials.y) * wb) / max(wa + wb, 1e-4);
    let albedo = in.mean_albedo * detail / max(flat_mean, vec3<f32>(0.01));
    let emission = mix(materials[in.materials.x].params.z, materials[in.materials.y].params.z, wb / max(wa + wb, 1e-4));

    let up = normalize(in.relative - planet.centre.xyz);
    let face = geometric * sign(dot(geometric, in.face_normal) + 1e-6);
    let sun = planet.sun.xyz;
    // No shadows are cast, so the sun reaches under ground only as the
    // vertex's sky light lets it: squared, it leaves a cave before the sky does.
    let open = clamp(in.sky, 0.0, 1.0);
    let direct = max(dot(face, sun), 0.0) * smoothstep(-0.05, 0.05, dot(up, sun)) * open * open;
    let daylight = daylight_at(up, sun);
    let sky = sky_light(planet, daylight);
    let ambient = sky * (0.55 + 0.45 * dot(face, up)) * mix(CAVE_AMBIENT, 1.0, open);
    var c = albedo * (frame.sun_color.rgb * direct + ambient) + albedo * emission;

    let distance = length(in.relative);
    let s = atmosphere(planet, in.relative / distance, distance, GROUND_HAZE);
    c = c * s.transmittance + s.inscatter;
    return vec4<f32>(tonemap(c), 1.0);
}
