//! Scripted camera paths: keyframes of latitude, longitude, altitude above the
//! ground, heading and pitch, interpolated linearly, as JSON in `data/paths/`
//! (embedded, so `descent`, `lowpass` and `walk` work with no files).

use glam::{DVec3, Vec3};
use planet::terrain::{Terrain, lat_lon_direction};
use serde::{Deserialize, Serialize};

use crate::camera::Camera;

/// The time step a path camera's velocity is measured over, seconds: long
/// enough to smooth the ground's bumps under a low, fast camera.
const VELOCITY_STEP_S: f64 = 0.1;

/// One keyframe.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Keyframe {
    /// Time, seconds from the start.
    pub t: f64,
    /// Latitude, degrees.
    pub lat: f64,
    /// Longitude, degrees.
    pub lon: f64,
    /// Height above the ground, metres.
    pub altitude_m: f64,
    /// Heading, degrees clockwise from north.
    pub heading_deg: f64,
    /// Pitch, degrees above the horizon.
    pub pitch_deg: f64,
}

/// A camera path over one planet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CameraPath {
    /// Name.
    pub name: String,
    /// What it shows.
    #[serde(default)]
    pub description: String,
    /// Planet index in the system.
    pub planet: u32,
    /// Keyframes, times increasing.
    pub keyframes: Vec<Keyframe>,
}

/// The paths in `data/paths/`, embedded.
pub const BUILTIN: [(&str, &str); 6] = [
    ("descent", include_str!("../../data/paths/descent.json")),
    ("lowpass", include_str!("../../data/paths/lowpass.json")),
    ("spiral1k", include_str!("../../data/paths/spiral1k.json")),
    ("straight1k", include_str!("../../data/paths/straight1k.json")),
    ("straight3k", include_str!("../../data/paths/straight3k.json")),
    ("walk", include_str!("../../data/paths/walk.json")),
];

/// Why a camera path file cannot be used; each names the field and what is allowed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PathError {
    /// Not JSON of a path's shape, or a key given twice: the field's JSON
    /// path and serde's message, with its line and column.
    #[error("{0}")]
    Json(String),
    /// No keyframes.
    #[error("keyframes: must hold at least one keyframe")]
    NoKeyframes,
    /// A keyframe's number outside its range.
    #[error("keyframes[{index}].{field} = {value}: must be in {lo}..={hi}")]
    OutOfRange {
        /// The keyframe.
        index: usize,
        /// Its field.
        field: &'static str,
        /// The value.
        value: f64,
        /// The smallest allowed.
        lo: f64,
        /// The largest allowed.
        hi: f64,
    },
    /// A keyframe's time not after the one before.
    #[error("keyframes[{index}].t = {t}: must be after keyframes[{}].t", index - 1)]
    NotAfter {
        /// The keyframe.
        index: usize,
        /// Its time.
        t: f64,
    },
}

impl CameraPath {
    /// Parses and checks a path.
    pub fn from_json(text: &str) -> Result<Self, PathError> {
        let path: Self = planet::json::parse(text).map_err(|e| PathError::Json(e.to_string()))?;
        if path.keyframes.is_empty() {
            return Err(PathError::NoKeyframes);
        }
        for (i, k) in path.keyframes.iter().enumerate() {
            let checks = [
                ("t", k.t, 0.0, 1e6),
                ("lat", k.lat, -90.0, 90.0),
                // Past +-180 so that a path can cross the date line, and go
                // round a planet a few times, without a jump.
                ("lon", k.lon, -1800.0, 1800.0),
                ("altitude_m", k.altitude_m, 0.0, 1e7),
                ("heading_deg", k.heading_deg, -360.0, 360.0),
                ("pitch_deg", k.pitch_deg, -90.0, 90.0),
            ];
            for (field, v, lo, hi) in checks {
                if !v.is_finite() || v < lo || v > hi {
                    return Err(PathError::OutOfRange { index: i, field, value: v, lo, hi });
                }
            }
            if i > 0 && k.t <= path.keyframes[i - 1].t {
                return Err(PathError::NotAfter { index: i, t: k.t });
            }
        }
        Ok(path)
    }

    /// A built-in path by name.
    #[must_use]
    pub fn builtin(name: &str) -> Option<Self> {
        BUILTIN
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, text)| Self::from_json(text).expect("built-in paths are valid"))
    }

    /// Length in seconds.
    #[must_use]
    pub fn duration(&self) -> f64 {
        self.keyframes.last().map_or(0.0, |k| k.t)
    }

    /// The keyframe at time `t` (clamped to the path).
    #[must_use]
    pub fn sample(&self, t: f64) -> Keyframe {
        let ks = &self.keyframes;
        let i = ks.partition_point(|k| k.t <= t);
        if i == 0 {
            return ks[0];
        }
        if i >= ks.len() {
            return ks[ks.len() - 1];
        }
        let (a, b) = (ks[i - 1], ks[i]);
        let s = (t - a.t) / (b.t - a.t);
        let mix = |x: f64, y: f64| x + (y - x) * s;
        Keyframe {
            t,
            lat: mix(a.lat, b.lat),
            lon: mix(a.lon, b.lon),
            altitude_m: mix(a.altitude_m, b.altitude_m),
            heading_deg: mix(a.heading_deg, b.heading_deg),
            pitch_deg: mix(a.pitch_deg, b.pitch_deg),
        }
    }

    /// The camera at time `t` over `terrain`, moving with the path (its
    /// velocity over the tenth of a second ahead; at rest at and past the
    /// path's end).
    #[must_use]
    pub fn camera(&self, terrain: &Terrain, t: f64) -> Camera {
        let camera = keyframe_camera(terrain, &self.sample(t));
        let end = self.duration();
        if t < 0.0 || t >= end {
            return camera;
        }
        let step = VELOCITY_STEP_S.min(end - t);
        let later = keyframe_camera(terrain, &self.sample(t + step));
        camera.moving((later.position - camera.position) / step)
    }
}

/// The camera of a keyframe: above the ground at its latitude and longitude.
#[must_use]
pub fn keyframe_camera(terrain: &Terrain, k: &Keyframe) -> Camera {
    let d = lat_lon_direction(k.lat as f32, k.lon as f32);
    let ground = f64::from(terrain.recipe.radius_m) + f64::from(terrain.surface_height_at(d));
    let up = d.as_dvec3();
    let position = up * (ground + k.altitude_m);
    Camera::new(position, view_direction(up, k.heading_deg, k.pitch_deg))
}

/// The direction `heading` degrees clockwise from north and `pitch` degrees
/// above the horizon, at a point whose up is `up` (+Y is the planet's north pole).
#[must_use]
pub fn view_direction(up: DVec3, heading_deg: f64, pitch_deg: f64) -> DVec3 {
    let north = (DVec3::Y - up * up.y).normalize_or(DVec3::X);
    let east = north.cross(up);
    let (h, p) = (heading_deg.to_radians(), pitch_deg.to_radians());
    let level = north * libm::cos(h) + east * libm::sin(h);
    (level * libm::cos(p) + up * libm::sin(p)).normalize()
}

/// The point on the ground under latitude and longitude, planet-local.
#[must_use]
pub fn ground_point(terrain: &Terrain, lat: f64, lon: f64) -> DVec3 {
    let d: Vec3 = lat_lon_direction(lat as f32, lon as f32);
    d.as_dvec3() * (f64::from(terrain.recipe.radius_m) + f64::from(terrain.surface_height_at(d)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_paths_parse_and_interpolate() {
        for (name, _) in BUILTIN {
            let p = CameraPath::builtin(name).unwrap();
            assert!(p.duration() > 10.0);
        }
        let p = CameraPath::builtin("lowpass").unwrap();
        let k = p.sample(30.0);
        assert!((k.lon - (-120.0 + 261.82 / 2.0)).abs() < 1e-9);
        assert_eq!(p.sample(-5.0).lon, -120.0);
        assert_eq!(p.sample(500.0).lon, 141.82);
    }

    #[test]
    fn bad_paths_are_errors() {
        assert!(CameraPath::from_json("{}").unwrap_err().to_string().contains("missing field"));
        let no_frames = r#"{"name":"x","planet":0,"keyframes":[]}"#;
        assert!(CameraPath::from_json(no_frames).unwrap_err().to_string().contains("at least one"));
        let backwards = r#"{"name":"x","planet":0,"keyframes":[
            {"t":1,"lat":0,"lon":0,"altitude_m":1,"heading_deg":0,"pitch_deg":0},
            {"t":1,"lat":0,"lon":0,"altitude_m":1,"heading_deg":0,"pitch_deg":0}]}"#;
        assert!(
            CameraPath::from_json(backwards).unwrap_err().to_string().contains("keyframes[1].t = 1: must be after")
        );
        let bad_lat = r#"{"name":"x","planet":0,"keyframes":[{"t":0,"lat":95,"lon":0,"altitude_m":1,"heading_deg":0,"pitch_deg":0}]}"#;
        assert_eq!(
            CameraPath::from_json(bad_lat).unwrap_err().to_string(),
            "keyframes[0].lat = 95: must be in -90..=90"
        );
    }

    #[test]
    fn headings_point_the_right_way() {
        let up = DVec3::X; // on the equator
        let north = view_direction(up, 0.0, 0.0);
        assert!(north.distance(DVec3::Y) < 1e-9);
        let down = view_direction(up, 0.0, -90.0);
        assert!(down.distance(-up) < 1e-9);
        let east = view_direction(up, 90.0, 0.0);
        assert!(east.dot(up).abs() < 1e-9 && east.dot(DVec3::Y).abs() < 1e-9);
    }
}
