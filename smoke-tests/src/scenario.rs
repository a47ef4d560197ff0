//! Scenarios (`data/smoke/*.json`): a fixed system, a capture size, a frame
//! rate, and a camera path through named keyframes (each a view: planet,
//! latitude, longitude, altitude, heading, pitch, or a look at another
//! planet). Between keyframes on one planet the camera moves over it (the
//! view's numbers are interpolated); between planets it flies straight
//! through space.

use crate::error::SmokeError;
use std::path::{Path, PathBuf};

use engine::read::FileKind;
use engine::{Pose, ViewSpec, World};
use glam::DVec3;
use serde::{Deserialize, Serialize};

/// One named stop of a scenario's path.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Keyframe {
    /// Name: the screenshot's file name and the report's label.
    pub name: String,
    /// Seconds from the start of the path.
    pub t: f64,
    /// The view, written as for `planet capture --view`.
    pub view: String,
}

/// A scenario file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Name (the file's stem by convention).
    pub name: String,
    /// What it covers.
    pub description: String,
    /// System recipe, relative to the scenario file; `default` for the embedded one.
    pub system: String,
    /// Capture size, pixels.
    pub size: [u32; 2],
    /// Frames per second of the simulated clock along the path.
    pub fps: f64,
    /// In the short set that CI runs.
    pub short: bool,
    /// The path's stops, in time order.
    pub keyframes: Vec<Keyframe>,
    /// A saved world (`planet edit`), relative to the scenario file, whose
    /// edits the world starts with; none when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub save: Option<String>,
    /// The world clock at the path's start, seconds (0 when omitted: the
    /// planets stand as generated).
    #[serde(default)]
    pub time: f64,
    /// Simulated seconds per second of path, 0..=10000 (0 when omitted: the
    /// clock stands still, so the sun stays where the keyframes were chosen).
    #[serde(default)]
    pub time_scale: f64,
    /// Where it was loaded from (not in the file).
    #[serde(skip)]
    pub file: PathBuf,
}

/// A keyframe's view, parsed.
#[derive(Clone, Debug)]
pub struct Stop {
    /// Name.
    pub name: String,
    /// Time, s.
    pub t: f64,
    /// View.
    pub view: ViewSpec,
}

impl Scenario {
    /// Loads and checks a scenario file; errors name the file and field.
    pub fn load(path: &Path) -> Result<Self, SmokeError> {
        let text = crate::read_text(path, FileKind::Scenario)?;
        let mut s: Scenario = planet::json::parse(&text).map_err(|e| SmokeError::invalid(path, e))?;
        s.file = path.to_path_buf();
        s.check().map_err(|e| SmokeError::invalid(path, e))?;
        Ok(s)
    }

    fn check(&self) -> Result<(), SmokeError> {
        let [w, h] = self.size;
        if !(16..=4096).contains(&w) || !(16..=4096).contains(&h) {
            return Err(SmokeError::Field(format!("size = [{w}, {h}]: each must be in 16..=4096")));
        }
        if !(self.fps.is_finite() && (1.0..=120.0).contains(&self.fps)) {
            return Err(SmokeError::Field(format!("fps = {}: must be in 1..=120", self.fps)));
        }
        if !(0.0..=engine::clock::MAX_TIME_S).contains(&self.time) {
            return Err(SmokeError::Field(format!(
                "time = {}: must be in 0..={}",
                self.time,
                engine::clock::MAX_TIME_S
            )));
        }
        if !(0.0..=10_000.0).contains(&self.time_scale) {
            return Err(SmokeError::Field(format!("time_scale = {}: must be in 0..=10000", self.time_scale)));
        }
        if self.keyframes.is_empty() {
            return Err(SmokeError::Field("keyframes: needs at least one".into()));
        }
        for (i, k) in self.keyframes.iter().enumerate() {
            if k.name.is_empty() || !k.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                return Err(SmokeError::Field(format!(
                    "keyframes[{i}].name = {:?}: letters, digits, - and _ only",
                    k.name
                )));
            }
            if !k.t.is_finite() || k.t < 0.0 || (i > 0 && k.t <= self.keyframes[i - 1].t) {
                return Err(SmokeError::Field(format!(
                    "keyframes[{i}].t = {}: must be at least 0 and after the previous",
                    k.t
                )));
            }
            k.view.parse::<ViewSpec>().map_err(|e| SmokeError::Field(format!("keyframes[{i}].view: {e}")))?;
            if self.keyframes[..i].iter().any(|o| o.name == k.name) {
                return Err(SmokeError::Field(format!("keyframes[{i}].name = {}: used twice", k.name)));
            }
        }
        Ok(())
    }

    /// The system recipe file, if not the default.
    #[must_use]
    pub fn system_file(&self) -> Option<PathBuf> {
        (self.system != "default").then(|| self.file.parent().unwrap_or(Path::new(".")).join(&self.system))
    }

    /// The save file, where the scenario names one.
    #[must_use]
    pub fn save_file(&self) -> Option<PathBuf> {
        self.save.as_ref().map(|s| self.file.parent().unwrap_or(Path::new(".")).join(s))
    }

    /// The world clock `t` seconds along the path.
    #[must_use]
    pub fn clock_at(&self, t: f64) -> f64 {
        self.time + t * self.time_scale
    }

    /// The keyframes as views.
    #[must_use]
    pub fn stops(&self) -> Vec<Stop> {
        self.keyframes
            .iter()
            .map(|k| Stop { name: k.name.clone(), t: k.t, view: k.view.parse().expect("checked on load") })
            .collect()
    }

    /// Length of the path, s.
    #[must_use]
    pub fn duration(&self) -> f64 {
        self.keyframes.last().map_or(0.0, |k| k.t)
    }
}

/// The camera at time `t` along `stops` in `world` (and its field of view, radians).
pub fn pose_at(world: &World, stops: &[Stop], t: f64) -> Result<(Pose, f64), SmokeError> {
    let next = stops.iter().position(|s| s.t > t).unwrap_or(stops.len());
    if next == 0 || next == stops.len() {
        let s = &stops[next.min(stops.len() - 1)];
        return Ok((s.view.pose(world)?, s.view.fov.to_radians()));
    }
    let (a, b) = (&stops[next - 1], &stops[next]);
    let f = ((t - a.t) / (b.t - a.t)).clamp(0.0, 1.0);
    let mix = |x: f64, y: f64| x + (y - x) * f;
    let fov = mix(a.view.fov, b.view.fov).to_radians();
    if a.view.planet == b.view.planet && a.view.look.is_none() && b.view.look.is_none() {
        // Over one planet: move over its surface.
        let mut lon_b = b.view.lon;
        if lon_b - a.view.lon > 180.0 {
            lon_b -= 360.0;
        } else if a.view.lon - lon_b > 180.0 {
            lon_b += 360.0;
        }
        let mut lon = mix(a.view.lon, lon_b);
        if lon > 180.0 {
            lon -= 360.0;
        } else if lon < -180.0 {
            lon += 360.0;
        }
        let view = ViewSpec {
            lat: mix(a.view.lat, b.view.lat),
            lon,
            alt: mix(a.view.alt, b.view.alt),
            heading: mix(a.view.heading, b.view.heading),
            pitch: mix(a.view.pitch, b.view.pitch),
            ..a.view
        };
        return Ok((view.pose(world)?, fov));
    }
    // Between planets (or looks): straight through space, turning as it goes.
    let (pa, pb) = (a.view.pose(world)?, b.view.pose(world)?);
    let position = pa.position.lerp(pb.position, f);
    let forward = pa.forward.lerp(pb.forward, f).normalize_or(pb.forward);
    let (planet, _) = world.nearest(position);
    let up = (position - planet.position).normalize_or(DVec3::Y);
    Ok((Pose::looking(position, forward, up), fov))
}

/// Every scenario in `dir`, sorted by name.
pub fn all_in(dir: &Path) -> Result<Vec<Scenario>, SmokeError> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| SmokeError::io("read", dir, e))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files.iter().map(|f| Scenario::load(f)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(keyframes: &str) -> Result<Scenario, String> {
        let text = format!(
            r#"{{"name":"x","description":"","system":"default","size":[64,36],"fps":10,"short":true,"keyframes":{keyframes}}}"#
        );
        let s: Scenario = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        s.check().map(|()| s).map_err(|e| e.to_string())
    }

    #[test]
    fn bad_scenarios_say_which_field() {
        assert!(scenario(r#"[{"name":"a","t":0,"view":"planet=1"}]"#).is_ok());
        assert_eq!(scenario("[]").unwrap_err(), "keyframes: needs at least one");
        let back = r#"[{"name":"a","t":1,"view":"planet=1"},{"name":"b","t":1,"view":"planet=1"}]"#;
        assert!(scenario(back).unwrap_err().starts_with("keyframes[1].t = 1"));
        let bad_view = r#"[{"name":"a","t":0,"view":"lat=100"}]"#;
        assert_eq!(scenario(bad_view).unwrap_err(), "keyframes[0].view: lat = 100: must be in -90..=90");
        let twice = r#"[{"name":"a","t":0,"view":"planet=1"},{"name":"a","t":2,"view":"planet=1"}]"#;
        assert!(scenario(twice).unwrap_err().contains("used twice"));
        assert!(scenario(r#"[{"name":"a b","t":0,"view":""}]"#).unwrap_err().contains("letters, digits"));
    }

    #[test]
    fn paths_follow_the_surface_and_cross_space() {
        let world = World::new(
            std::sync::Arc::new(planet::PlannedSystem::default_system()),
            engine::WorldSettings { threads: 0, proxy_quads: 4, ..engine::WorldSettings::default() },
        );
        let s = scenario(
            r#"[{"name":"a","t":0,"view":"planet=1,lat=0,lon=170,alt=100"},
                {"name":"b","t":10,"view":"planet=1,lat=0,lon=-170,alt=100"},
                {"name":"c","t":20,"view":"planet=2,lat=0,lon=0,alt=100"}]"#,
        )
        .unwrap();
        let stops = s.stops();
        // Halfway over the date line: longitude 180, 100 m up.
        let (mid, _) = pose_at(&world, &stops, 5.0).unwrap();
        assert!((world.altitude(mid.position) - 100.0).abs() < 1.0);
        let local = mid.position - world.planets[1].position;
        assert!((engine::lat_lon_of(local).1.abs() - 180.0).abs() < 1e-3);
        // Between planets: on the straight line.
        let (a, _) = pose_at(&world, &stops, 10.0).unwrap();
        let (b, _) = pose_at(&world, &stops, 20.0).unwrap();
        let (m, _) = pose_at(&world, &stops, 15.0).unwrap();
        assert!(m.position.distance((a.position + b.position) * 0.5) < 1e-6);
        // Before the start and after the end: the end stops.
        assert_eq!(pose_at(&world, &stops, -1.0).unwrap().0, stops[0].view.pose(&world).unwrap());
        assert_eq!(pose_at(&world, &stops, 99.0).unwrap().0, b);
    }
}
