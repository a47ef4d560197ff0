// Scattered objects: one multi-draw a planet (or, without indirect draws,
// one instanced draw per planet, model type and detail level) a frame, of
// camera-relative instances (batch.rs). Each
// instance stands on its base, up along the planet's radius there, turned
// by its yaw and scaled by its size; lit like the terrain (sun, sky,
// haze). Instances fade with the region's dither, and thin out towards
// their type's far distance (grass first), each at its own dither level;
// those carried over from a leaving region glide onto the new ground instead.

struct Draw {
    // unused here: each instance carries its position and fade (batch.rs).
    offset: vec4<f32>,
    // unused here.
    texture_origin: vec4<f32>,
    // x: planet index; the rest unused (each model vertex says its type's
    // far distance and whether it is an impostor's: models.rs).
    info: vec4<f32>,
};

@group(1) @binding(0) var<uniform> draw: Draw;

struct VsIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) tint: f32,
    @location(3) base: vec3<f32>,
    @location(4) yaw: f32,
    @location(5) size: f32,
    @location(6) color: vec4<f32>,
    // x: metres along up it is still above its seat; y: its region's fade.
    @location(7) glide: vec2<f32>,
    // x: the type's far distance, m; y: 1 for an impostor (flat, turned to the camera).
    @location(8) kind: vec2<f32>,
};

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) relative: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) albedo: vec3<f32>,
    // The instance's own fade: 1 near, 0 at the far distance.
    @location(3) @interpolate(flat) fade: f32,
    @location(4) @interpolate(flat) threshold: f32,
    @location(5) @interpolate(flat) region_fade: f32,
};

@vertex
fn vs_objects(in: VsIn, @builtin(instance_index) instance: u32) -> VsOut {
    let planet = frame.planets[u32(draw.info.x)];
    // Camera-relative already: a batch holds many regions' objects.
    let seated = in.base;
    // The frame of planet::scatter::object_axes.
    let up = normalize(seated - planet.centre.xyz);
    // Carried objects start at the height they were shown at and glide onto this region's ground.
    let base = seated + up * in.glide.x;
    var side = cross(up, vec3<f32>(0.0, 1.0, 0.0));
    if dot(side, side) < 1e-6 {
        side = cross(up, vec3<f32>(1.0, 0.0, 0.0));
    }
    side = normalize(side);
    let forward = cross(side, up);
    let c = cos(in.yaw);
    let s = sin(in.yaw);
    var x = side * c + forward * s;
    var z = forward * c - side * s;
    var normal = x * in.normal.x + up * in.normal.y + z * in.normal.z;
    if in.kind.y > 0.5 {
        // An impostor: its plane turned about up to face the camera (at the
        // origin of these camera-relative positions), lit as a crown would
        // be, half towards the camera and half up.
        let toward = -base - up * dot(-base, up);
        z = normalize(select(forward, toward, dot(toward, toward) > 1e-6));
        x = cross(up, z);
        normal = normalize(z + up);
    }
    let p = base + (x * in.position.x + up * in.position.y + z * in.position.z) * in.size;
    var out: VsOut;
    out.clip = frame.view_proj * vec4<f32>(p, 1.0);
    out.relative = p;
    out.normal = normal;
    let trunk = vec3<f32>(0.18, 0.12, 0.07); // models::TRUNK_COLOR
    out.albedo = mix(trunk, in.color.rgb, in.tint);
    let far = in.kind.x;
    out.fade = 1.0 - smoothstep(far * 0.6, far, length(base));
    // Each instance its own threshold, so a thinning patch loses whole objects.
    out.threshold = fract(f32(instance) * 0.618034 + in.yaw * 0.1591549);
    out.region_fade = in.glide.y;
    return out;
}

@fragment
fn fs_objects(in: VsOut) -> @location(0) vec4<f32> {
    let fade = in.region_fade;
    let dither = bayer(in.clip.xy);
    if (fade >= 0.0 && dither >= fade) || (fade < 0.0 && dither < -fade) || in.threshold >= in.fade {
        discard;
    }
    let planet = frame.planets[u32(draw.info.x)];
    let n = normalize(in.normal);
    let up = normalize(in.relative - planet.centre.xyz);
    let sun = planet.sun.xyz;
    // Both sides lit alike: blades and thin crowns are seen from behind.
    let face = n * sign(dot(n, -in.relative) + 1e-6);
    let direct = max(dot(face, sun), 0.0) * smoothstep(-0.05, 0.05, dot(up, sun));
    let daylight = daylight_at(up, sun);
    let sky = sky_light(planet, daylight);
    let ambient = sky * (0.6 + 0.4 * dot(face, up));
    var c = in.albedo * (frame.sun_color.rgb * direct + ambient);
    let distance = length(in.relative);
    let s = atmosphere(planet, in.relative / distance, distance, GROUND_HAZE);
    c = c * s.transmittance + s.inscatter;
    return vec4<f32>(tonemap(c), 1.0);
}
