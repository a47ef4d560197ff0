//! Glide: an object belongs to its cell, not its region, so when regions
//! replace others (a finer one its parent, a coarser one its children) the
//! arriving ones hold many of the leaving ones' objects, with the same ids,
//! seated on other ground. Those objects start where they were shown, are
//! drawn at once instead of dithering in, and glide onto the new ground over
//! [`GLIDE_S`]; the leaving region's copies are hidden at once. So an object
//! never pops, doubles or jumps when the ground under it refines; objects
//! only one side holds (grass at a coarse LOD) dissolve with their region.

use std::collections::BTreeMap;

use glam::DVec3;
use planet::RegionKey;

use crate::meshes::Instance;

/// Seconds an object takes to glide onto a new region's ground.
pub const GLIDE_S: f64 = 0.5;

/// `Instance::carried` of an object carried over from a leaving region.
pub const CARRIED: f32 = 1.0;

/// The objects of the regions leaving in one update, by planet and id:
/// the region, the object's index in its instances, and the distance of its
/// base from the planet's centre, metres.
#[derive(Debug, Default)]
pub struct Departures {
    by_id: BTreeMap<(u32, u64), (RegionKey, u32, f64)>,
}

impl Departures {
    /// Adds a leaving region's objects (`ids[i]` is `instances[i]`'s).
    pub fn add(&mut self, planet: u32, key: RegionKey, origin: DVec3, ids: &[u64], instances: &[Instance]) {
        for (i, (&id, o)) in ids.iter().zip(instances).enumerate() {
            if o.size > 0.0 {
                self.by_id.insert((planet, id), (key, i as u32, radial(origin, o)));
            }
        }
    }

    /// Marks the objects of an arriving region (planet-local `origin`) that
    /// a leaving region showed: carried, gliding from the height they were
    /// shown at. Returns the leaving copies to hide, (region, index).
    pub fn carry(&self, planet: u32, origin: DVec3, ids: &[u64], instances: &mut [Instance]) -> Vec<(RegionKey, u32)> {
        let mut hide = Vec::new();
        if self.by_id.is_empty() {
            return hide;
        }
        for (&id, o) in ids.iter().zip(instances.iter_mut()) {
            if let Some(&(key, index, shown_at)) = self.by_id.get(&(planet, id)) {
                o.glide_m = (shown_at - radial(origin, o)) as f32;
                o.carried = CARRIED;
                hide.push((key, index));
            }
        }
        hide
    }
}

/// The distance of an instance's base from its planet's centre.
fn radial(origin: DVec3, o: &Instance) -> f64 {
    (origin + DVec3::from_array(o.base.map(f64::from))).length()
}

/// The share of its glide an object still has to go `age` seconds after
/// its region arrived: 1 then, easing to 0 at [`GLIDE_S`].
#[must_use]
pub fn remaining(age: f64) -> f32 {
    let t = (age / GLIDE_S).clamp(0.0, 1.0) as f32;
    1.0 - t * t * (3.0 - 2.0 * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instance(base: [f32; 3]) -> Instance {
        Instance { base, yaw: 0.0, size: 2.0, color: [255; 4], glide_m: 0.0, carried: 0.0 }
    }

    /// A parent leaving and its child arriving share most objects: those
    /// glide from the parent's heights (whatever the two origins) and the
    /// parent's copies are hidden; the rest, and other planets' objects
    /// with the same ids, are left alone.
    #[test]
    fn shared_objects_glide_from_where_they_were_shown() {
        let parent_key: RegionKey = "0/1/4/4/0".parse().unwrap();
        let (parent_origin, child_origin) = (DVec3::new(0.0, 0.0, 6.0e5), DVec3::new(120.0, -40.0, 6.0e5 - 3.0));
        let mut departures = Departures::default();
        // The parent showed ids 0..100 at 1.5 m above where the child seats them.
        let mut shown = Vec::new();
        let mut child = Vec::new();
        for i in 0..100 {
            let along = [i as f32 * 3.0 - 150.0, 40.0 - i as f32, 0.0];
            let child_base = [along[0] - 120.0, along[1] + 40.0, 3.0];
            let up = (child_origin + DVec3::from_array(child_base.map(f64::from))).normalize();
            let parent_at = child_origin + DVec3::from_array(child_base.map(f64::from)) + up * 1.5 - parent_origin;
            shown.push(instance(parent_at.as_vec3().to_array()));
            child.push(instance(child_base));
        }
        let ids: Vec<u64> = (0..100).collect();
        // A hidden copy (size 0) is not a departure.
        shown[60].size = 0.0;
        departures.add(0, parent_key, parent_origin, &ids, &shown);
        // The child holds ids 50..150; planet 1 also has ids 0..100.
        let child_ids: Vec<u64> = (50..150).collect();
        let mut arriving: Vec<Instance> = child[50..].iter().copied().chain(child[..50].iter().copied()).collect();
        let hide = departures.carry(0, child_origin, &child_ids, &mut arriving);
        assert_eq!(hide, (50..100).filter(|&i| i != 60).map(|i| (parent_key, i)).collect::<Vec<_>>());
        for (o, &id) in arriving.iter().zip(&child_ids) {
            if id < 100 && id != 60 {
                assert!((o.glide_m - 1.5).abs() < 2e-3, "id {id}: glide {}", o.glide_m);
                assert_eq!(o.carried, CARRIED);
            } else {
                assert_eq!((o.glide_m, o.carried), (0.0, 0.0), "id {id}");
            }
        }
        let mut other = child.clone();
        assert!(departures.carry(1, child_origin, &ids, &mut other).is_empty());
        assert!(other.iter().all(|o| o.glide_m == 0.0 && o.carried == 0.0));
    }

    #[test]
    fn the_glide_eases_from_all_to_none() {
        assert_eq!(remaining(0.0), 1.0);
        assert_eq!(remaining(GLIDE_S), 0.0);
        assert_eq!(remaining(10.0), 0.0);
        let samples: Vec<f32> = (0..=50).map(|i| remaining(f64::from(i) * GLIDE_S / 50.0)).collect();
        assert!(samples.windows(2).all(|w| w[1] <= w[0]));
        assert!((remaining(GLIDE_S / 2.0) - 0.5).abs() < 1e-6);
    }
}
