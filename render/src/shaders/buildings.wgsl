// Buildings: one instanced draw per planet and type a frame (buildings.rs).
// Each vertex is a shape coordinate (a, b, t, rise) of its type's model;
// the instance bends it by its curve (the sum PlacedBuilding::point makes
// on the CPU for the collider: keep the two alike) and places it on its
// base, up along the planet's radius. Faces take their normal from the
// screen-space derivatives of their position, right however a building is
// stretched and bent. Walls get windows from a facade pattern: a row per
// floor, a column every few metres; some are lit at night.
//
// Town lights: a square a few pixels across over each settlement, added
// to what is behind it (buildings.rs, `lights`).

struct Draw {
    // unused here: each instance carries its position and fade.
    offset: vec4<f32>,
    texture_origin: vec4<f32>,
    // x: planet index.
    info: vec4<f32>,
};

@group(1) @binding(0) var<uniform> draw: Draw;

struct BuildingIn {
    @location(0) shape: vec4<f32>,
    @location(1) base: vec4<f32>,
    @location(2) up: vec4<f32>,
    @location(3) across: vec4<f32>,
    @location(4) curve: vec4<f32>,
    @location(5) wave: vec4<f32>,
    @location(6) misc: vec4<f32>,
    @location(7) color: vec4<f32>,
};

struct BuildingOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) relative: vec3<f32>,
    // Metres across the width and depth (unbent) and up from the base.
    @location(1) local: vec3<f32>,
    @location(2) @interpolate(flat) up: vec3<f32>,
    @location(3) @interpolate(flat) across: vec3<f32>,
    @location(4) @interpolate(flat) albedo: vec3<f32>,
    // x: floor height; y: region fade; z: landmark; w: window hash.
    @location(5) @interpolate(flat) misc: vec4<f32>,
    // x: rise (roof); y: the wall's top, m.
    @location(6) roof: vec2<f32>,
};

const PI: f32 = 3.14159265;

// BuildingCurve::offset: the sideways offset at height share t.
fn bend(curve: vec4<f32>, wave: vec4<f32>, t_in: f32) -> vec2<f32> {
    let t = clamp(t_in, 0.0, 1.0);
    let rise = pow(t, max(curve.w, 0.05));
    let arch = sin(PI * t);
    let c = curve.z * (rise + (arch - rise) * wave.w);
    let w = wave.x * t * sin(2.0 * PI * wave.y * t + wave.z);
    return curve.xy * (c + w);
}

@vertex
fn vs_buildings(in: BuildingIn) -> BuildingOut {
    let width = in.base.w;
    let depth = in.up.w;
    let height = in.across.w;
    let up = in.up.xyz;
    let across = in.across.xyz;
    let along = cross(up, across);
    let offset = bend(in.curve, in.wave, in.shape.z);
    let x = in.shape.x * width * 0.5 + offset.x;
    let y = in.shape.y * depth * 0.5 + offset.y;
    let z = in.shape.z * height + in.shape.w * width * 0.5;
    let p = in.base.xyz + across * x + along * y + up * z;
    var out: BuildingOut;
    out.clip = frame.view_proj * vec4<f32>(p, 1.0);
    out.relative = p;
    out.local = vec3<f32>(in.shape.x * width * 0.5, in.shape.y * depth * 0.5, z);
    out.up = up;
    out.across = across;
    out.albedo = in.color.rgb;
    out.misc = in.misc;
    out.roof = vec2<f32>(in.shape.w, height);
    return out;
}

fn hash2(p: vec2<f32>) -> f32 {
    return fract(sin(dot(p, vec2<f32>(127.1, 311.7))) * 43758.5453);
}

@fragment
fn fs_buildings(in: BuildingOut) -> @location(0) vec4<f32> {
    let fade = in.misc.y;
    let dither = bayer(in.clip.xy);
    if (fade >= 0.0 && dither >= fade) || (fade < 0.0 && dither < -fade) {
        discard;
    }
    let planet = frame.planets[u32(draw.info.x)];
    var n = normalize(cross(dpdx(in.relative), dpdy(in.relative)));
    n = n * sign(dot(n, -in.relative) + 1e-6);
    let up = in.up;
    let along = cross(up, in.across);
    let sun = planet.sun.xyz;
    let daylight = daylight_at(up, sun);
    let night = 1.0 - smoothstep(-0.1, 0.12, dot(up, sun));
    var albedo = in.albedo;
    var emit = vec3<f32>(0.0);
    let wall = abs(dot(n, up)) < 0.5 && in.roof.x < 0.001;
    if !wall {
        // Roofs: darker tiles (a landmark's vault a weathered copper).
        albedo = select(albedo * 0.55, vec3<f32>(0.22, 0.42, 0.36), in.misc.z > 0.5);
    } else {
        let floor_h = max(in.misc.x, 2.0);
        // Along the wall: the unbent coordinate its face runs along.
        let u = select(in.local.x, in.local.y, abs(dot(n, in.across)) > abs(dot(n, along)));
        let storey = in.local.z / floor_h;
        let column = u / 3.1;
        let in_row = fract(storey) > 0.32 && fract(storey) < 0.78;
        let in_column = abs(fract(column) - 0.5) < 0.24;
        let below_roof = in.local.z < in.roof.y - 0.6 && in.local.z > 0.9;
        if in_row && in_column && below_roof {
            // Glass: dark, with a little sky in it by day.
            albedo = vec3<f32>(0.04, 0.05, 0.07);
            let cell = vec2<f32>(floor(storey), floor(column) + in.misc.w * 97.0);
            if hash2(cell) < 0.55 {
                // A light of its own: the night exposure does not lift
                // it, so it keeps its warm colour.
                emit = vec3<f32>(1.0, 0.66, 0.32) * 1.6 * night / frame.detail.w;
            }
            emit += planet.atmosphere.rgb * 0.05 * daylight;
        }
    }
    let face = n;
    let direct = max(dot(face, sun), 0.0) * smoothstep(-0.05, 0.05, dot(up, sun));
    let sky = sky_light(planet, daylight);
    let ambient = sky * (0.6 + 0.4 * dot(face, up));
    var c = albedo * (frame.sun_color.rgb * direct + ambient) + emit;
    let distance = length(in.relative);
    let s = atmosphere(planet, in.relative / distance, distance, GROUND_HAZE);
    c = c * s.transmittance + s.inscatter;
    return vec4<f32>(tonemap(c), 1.0);
}

struct LightIn {
    @location(0) position: vec4<f32>,
    @location(1) color: vec4<f32>,
    @location(2) night: vec4<f32>,
};

struct LightOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) @interpolate(flat) color: vec4<f32>,
    @location(1) corner: vec2<f32>,
    @location(2) @interpolate(flat) night: f32,
};

@vertex
fn vs_lights(in: LightIn, @builtin(vertex_index) vertex: u32) -> LightOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let corner = corners[vertex];
    var clip = frame.view_proj * vec4<f32>(in.position.xyz, 1.0);
    // A fixed size in pixels, whatever the distance.
    clip = vec4<f32>(clip.xy + corner * in.position.w / frame.viewport.xy * clip.w, clip.zw);
    var out: LightOut;
    out.clip = clip;
    out.color = in.color;
    out.corner = corner;
    out.night = in.night.x;
    return out;
}

// Premultiplied alpha: at night a soft glow that mostly adds; by day a
// bright core in a dark ring, which shows on pale ground too.
@fragment
fn fs_lights(in: LightOut) -> @location(0) vec4<f32> {
    let r = length(in.corner);
    let glow = max(1.0 - r * r, 0.0);
    let core = 1.0 - smoothstep(0.35, 0.5, r);
    let ring = smoothstep(0.4, 0.55, r) * (1.0 - smoothstep(0.8, 1.0, r));
    let strength = in.color.a;
    let night_rgb = in.color.rgb * glow * glow * 2.0;
    let day_rgb = in.color.rgb * core;
    let rgb = mix(day_rgb, night_rgb, in.night) * strength;
    let alpha = mix(max(core, ring * 0.85), glow * glow * 0.3, in.night) * strength;
    return vec4<f32>(tonemap(rgb), alpha);
}
