//! Views: where a camera stands in the system, as a person writes it
//! (`planet=1,lat=10,lon=20,alt=300,heading=45,pitch=-10`), and the camera's
//! pose in system space: position, forward and up, all f64.

use glam::DVec3;

use crate::path::view_direction;
use crate::world::World;

/// A camera's pose in system space (metres from the sun).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Position.
    pub position: DVec3,
    /// Unit view direction.
    pub forward: DVec3,
    /// Unit up, perpendicular to `forward`.
    pub up: DVec3,
}

impl Pose {
    /// A pose looking along `forward` with `up_hint` as near to up as it can be.
    #[must_use]
    pub fn looking(position: DVec3, forward: DVec3, up_hint: DVec3) -> Self {
        let forward = forward.normalize_or(DVec3::NEG_Z);
        let mut right = forward.cross(up_hint);
        if right.length_squared() < 1e-12 {
            right = forward.cross(DVec3::Y);
            if right.length_squared() < 1e-12 {
                right = forward.cross(DVec3::X);
            }
        }
        let up = right.normalize().cross(forward).normalize();
        Self { position, forward, up }
    }
}

/// A view over a planet: latitude and longitude (degrees), altitude above the
/// ground (m), heading (degrees clockwise from north) and pitch (degrees above
/// the horizon); or, with `look`, looking at another planet's centre.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewSpec {
    /// The planet stood over.
    pub planet: u32,
    /// Latitude, degrees, -90..=90.
    pub lat: f64,
    /// Longitude, degrees, -180..=180.
    pub lon: f64,
    /// Altitude above the ground (or the sea), metres, 0.5..=1e7.
    pub alt: f64,
    /// Heading, degrees clockwise from north.
    pub heading: f64,
    /// Pitch, degrees above the horizon, -90..=90.
    pub pitch: f64,
    /// Look at this planet instead of along heading and pitch.
    pub look: Option<u32>,
    /// Vertical field of view, degrees, 1..=120.
    pub fov: f64,
    /// A place the planet's layout names, which replaces lat, lon, alt,
    /// heading and pitch (`Spot`).
    pub spot: Option<Spot>,
}

/// Places a view can name instead of coordinates, found in the planet's
/// layout on its day side where it can be (the first by the layout's order
/// otherwise).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spot {
    /// 2.5 m over the water of the longest river that reaches the sea, 60 m
    /// up from its mouth, looking upstream.
    River,
    /// Before the highest mountain stamp, looking at its peak.
    Peak,
    /// On the edge of a buildable plot, looking across it.
    Plot,
    /// In the town with the most buildings, at the start of its route by
    /// one landmark, looking along the route towards the other.
    Town,
    /// 2 m over the dry land nearest the spot opposite the sun (midnight),
    /// looking east along the ground: the night side as a landing sees it.
    Night,
    /// 2 m over the dry land nearest the morning terminator (local solar
    /// time 06:00 at the world clock's time), looking at the rising sun.
    Dawn,
}

impl Spot {
    const NAMES: [(&'static str, Spot); 6] = [
        ("river", Spot::River),
        ("peak", Spot::Peak),
        ("plot", Spot::Plot),
        ("town", Spot::Town),
        ("night", Spot::Night),
        ("dawn", Spot::Dawn),
    ];
}

impl Default for ViewSpec {
    fn default() -> Self {
        Self { planet: 1, lat: 0.0, lon: 0.0, alt: 2.0, heading: 0.0, pitch: 0.0, look: None, fov: 60.0, spot: None }
    }
}

/// Why a view string or a view cannot be used; each names the key and what is allowed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ViewError {
    /// A part that is not `key=value`.
    #[error("`{0}` is not key=value")]
    NotKeyValue(String),
    /// A value that is not a number.
    #[error("{key} = `{value}` is not a number")]
    NotANumber {
        /// The key.
        key: String,
        /// Its value as written.
        value: String,
    },
    /// A number outside its key's range.
    #[error("{key} = {value}: must be in {lo}..={hi}")]
    OutOfRange {
        /// The key.
        key: String,
        /// Its value as written.
        value: String,
        /// The smallest allowed.
        lo: f64,
        /// The largest allowed.
        hi: f64,
    },
    /// A key views do not have.
    #[error(
        "unknown key `{0}` (keys: planet, lat, lon, alt, heading, pitch, look, fov; or a spot: river, peak, plot, town, night, dawn)"
    )]
    UnknownKey(String),
    /// A spot given with coordinates it replaces.
    #[error("{0} and {1} together: a spot places the view itself (keep planet and fov)")]
    SpotConflict(&'static str, String),
    /// A spot the planet's layout does not have.
    #[error("{spot}: planet {planet} has none (its layout: `planet plan --planet {planet}`)")]
    NoSpot {
        /// The spot's name.
        spot: &'static str,
        /// The planet.
        planet: u32,
    },
    /// A key given twice (which one was meant?).
    #[error("{0} is given twice")]
    Repeated(String),
    /// A planet index that is not a whole number.
    #[error("{key} = {value}: must be a whole number (a planet's index)")]
    NotWhole {
        /// `planet` or `look`.
        key: String,
        /// Its value as written.
        value: String,
    },
    /// `look` together with `heading` or `pitch`, which it replaces.
    #[error("look and {0} together: look at a planet, or give heading and pitch, not both")]
    Conflict(String),
    /// `planet` or `look` names a planet the system does not have.
    #[error("{key} = {planet}: the system has planets 0..={last}")]
    NoSuchPlanet {
        /// `planet` or `look`.
        key: &'static str,
        /// The planet named.
        planet: u32,
        /// The system's last planet.
        last: usize,
    },
    /// `look` names the planet stood over.
    #[error("look = {0}: a planet cannot look at itself")]
    LookAtSelf(u32),
}

impl std::str::FromStr for ViewSpec {
    type Err = ViewError;

    /// Parses `key=value` pairs separated by commas; keys left out keep
    /// their defaults (planet 1, lat 0, lon 0, alt 2, heading 0, pitch 0, fov 60).
    fn from_str(s: &str) -> Result<Self, ViewError> {
        let mut v = Self::default();
        let mut seen: Vec<String> = Vec::new();
        for pair in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(&(name, spot)) = Spot::NAMES.iter().find(|(name, _)| *name == pair) {
                if v.spot.is_some() {
                    return Err(ViewError::Repeated("spot".to_owned()));
                }
                v.spot = Some(spot);
                seen.push(name.to_owned());
                continue;
            }
            let (key, value) = pair.split_once('=').ok_or_else(|| ViewError::NotKeyValue(pair.to_owned()))?;
            if seen.iter().any(|k| k == key.trim()) {
                return Err(ViewError::Repeated(key.trim().to_owned()));
            }
            seen.push(key.trim().to_owned());
            let whole = |x: f64| -> Result<u32, ViewError> {
                if x.fract() == 0.0 {
                    Ok(x as u32)
                } else {
                    Err(ViewError::NotWhole { key: key.trim().to_owned(), value: value.trim().to_owned() })
                }
            };
            let number = |lo: f64, hi: f64| -> Result<f64, ViewError> {
                let (key, value) = (key.trim().to_owned(), value.trim().to_owned());
                let x: f64 =
                    value.parse().map_err(|_| ViewError::NotANumber { key: key.clone(), value: value.clone() })?;
                if x.is_finite() && (lo..=hi).contains(&x) {
                    Ok(x)
                } else {
                    Err(ViewError::OutOfRange { key, value, lo, hi })
                }
            };
            match key.trim() {
                "planet" => v.planet = whole(number(0.0, 255.0)?)?,
                "lat" => v.lat = number(-90.0, 90.0)?,
                "lon" => v.lon = number(-180.0, 180.0)?,
                "alt" => v.alt = number(0.5, 1e7)?,
                "heading" => v.heading = number(-360.0, 360.0)?,
                "pitch" => v.pitch = number(-90.0, 90.0)?,
                "look" => v.look = Some(whole(number(0.0, 255.0)?)?),
                "fov" => v.fov = number(1.0, 120.0)?,
                other => return Err(ViewError::UnknownKey(other.to_owned())),
            }
        }
        if let Some(spot) = v.spot
            && let Some(placed) =
                seen.iter().find(|k| ["lat", "lon", "alt", "heading", "pitch", "look"].contains(&k.as_str()))
        {
            return Err(ViewError::SpotConflict(spot.name(), placed.clone()));
        }
        if let Some(turn) = seen.iter().find(|k| *k == "heading" || *k == "pitch")
            && v.look.is_some()
        {
            return Err(ViewError::Conflict(turn.clone()));
        }
        Ok(v)
    }
}

impl ViewSpec {
    /// The pose of this view in `world`, or an error naming a planet that
    /// does not exist.
    pub fn pose(&self, world: &World) -> Result<Pose, ViewError> {
        if self.spot.is_some() {
            return self.resolve(world)?.pose(world);
        }
        let last = world.planets.len().saturating_sub(1);
        let planet = world.planets.get(self.planet as usize).ok_or(ViewError::NoSuchPlanet {
            key: "planet",
            planet: self.planet,
            last,
        })?;
        let d = planet::terrain::lat_lon_direction(self.lat as f32, self.lon as f32).as_dvec3().normalize();
        // Lat and lon are planet-local: the view turns with the planet.
        let ground = world.ground_height(planet, planet.to_system(d));
        let position = planet.to_system(d * (planet.radius + ground + self.alt));
        let forward = match self.look {
            Some(i) => {
                let target =
                    world.planets.get(i as usize).ok_or(ViewError::NoSuchPlanet { key: "look", planet: i, last })?;
                if i == self.planet {
                    return Err(ViewError::LookAtSelf(i));
                }
                (target.position - position).normalize()
            }
            None => planet.vector_to_system(view_direction(d, self.heading, self.pitch)),
        };
        Ok(Pose::looking(position, forward, planet.vector_to_system(d)))
    }
}

impl Spot {
    /// The spot's name, as views write it.
    #[must_use]
    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, s)| *s == self).map_or("spot", |(n, _)| n)
    }
}

impl ViewSpec {
    /// This view with its spot (if any) replaced by the coordinates it names.
    pub fn resolve(&self, world: &World) -> Result<ViewSpec, ViewError> {
        let Some(spot) = self.spot else { return Ok(*self) };
        let last = world.planets.len().saturating_sub(1);
        let p = world.planets.get(self.planet as usize).ok_or(ViewError::NoSuchPlanet {
            key: "planet",
            planet: self.planet,
            last,
        })?;
        let none = ViewError::NoSpot { spot: spot.name(), planet: self.planet };
        let layout = &p.terrain().layout.data;
        let noon = p.sun_local().as_vec3();
        let lit = |d: glam::Vec3| d.dot(noon) > 0.2;
        let (stand, target, alt) = match spot {
            Spot::River => {
                let mut rivers: Vec<&planet::layout::River> =
                    layout.rivers.iter().filter(|r| r.end == planet::layout::RiverEnd::Sea).collect();
                rivers.sort_by(|a, b| {
                    let (ma, mb) = (a.points.last().map(|q| q.direction), b.points.last().map(|q| q.direction));
                    (mb.is_some_and(lit), b.length_m)
                        .partial_cmp(&(ma.is_some_and(lit), a.length_m))
                        .unwrap_or(std::cmp::Ordering::Equal)
                });
                let river = rivers.first().ok_or(none)?;
                // 60 m up from the mouth, looking 60 m further up.
                let at = |m: f32| {
                    let mut left = m;
                    let mut i = river.points.len() - 1;
                    while i > 0 && left > 0.0 {
                        left -= (river.points[i].direction - river.points[i - 1].direction).length()
                            * p.terrain().recipe.radius_m;
                        i -= 1;
                    }
                    river.points[i]
                };
                let (here, ahead) = (at(60.0), at(120.0));
                let ground = p.terrain().surface_height_at(here.direction);
                (here.direction, ahead.direction, f64::from((here.level_m - ground).max(0.0) + 2.5))
            }
            Spot::Peak => {
                let peak = layout
                    .stamps
                    .iter()
                    .filter(|s| lit(s.centre))
                    .chain(layout.stamps.iter())
                    .fold(None::<&planet::layout::Stamp>, |best, s| match best {
                        Some(b) if b.peak_m >= s.peak_m && (lit(b.centre) || !lit(s.centre)) => Some(b),
                        _ => Some(s),
                    })
                    .ok_or(none)?;
                let back = peak.axis * (peak.radius_m * 1.4 / p.terrain().recipe.radius_m);
                ((peak.centre - back).normalize(), peak.centre, 30.0)
            }
            Spot::Plot => {
                let plot = layout.plots.iter().find(|q| lit(q.centre)).or(layout.plots.first()).ok_or(none)?;
                let side = plot.centre.any_orthonormal_vector() * (plot.radius_m / p.terrain().recipe.radius_m);
                ((plot.centre - side).normalize(), plot.centre, 2.0)
            }
            Spot::Town => town_spot(&p.terrain().settlements, lit).ok_or(none)?,
            Spot::Night => {
                let stand = dry_land_near(p, -noon.as_dvec3());
                let east = DVec3::Y.cross(stand).normalize_or(DVec3::X);
                (stand.as_vec3(), (stand + east * 0.01).normalize().as_vec3(), 2.0)
            }
            Spot::Dawn => {
                // Six hours before noon about the axis: where the ground turns into the light.
                let (axis, sun) = (p.spin.axis(), p.sun_local());
                let morning = sun.cross(axis).normalize_or(sun.any_orthonormal_vector());
                let stand = dry_land_near(p, morning);
                (stand.as_vec3(), (stand + sun * 0.01).normalize().as_vec3(), 2.0)
            }
        };
        let (lat, lon) = lat_lon_of(stand.as_dvec3());
        let up = stand.as_dvec3();
        let toward = target.as_dvec3() - up * target.as_dvec3().dot(up);
        let north = (DVec3::Y - up * up.y).normalize_or(DVec3::X);
        let east = north.cross(up);
        let heading = libm::atan2(toward.dot(east), toward.dot(north)).to_degrees();
        let pitch = if spot == Spot::Peak { 8.0 } else { -4.0 };
        Ok(ViewSpec { planet: self.planet, lat, lon, alt, heading, pitch, look: None, fov: self.fov, spot: None })
    }
}

/// Where `Spot::Town` stands and looks, and how high: the route's start in
/// the sunlit town with the most buildings (any town where none is lit),
/// 2 m up, looking at the route's fourth point.
fn town_spot(
    settlements: &planet::settlements::Settlements,
    lit: impl Fn(glam::Vec3) -> bool,
) -> Option<(glam::Vec3, glam::Vec3, f64)> {
    let sites = &settlements.data.sites;
    let size = |i: usize| settlements.town(i).map_or(0, |t| t.buildings.len());
    let best = (0..sites.len()).max_by_key(|&i| (lit(sites[i].centre), size(i), std::cmp::Reverse(i)))?;
    let town = settlements.town(best)?;
    let frame = settlements.frame(best);
    let at = |k: usize| frame.direction(glam::Vec2::from(town.route[k.min(town.route.len() - 1)]));
    (!town.route.is_empty()).then(|| (at(0), at(3), 2.0))
}

/// Latitude and longitude, degrees, of a planet-local direction (the inverse
/// of `planet::terrain::lat_lon_direction`).
#[must_use]
pub fn lat_lon_of(d: DVec3) -> (f64, f64) {
    let d = d.normalize_or(DVec3::X);
    (libm::asin(d.y.clamp(-1.0, 1.0)).to_degrees(), libm::atan2(d.z, d.x).to_degrees())
}

/// A latitude and longitude on `planet`'s day side with dry land under it: the
/// nearest such point to the spot under the sun, searched on a spiral (the
/// spot itself when the planet has no land above its sea).
#[must_use]
pub fn sunlit_land(world: &World, planet: u32) -> (f64, f64) {
    let p = &world.planets[planet as usize];
    lat_lon_of(dry_land_near(p, p.sun_local()))
}

/// The unit direction of the dry land on `p` nearest unit direction `centre`
/// (noon for `sunlit_land`, midnight for the `night` spot) within 70
/// degrees of it, searched on a spiral (`centre` itself when there is none).
fn dry_land_near(p: &crate::world::WorldPlanet, centre: DVec3) -> DVec3 {
    let sea = p.terrain().recipe.sea;
    let dry = |d: DVec3| {
        let height = f64::from(p.terrain().surface_height_at(d.as_vec3()));
        !sea.enabled || height > f64::from(sea.level_m) + 5.0
    };
    // A Fermat spiral over the cap within 70 degrees of the centre.
    let (east, north) = {
        let e = DVec3::Y.cross(centre).normalize_or(DVec3::X);
        (e, centre.cross(e))
    };
    for i in 0..2000 {
        let t = f64::from(i) / 2000.0;
        let angle = libm::sqrt(t) * 70f64.to_radians();
        let around = f64::from(i) * 2.399_963;
        let tangent = east * libm::cos(around) + north * libm::sin(around);
        let d = (centre * libm::cos(angle) + tangent * libm::sin(angle)).normalize();
        if dry(d) {
            return d;
        }
    }
    centre
}

/// The steepest a cave's tunnel may start down for `sunlit_cave_mouth` to
/// offer it (a walker climbs 45 degrees).
pub const MAX_WALKABLE_DIP_DEG: f32 = 42.0;

/// A cave mouth a person can walk into, on `planet`'s day side over dry
/// land, nearest the spot under the sun, as a view from `back_m` metres in
/// front of it, 4 m up, looking into it; None when the planet has no such
/// cave there. Walkable: its tunnel starts down no steeper than
/// `MAX_WALKABLE_DIP_DEG` (tunnels leave at 35 to 63 degrees).
#[must_use]
pub fn sunlit_cave_mouth(world: &World, planet: u32, back_m: f64) -> Option<ViewSpec> {
    let p = &world.planets[planet as usize];
    let (lat, lon) = sunlit_land(world, planet);
    let centre = planet::terrain::lat_lon_direction(lat as f32, lon as f32) * p.terrain().recipe.radius_m;
    let reach = glam::Vec3::splat(1500.0);
    let capsules = p.terrain().cave_mouths_near(centre - reach, centre + reach);
    let sea = p.terrain().recipe.sea;
    let max_dip = libm::sinf(MAX_WALKABLE_DIP_DEG.to_radians());
    // Each mouth as its sphere and the first segment of its tunnel.
    let mut mouths: Vec<(planet::terrain::Capsule, planet::terrain::Capsule)> = capsules
        .chunks_exact(planet::terrain::CAPSULES_PER_MOUTH)
        .map(|m| (m[0], m[1]))
        .filter(|(sphere, tunnel)| {
            let up = sphere.a.normalize();
            let dip = -(tunnel.b - tunnel.a).normalize_or_zero().dot(up);
            let h = p.terrain().surface_height_at(up);
            dip <= max_dip && (!sea.enabled || h > sea.level_m + 3.0)
        })
        .collect();
    mouths.sort_by(|a, b| a.0.a.distance(centre).total_cmp(&b.0.a.distance(centre)));
    let &(sphere, tunnel) = mouths.first()?;
    // Stand back from the mouth along the tunnel's way in, reversed.
    let up = sphere.a.as_dvec3().normalize();
    let inward = (tunnel.b - tunnel.a).as_dvec3();
    let level = (inward - up * inward.dot(up)).normalize_or(DVec3::X);
    let stand = (sphere.a.as_dvec3() - level * back_m).normalize();
    let (lat, lon) = lat_lon_of(stand);
    let north = (DVec3::Y - stand * stand.y).normalize_or(DVec3::X);
    let east = north.cross(stand);
    let heading = libm::atan2(level.dot(east), level.dot(north)).to_degrees();
    Some(ViewSpec { planet, lat, lon, alt: 4.0, heading, pitch: -12.0, look: None, fov: 60.0, spot: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_parse_and_bad_ones_say_why() {
        let v: ViewSpec = "planet=2, lat=10,lon=-20,alt=300,heading=45,pitch=-10".parse().unwrap();
        assert_eq!((v.planet, v.lat, v.lon, v.alt, v.heading, v.pitch), (2, 10.0, -20.0, 300.0, 45.0, -10.0));
        assert_eq!("look=3".parse::<ViewSpec>().unwrap().look, Some(3));
        assert_eq!("lat=95".parse::<ViewSpec>().unwrap_err().to_string(), "lat = 95: must be in -90..=90");
        assert!("alt=x".parse::<ViewSpec>().unwrap_err().to_string().contains("not a number"));
        assert!("speed=3".parse::<ViewSpec>().unwrap_err().to_string().contains("unknown key `speed`"));
        assert!("lat".parse::<ViewSpec>().unwrap_err().to_string().contains("not key=value"));
        // Strict: no key twice, whole planet numbers, look or heading and pitch.
        let err = |s: &str| s.parse::<ViewSpec>().unwrap_err().to_string();
        assert_eq!(err("lat=1,alt=3,lat=2"), "lat is given twice");
        assert_eq!(err("planet=2.9"), "planet = 2.9: must be a whole number (a planet's index)");
        assert_eq!(err("look=1.5"), "look = 1.5: must be a whole number (a planet's index)");
        assert_eq!(
            err("look=2,heading=90"),
            "look and heading together: look at a planet, or give heading and pitch, not both"
        );
        assert_eq!(
            err("pitch=-5,look=2"),
            "look and pitch together: look at a planet, or give heading and pitch, not both"
        );
        assert_eq!("planet=2.0,look=3".parse::<ViewSpec>().unwrap().planet, 2);
    }

    #[test]
    fn lat_lon_round_trips_and_sunlit_land_is_dry_and_lit() {
        for (lat, lon) in [(10.0, 20.0), (-45.0, -170.0), (80.0, 95.0)] {
            let d = planet::terrain::lat_lon_direction(lat as f32, lon as f32).as_dvec3();
            let (a, b) = lat_lon_of(d);
            assert!((a - lat).abs() < 1e-4 && (b - lon).abs() < 1e-4, "{a} {b}");
        }
        let world = World::new(
            std::sync::Arc::new(planet::PlannedSystem::default_system()),
            crate::WorldSettings { threads: 0, proxy_quads: 4, ..crate::WorldSettings::default() },
        );
        for planet in 0..5 {
            let (lat, lon) = sunlit_land(&world, planet);
            println!("sunlit land of planet {planet}: lat={lat:.4},lon={lon:.4}");
        }
        let (lat, lon) = sunlit_land(&world, 1);
        let p = &world.planets[1];
        let d = planet::terrain::lat_lon_direction(lat as f32, lon as f32);
        assert!(p.terrain().surface_height_at(d) > p.terrain().recipe.sea.level_m);
        assert!(d.as_dvec3().dot(-p.position.normalize()) > 0.3, "not on the day side");
    }

    /// `town` stands in the largest sunlit town at its route's start, by a
    /// landmark, looking along the route.
    #[test]
    fn the_town_spot_stands_at_a_route_start_looking_along_it() {
        let world = World::new(
            std::sync::Arc::new(planet::PlannedSystem::default_system()),
            crate::WorldSettings { threads: 0, proxy_quads: 4, ..crate::WorldSettings::default() },
        );
        let view: ViewSpec = "planet=1,town".parse().unwrap();
        let at = view.resolve(&world).unwrap();
        assert!(at.spot.is_none() && at.alt == 2.0, "{at:?}");
        let p = &world.planets[1];
        let s = &p.terrain().settlements;
        let d = planet::terrain::lat_lon_direction(at.lat as f32, at.lon as f32);
        let (site, metres) = s.nearest(d).unwrap();
        let i = s.data.sites.iter().position(|x| x.cell == site.cell).unwrap();
        let town = s.town(i).unwrap();
        assert!(metres < site.radius_m + 60.0, "{metres} m from the nearest town's centre");
        assert!(d.as_dvec3().dot(-p.position.normalize()) > 0.2, "not on the day side");
        // No other lit town has more buildings.
        let lit = |c: glam::Vec3| c.as_dvec3().dot(-p.position.normalize()) > 0.2;
        let most = (0..s.data.sites.len())
            .filter(|&j| lit(s.data.sites[j].centre))
            .map(|j| s.town(j).unwrap().buildings.len())
            .max()
            .unwrap();
        assert_eq!(town.buildings.len(), most);
        // Heading: towards the route's fourth point.
        let frame = s.frame(i);
        let ahead = frame.direction(glam::Vec2::from(town.route[3.min(town.route.len() - 1)])).as_dvec3();
        let up = d.as_dvec3();
        let north = (DVec3::Y - up * up.y).normalize();
        let east = north.cross(up);
        let want = libm::atan2((ahead - up).dot(east), (ahead - up).dot(north)).to_degrees();
        let turn = (at.heading - want + 540.0).rem_euclid(360.0) - 180.0;
        assert!(turn.abs() < 1.0, "heading {} against {want}", at.heading);
    }

    /// `night` stands on dry land on the night side of every default
    /// planet with land, near the spot opposite the sun.
    #[test]
    fn the_night_spot_is_dry_land_at_midnight() {
        let world = World::new(
            std::sync::Arc::new(planet::PlannedSystem::default_system()),
            crate::WorldSettings { threads: 0, proxy_quads: 4, ..crate::WorldSettings::default() },
        );
        for (i, p) in world.planets.iter().enumerate() {
            let view: ViewSpec = format!("planet={i},night").parse().unwrap();
            let at = view.resolve(&world).unwrap();
            println!("planet {i} night: lat={:.5},lon={:.5},heading={:.1}", at.lat, at.lon, at.heading);
            assert!(at.spot.is_none() && at.alt == 2.0 && at.heading.is_finite(), "{at:?}");
            let d = planet::terrain::lat_lon_direction(at.lat as f32, at.lon as f32);
            let midnight = d.as_dvec3().dot(p.position.normalize());
            assert!(midnight > 0.3, "planet {i}: not on the night side ({midnight})");
            let sea = p.terrain().recipe.sea;
            if p.terrain().layout.data.plots.len() > 10 {
                assert!(!sea.enabled || p.terrain().surface_height_at(d) > sea.level_m, "planet {i}: under the sea");
            }
        }
    }

    /// Spots and views follow the clock: at any time `night` is at local
    /// midnight and `dawn` at six in the morning, and a view's lat and lon
    /// are the same ground however far the planet has turned.
    #[test]
    fn spots_and_views_turn_with_their_planet() {
        let mut world = World::new(
            std::sync::Arc::new(planet::PlannedSystem::default_system()),
            crate::WorldSettings { threads: 0, proxy_quads: 4, ..crate::WorldSettings::default() },
        );
        let mut stream = planet::hash::HashStream::new(5);
        for _ in 0..60 {
            world.set_time(stream.range_f64(0.0, 1e6));
            let i = stream.index(world.planets.len());
            let p = &world.planets[i];
            let hours = |spot: &str| {
                let at = format!("planet={i},{spot}").parse::<ViewSpec>().unwrap().resolve(&world).unwrap();
                let d = planet::terrain::lat_lon_direction(at.lat as f32, at.lon as f32).as_dvec3();
                p.solar_hours(d)
            };
            // Within the 70-degree search cap of the spot, land permitting: a few hours.
            let off = |h: f64, want: f64| ((h - want + 36.0).rem_euclid(24.0) - 12.0).abs();
            if p.terrain().layout.data.plots.len() > 10 {
                assert!(off(hours("night"), 0.0) < 4.7, "planet {i} night at {:.2} h", hours("night"));
                assert!(off(hours("dawn"), 6.0) < 4.7, "planet {i} dawn at {:.2} h", hours("dawn"));
            }
            let view = ViewSpec {
                planet: i as u32,
                lat: stream.range_f64(-80.0, 80.0),
                lon: stream.range_f64(-180.0, 180.0),
                alt: 50.0,
                ..ViewSpec::default()
            };
            let pose = view.pose(&world).unwrap();
            let local = p.to_local(pose.position);
            let d = planet::terrain::lat_lon_direction(view.lat as f32, view.lon as f32).as_dvec3();
            assert!(local.normalize().distance(d) < 1e-6, "the view is not on its ground");
            assert!(p.vector_to_local(pose.up).dot(d) > 0.999, "the view's up is not the ground's up");
        }
    }

    #[test]
    fn a_cave_mouth_is_found_and_faced() {
        let world = World::new(
            std::sync::Arc::new(planet::PlannedSystem::default_system()),
            crate::WorldSettings { threads: 0, proxy_quads: 4, ..crate::WorldSettings::default() },
        );
        let view = sunlit_cave_mouth(&world, 1, 15.0).expect("the home planet has caves");
        println!("cave mouth view: lat={:.5},lon={:.5},heading={:.1}", view.lat, view.lon, view.heading);
        assert!(view.lat.is_finite() && view.heading.is_finite());
    }

    #[test]
    fn poses_are_orthonormal_and_up_is_up() {
        let p = Pose::looking(DVec3::ZERO, DVec3::new(1.0, 2.0, 0.5), DVec3::Y);
        assert!(p.forward.dot(p.up).abs() < 1e-12 && (p.up.length() - 1.0).abs() < 1e-12 && p.up.y > 0.0);
        let straight_down = Pose::looking(DVec3::ZERO, DVec3::NEG_Y, DVec3::Y);
        assert!(straight_down.up.is_finite() && straight_down.forward.dot(straight_down.up).abs() < 1e-12);
    }
}
