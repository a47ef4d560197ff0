// The sky: a full-screen triangle behind everything: stars and the sun seen
// through every planet's atmosphere.

struct SkyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
};

@vertex
fn vs_sky(@builtin(vertex_index) i: u32) -> SkyOut {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    var out: SkyOut;
    out.ndc = uv * 2.0 - 1.0;
    out.clip = vec4<f32>(out.ndc, 0.0, 1.0);
    return out;
}

fn hash3(p: vec3<f32>) -> f32 {
    let q = fract(p * vec3<f32>(0.1031, 0.1030, 0.0973));
    let r = q + dot(q, q.yxz + 33.33);
    return fract((r.x + r.y) * r.z);
}

@fragment
fn fs_sky(in: SkyOut) -> @location(0) vec4<f32> {
    let dir = view_ray(in.ndc);
    // Stars: one in a few hundred cells of a direction grid (in system
    // axes: they stay put while the planet under the camera turns), each a
    // point about a pixel across whatever the field of view (fwidth is the
    // pixel's angular size).
    let star_dir = frame.sky_rotation * dir;
    let cell = floor(star_dir * 300.0);
    let h = hash3(cell);
    var stars = vec3<f32>(0.0);
    let jitter = vec3<f32>(hash3(cell + 17.0), hash3(cell + 31.0), hash3(cell + 47.0)) - 0.5;
    let star = normalize((cell + 0.5 + jitter * 0.6) / 300.0);
    let pixel = max(length(fwidth(star_dir)), 1e-5);
    if h > 0.997 && length(star_dir - star) < pixel * 0.75 {
        stars = vec3<f32>(0.6 + 2.0 * (h - 0.997) * 300.0);
    }
    var c = vec3<f32>(0.0);
    let mu = dot(dir, frame.sun.xyz);
    if mu > frame.sun.w {
        c = frame.sun_color.rgb * 30.0;
    } else {
        // A glow around the disc.
        c += frame.sun_color.rgb * 0.5 * pow(max(mu, 0.0), 400.0);
    }
    let air = all_atmospheres(dir, 1e30);
    let inscatter = air.inscatter;
    let transmittance = air.transmittance;
    // A bright sky drowns the stars.
    let brightness = dot(inscatter, vec3<f32>(0.3, 0.5, 0.2));
    c = (c + stars * max(1.0 - brightness * 6.0, 0.0)) * transmittance + inscatter;
    return vec4<f32>(tonemap(c), 1.0);
}
