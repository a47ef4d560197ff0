// Creatures: one instanced draw per gait model (creatures.rs), of
// camera-relative instances. Each vertex's part turns about its pivot with
// the walk cycle (legs about z, heads bob, tails sway, wings flap about x in
// flight and fold back along the body on the ground), then the model is
// placed on the instance's feet in its forward/up/right axes, scaled by its
// body length. Lit as the scattered objects are (sun, sky, night light,
// haze), dithered in with its fade.

struct CreatureIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) pivot: vec3<f32>,
    // 0 back .. 1 belly (blended), 2 dark.
    @location(3) colour: f32,
    // 0 body, 1 head, 2 leg, 3 wing, 4 tail.
    @location(4) limb: u32,
    // Phase offset (cycles), amplitude (radians), fold (radians).
    @location(5) swing: vec3<f32>,
    // xyz: model origin relative to the camera; w: size, m.
    @location(6) at: vec4<f32>,
    // xyz: forward; w: phase (0..1).
    @location(7) forward: vec4<f32>,
    // xyz: up; w: stride (0..1).
    @location(8) up: vec4<f32>,
    // rgb: back colour; w: rest (0..1).
    @location(9) back: vec4<f32>,
    // rgb: belly colour; w: wings spread (0..1).
    @location(10) belly: vec4<f32>,
    // x: fade (0..1); y: planet index.
    @location(11) misc: vec4<f32>,
};

struct CreatureOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) relative: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) albedo: vec3<f32>,
    @location(3) @interpolate(flat) fade: f32,
    @location(4) @interpolate(flat) planet: u32,
};

const TAU: f32 = 6.2831853;

// Turns about the model's z (right) axis: a positive angle swings a hanging foot forward.
fn turn_z(v: vec3<f32>, a: f32) -> vec3<f32> {
    let c = cos(a);
    let s = sin(a);
    return vec3<f32>(v.x * c - v.y * s, v.x * s + v.y * c, v.z);
}

fn turn_y(v: vec3<f32>, a: f32) -> vec3<f32> {
    let c = cos(a);
    let s = sin(a);
    return vec3<f32>(v.x * c + v.z * s, v.y, v.z * c - v.x * s);
}

fn turn_x(v: vec3<f32>, a: f32) -> vec3<f32> {
    let c = cos(a);
    let s = sin(a);
    return vec3<f32>(v.x, v.y * c - v.z * s, v.y * s + v.z * c);
}

// A vector of a part, turned as the part is at this moment of its walk.
fn animate(v: vec3<f32>, in: CreatureIn) -> vec3<f32> {
    let cycle = TAU * (in.forward.w + in.swing.x);
    let stride = in.up.w;
    let rest = in.back.w;
    let spread = in.belly.w;
    switch in.limb {
        case 1u: {
            // Heads bob twice a stride and droop at rest.
            return turn_z(v, sin(2.0 * cycle) * 0.06 * stride + in.swing.z * rest);
        }
        case 2u: {
            // Legs swing, and fold lying down or in flight.
            let fold = max(rest, spread);
            return turn_z(v, sin(cycle) * in.swing.y * stride * (1.0 - fold) + in.swing.z * fold);
        }
        case 3u: {
            // Wings: swept back along the body on the ground, flapping in flight.
            let side = sign(in.pivot.z);
            let flap = spread * (0.15 + in.swing.y * sin(cycle));
            return turn_x(turn_y(v, -side * in.swing.z * (1.0 - spread)), -side * flap);
        }
        case 4u: {
            return turn_y(v, sin(cycle) * in.swing.y * (0.3 + stride));
        }
        default: {
            return v;
        }
    }
}

@vertex
fn vs_creatures(in: CreatureIn) -> CreatureOut {
    var offset = in.position - in.pivot;
    if in.limb == 3u {
        // A folded wing is a shorter one.
        offset *= mix(0.6, 1.0, in.belly.w);
    }
    let m = in.pivot + animate(offset, in);
    let n = animate(in.normal, in);
    let forward = in.forward.xyz;
    let up = in.up.xyz;
    let right = cross(forward, up);
    let p = in.at.xyz + (forward * m.x + up * m.y + right * m.z) * in.at.w;
    var out: CreatureOut;
    out.clip = frame.view_proj * vec4<f32>(p, 1.0);
    out.relative = p;
    out.normal = forward * n.x + up * n.y + right * n.z;
    let body = mix(in.back.rgb, in.belly.rgb, clamp(in.colour, 0.0, 1.0));
    out.albedo = select(body, in.back.rgb * 0.12 + vec3<f32>(0.01), in.colour > 1.5);
    out.fade = in.misc.x;
    out.planet = u32(in.misc.y);
    return out;
}

@fragment
fn fs_creatures(in: CreatureOut) -> @location(0) vec4<f32> {
    if bayer(in.clip.xy) >= in.fade {
        discard;
    }
    let planet = frame.planets[in.planet];
    let n = normalize(in.normal);
    let up = normalize(in.relative - planet.centre.xyz);
    let sun = planet.sun.xyz;
    let direct = max(dot(n, sun), 0.0) * smoothstep(-0.05, 0.05, dot(up, sun));
    let daylight = daylight_at(up, sun);
    let sky = sky_light(planet, daylight);
    let ambient = sky * (0.6 + 0.4 * dot(n, up));
    var c = in.albedo * (frame.sun_color.rgb * direct + ambient);
    let distance = length(in.relative);
    let s = atmosphere(planet, in.relative / distance, distance, GROUND_HAZE);
    c = c * s.transmittance + s.inscatter;
    return vec4<f32>(tonemap(c), 1.0);
}
