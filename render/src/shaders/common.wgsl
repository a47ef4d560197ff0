// Shared by every pass: the frame's uniforms, the atmosphere, tone mapping.
// Every position the GPU sees is relative to the camera (f32 from an f64
// difference on the CPU), so nothing large ever reaches a shader.

struct PlanetGpu {
    // xyz: centre relative to the camera, m; w: base radius, m.
    centre: vec4<f32>,
    // rgb: scattering colour; a: density (0 = no atmosphere).
    atmosphere: vec4<f32>,
    // x: atmosphere height above the base radius, m; y: sea radius (0: none).
    shell: vec4<f32>,
    // xyz: unit direction from the planet to the sun.
    sun: vec4<f32>,
};

struct Frame {
    view_proj: mat4x4<f32>,
    inv_view_proj: mat4x4<f32>,
    // xyz: unit direction from the camera to the sun; w: cos of its angular radius.
    sun: vec4<f32>,
    // rgb: sunlight; w: time, s.
    sun_color: vec4<f32>,
    // x: texture detail level (log2 of the scale multiplier); y: blend to the
    // next level; z: 1 to draw the sky (0: clear colour shows, for hole tests); w: exposure.
    detail: vec4<f32>,
    // x, y: viewport size, px; z: near plane, m; w: planet count.
    viewport: vec4<f32>,
    planets: array<PlanetGpu, 8>,
    // Frame to system axes: the stars are fixed in the latter.
    sky_rotation: mat3x3<f32>,
};

@group(0) @binding(0) var<uniform> frame: Frame;

fn ray_sphere(o: vec3<f32>, d: vec3<f32>, r: f32) -> vec2<f32> {
    let b = dot(o, d);
    let c = dot(o, o) - r * r;
    let h = b * b - c;
    if h < 0.0 {
        return vec2<f32>(1e30, -1e30);
    }
    let s = sqrt(h);
    return vec2<f32>(-b - s, -b + s);
}

// How much of the sky's air the haze over the ground uses (see `atmosphere`).
const GROUND_HAZE: f32 = 0.3;

struct Scatter {
    inscatter: vec3<f32>,
    transmittance: vec3<f32>,
};

// Single scattering along the camera ray `dir` up to `t_max` through one
// planet's atmosphere: an exponential shell (scale height a quarter of its
// height) lit where its ground faces the sun, by sunlight reddened through
// the air it crossed on the way. Eight steps: enough for a haze
// that reads right from the ground and as a rim from space. `strength`
// scales the air: the sky takes 1; the ground's haze takes less, because a
// true-to-scale atmosphere on a planet a few kilometres across would hide
// its own hills a kilometre away.
fn atmosphere(p: PlanetGpu, dir: vec3<f32>, t_max: f32, strength: f32) -> Scatter {
    var out: Scatter;
    out.inscatter = vec3<f32>(0.0);
    out.transmittance = vec3<f32>(1.0);
    let density = p.atmosphere.a;
    let height = p.shell.x;
    if density <= 0.0 || height <= 0.0 {
        return out;
    }
    let o = -p.centre.xyz;
    let radius = p.centre.w;
    let hit = ray_sphere(o, dir, radius + height);
    let t0 = max(hit.x, 0.0);
    let t1 = min(hit.y, t_max);
    if t1 <= t0 {
        return out;
    }
    let scale_height = height * 0.25;
    let mu_eye = max(dot(normalize(o), p.sun.xyz), 0.0);
    // ... towards the sun; away from it the sky keeps each sample's own sun
    // (the twilight sky overhead stays blue).
    let inside = (1.0 - smoothstep(height, 2.0 * height, length(o) - radius))
        * smoothstep(0.2, 0.95, dot(dir, p.sun.xyz));
    // Scattering falls steeply with the colour's weakness (Rayleigh goes as
    // the inverse fourth power of wavelength): cubing the recipe's colour
    // keeps the sky saturated instead of a pale grey.
    let tint = p.atmosphere.rgb * p.atmosphere.rgb * p.atmosphere.rgb;
    let beta = tint * density * (2.4 / height) * strength;
    let dt = (t1 - t0) / 8.0;
    var depth = 0.0;
    var light = vec3<f32>(0.0);
    for (var i = 0; i < 8; i++) {
        let pos = o + dir * (t0 + (f32(i) + 0.5) * dt);
        let r = length(pos);
        let rho = exp(-max(r - radius, 0.0) / scale_height);
        depth += rho * dt;
        let up_sun = dot(pos / r, p.sun.xyz);
        let lit = smoothstep(-0.2, 0.15, up_sun);
        // Dawn and dusk: sunlight reaching this sample crosses more air
        // the lower its sun (an airmass of 1 overhead, about 40 on the
        // horizon), and the air takes the blue first. Only the air beyond
        // the overhead path counts, so the midday sky is as it was.
        // Seen from inside the air, the sun's height over the eye's own
        // ground caps it: on a planet a few kilometres across the air a
        // couple of kilometres off has its sun ~30 degrees higher, and the
        // dusk sky would stay blue; the eye reads the sky as Earth's.
        let mu_s = mix(max(up_sun, 0.0), min(max(up_sun, 0.0), mu_eye), inside);
        let airmass = 1.0 / (mu_s + 0.025 * exp(-11.0 * mu_s));
        let toward_sun = rho * scale_height * (airmass - 1.0);
        light += lit * rho * dt * exp(-beta * (depth + toward_sun));
    }
    let mu = max(dot(dir, p.sun.xyz), 0.0);
    let phase = 0.8 + 0.6 * pow(mu, 8.0);
    // Haze (Mie: grey, thrown forward) around the sun: with the light
    // reddened above, the glow of a low sun is orange, not the air's hue.
    let haze = density * (2.4 / height) * strength * 0.08 * pow(mu, 6.0);
    out.inscatter = light * (beta * phase + vec3<f32>(haze)) * frame.sun_color.rgb;
    out.transmittance = exp(-beta * depth);
    return out;
}

// Every planet's atmosphere along a ray, as one inscatter and one
// transmittance (planets are far apart; the order they compose in only
// matters where one's haze lies in front of another's, which never happens
// at the distances of a system).
fn all_atmospheres(dir: vec3<f32>, t_max: f32) -> Scatter {
    var out: Scatter;
    out.inscatter = vec3<f32>(0.0);
    out.transmittance = vec3<f32>(1.0);
    let n = i32(frame.viewport.w);
    for (var i = 0; i < n; i++) {
        let s = atmosphere(frame.planets[i], dir, t_max, 1.0);
        out.inscatter = out.inscatter * s.transmittance + s.inscatter;
        out.transmittance *= s.transmittance;
    }
    return out;
}

// Light from the sky on ground whose up is `up`, for a daylight share
// `daylight`: the atmosphere's by day; by night starlight and airglow, a
// faint blue that the exposure (`frame.detail.w`, raised on the night side)
// lifts until the ground and the horizon read. The dim constant keeps
// shadowed ground from going black by day.
const NIGHT_LIGHT: vec3<f32> = vec3<f32>(0.020, 0.027, 0.052);
fn sky_light(p: PlanetGpu, daylight: f32) -> vec3<f32> {
    return p.atmosphere.rgb * (0.08 + 0.3 * p.atmosphere.a) * daylight + vec3<f32>(0.015)
        + NIGHT_LIGHT * (1.0 - daylight);
}

// Sunlight's share at ground whose up is `up`: 1 by day, 0 at night, a
// smooth dusk between (the sun a little below the horizon still lights the sky).
fn daylight_at(up: vec3<f32>, sun: vec3<f32>) -> f32 {
    return smoothstep(-0.25, 0.3, dot(up, sun));
}

fn tonemap(c: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(1.0) - exp(-c * frame.detail.w);
}

// The ray from the camera through a pixel (NDC xy), camera-relative.
fn view_ray(ndc: vec2<f32>) -> vec3<f32> {
    let far = frame.inv_view_proj * vec4<f32>(ndc, 0.5, 1.0);
    return normalize(far.xyz / far.w);
}

// A 4x4 ordered-dither threshold in (0, 1) for pixel `p`: fades dissolve
// new regions in (and old ones out) pixel by pixel.
fn bayer(p: vec2<f32>) -> f32 {
    let x = u32(p.x) & 3u;
    let y = u32(p.y) & 3u;
    let m = array<u32, 16>(0u, 8u, 2u, 10u, 12u, 4u, 14u, 6u, 3u, 11u, 1u, 9u, 15u, 7u, 13u, 5u);
    return (f32(m[y * 4u + x]) + 0.5) / 16.0;
}
