// The sea: its own surface at sea level, drawn after the terrain with the
// terrain's depth bound as a texture, so the water is tinted by how much of
// it the eye looks through; a Fresnel mix of the sky and the sea colour, and
// the sun's glint.

struct Draw {
    offset: vec4<f32>,
    texture_origin: vec4<f32>,
    // x: planet index; yzw: the sea's colour.
    info: vec4<f32>,
    // Planet-local to frame axes (identity but for other planets' proxies).
    rotation: mat3x3<f32>,
};

@group(1) @binding(0) var<uniform> draw: Draw;
@group(2) @binding(0) var scene_depth: texture_depth_2d;

struct WaterOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) relative: vec3<f32>,
};

@vertex
fn vs_water(@location(0) position: vec3<f32>) -> WaterOut {
    var out: WaterOut;
    out.relative = draw.offset.xyz + draw.rotation * position;
    out.clip = frame.view_proj * vec4<f32>(out.relative, 1.0);
    return out;
}

@fragment
fn fs_water(in: WaterOut) -> @location(0) vec4<f32> {
    let fade = draw.offset.w;
    let threshold = bayer(in.clip.xy);
    if (fade >= 0.0 && threshold >= fade) || (fade < 0.0 && threshold < -fade) {
        discard;
    }
    let planet = frame.planets[u32(draw.info.x)];
    let near = frame.viewport.z;
    let distance = length(in.relative);
    let dir = in.relative / distance;
    // Reversed infinite depth: z_ndc = near / view depth.
    let own = near / max(in.clip.z, 1e-12);
    let behind = textureLoad(scene_depth, vec2<i32>(in.clip.xy), 0);
    var thickness = 1e6;
    if behind > 0.0 {
        thickness = max(near / behind - own, 0.0) * distance / own;
    }
    let up = normalize(in.relative - planet.centre.xyz);
    let sun = planet.sun.xyz;
    let daylight = daylight_at(up, sun);
    let sea = draw.info.yzw;
    let deep = sea * 0.25 * (0.1 + 0.9 * daylight);
    let shallow = sea * (0.2 + 0.8 * daylight) * frame.sun_color.rgb * max(dot(up, sun), 0.1);
    let body = mix(shallow, deep, 1.0 - exp(-thickness / 12.0));
    let cos_view = max(dot(-dir, up), 0.0);
    let fresnel = 0.02 + 0.98 * pow(1.0 - cos_view, 5.0);
    let sky = planet.atmosphere.rgb * (0.2 + 0.6 * planet.atmosphere.a) * daylight + NIGHT_LIGHT * 1.5 * (1.0 - daylight);
    let reflected = reflect(dir, up);
    let glint = pow(max(dot(reflected, sun), 0.0), 300.0) * 8.0 * frame.sun_color.rgb;
    var c = mix(body, sky, fresnel) + glint;
    let s = atmosphere(planet, dir, distance, GROUND_HAZE);
    c = c * s.transmittance + s.inscatter;
    let alpha = clamp(1.0 - exp(-thickness / 2.5), 0.35, 0.97);
    return vec4<f32>(tonemap(c), max(alpha, fresnel));
}
