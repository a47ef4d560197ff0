//! What a region keeps, counted: `BuiltRegion::bytes`, which the region
//! cache's budget sums, against a counting allocator (`stats_alloc`) over
//! random regions of every planet and LOD, face edges and corners among
//! them, to the byte, built with their physics and without; every buffer
//! a region keeps fills the allocator block its length needs
//! (`planet::heap`), so the bytes asked for are the bytes held; and
//! physics given to a region later are the ones a whole build makes. The
//! one test of this binary owns the allocator's count: no other thread
//! allocates while it measures.

use std::alloc::System;
use std::sync::Arc;

use engine::{BuiltRegion, PlanetBuilder, RegionBuilder};
use jobs::CancelToken;
use planet::PlannedSystem;
use planet::edit::RegionEdits;
use planet::geometry::seam_biased_direction;
use planet::hash::HashStream;
use planet::heap::{block_bytes, block_capacity};
use planet::mesh::{Indices, MeshPart};
use planet::physics::{Collider, NavMesh};
use planet::terrain::Terrain;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

#[test]
fn a_regions_bytes_are_what_it_holds() {
    let system = PlannedSystem::default_system();
    let mut s = HashStream::new(0xb17e5);
    let (mut regions, mut counted, mut held, mut empty) = (0usize, 0usize, 0usize, 0usize);
    let (mut worst, mut light_counted, mut light_held) = ((0usize, 0usize), 0usize, 0usize);
    for plan in &system.planets {
        let builder = PlanetBuilder::new(Arc::new(Terrain::new(plan)));
        for _ in 0..40 {
            let lod = s.index(usize::from(builder.terrain().grid.max_lod) + 1) as u8;
            let mut key = builder.terrain().surface_key(seam_biased_direction(&mut s), lod);
            // Now and then the region above the surface's: most of those are empty.
            if s.index(4) == 0 {
                key = builder.terrain().grid.neighbour(key, 0, 0, 1).unwrap_or(key);
            }
            // The first build fills the terrain's caches made on first use
            // (towns, layout cells); the second is what a region keeps.
            drop(builder.build(key, &CancelToken::new()));
            let whole = Region::new(ALLOCATOR);
            let counting = Region::new(ALLOCATOR);
            let region = Arc::new(builder.build(key, &CancelToken::new()).expect("not cancelled"));
            assert!(region.physics && region.collider.is_some() && region.navmesh.is_some());
            let change = counting.change();
            // (A reallocation counts as the new block allocated and the old one freed.)
            let kept = change.bytes_allocated - change.bytes_deallocated + ARC_ROUNDING;
            let bytes = region.bytes();
            let loose = loose_buffers(&region);
            assert!(loose.is_empty(), "{key}: buffers that do not fill their blocks: {loose:?}");
            if kept.abs_diff(bytes) > worst.0.abs_diff(worst.1) {
                worst = (kept, bytes);
            }
            regions += 1;
            counted += bytes;
            held += kept;
            empty += usize::from(region.mesh.terrain.vertices.is_empty());
            // Without its physics, then given them.
            let counting = Region::new(ALLOCATOR);
            let light = Arc::new(
                builder.build_with(key, &RegionEdits::default(), false, &CancelToken::new()).expect("not cancelled"),
            );
            let change = counting.change();
            let kept = change.bytes_allocated - change.bytes_deallocated + ARC_ROUNDING;
            let loose = loose_buffers(&light);
            assert!(loose.is_empty(), "{key}: without physics, buffers that do not fill their blocks: {loose:?}");
            assert_eq!(
                kept,
                light.bytes(),
                "{key}: a region without physics holds {kept} bytes, counts {}",
                light.bytes()
            );
            assert!(!light.physics && light.collider.is_none() && light.navmesh.is_none());
            // What the cache keeps of a region the camera has left: the same.
            let dropped = region.without_physics();
            let loose = loose_buffers(&dropped);
            assert!(loose.is_empty(), "{key}: its physics dropped, buffers that do not fill their blocks: {loose:?}");
            assert_eq!(dropped.bytes(), light.bytes(), "{key}: its physics dropped");
            drop(dropped);
            (light_counted, light_held) = (light_counted + light.bytes(), light_held + kept);
            let given =
                builder.add_physics(&light, &RegionEdits::default(), &CancelToken::new()).expect("not cancelled");
            assert!(given.physics);
            assert_eq!(given.mesh.signature(), region.mesh.signature(), "{key}");
            assert_eq!(sig(&given.collider), sig(&region.collider), "{key}: the collider given later differs");
            assert_eq!(
                given.navmesh.as_ref().map(NavMesh::signature),
                region.navmesh.as_ref().map(NavMesh::signature),
                "{key}: the navmesh given later differs"
            );
            assert_eq!(given.bytes(), region.bytes(), "{key}");
            drop((region, light, given));
            let after = whole.change();
            assert_eq!(
                after.bytes_allocated, after.bytes_deallocated,
                "{key}: bytes left once the regions are dropped"
            );
        }
    }
    println!(
        "without their physics: bytes() {} KiB, allocator {} KiB ({:.0}% of the whole regions)",
        light_counted / 1024,
        light_held / 1024,
        100.0 * light_counted as f64 / counted as f64
    );
    assert_eq!(light_held, light_counted);
    println!(
        "{regions} regions ({empty} empty): bytes() {} KiB, allocator {} KiB; worst region {} against {} bytes",
        counted / 1024,
        held / 1024,
        worst.1,
        worst.0
    );
    assert!(regions >= 200 && empty >= 10, "{regions} regions, {empty} of them empty: too few to judge");
    // To the byte: a buffer `bytes` leaves out shows here.
    assert_eq!(worst.0, worst.1, "a region holds {} bytes but counts {}", worst.0, worst.1);
    assert_eq!(held, counted, "regions hold {held} bytes but count {counted}");
}

/// What the allocator adds to the `Arc` block that holds a region (the
/// struct and two counts), which `bytes` counts as the block it takes.
const ARC_ROUNDING: usize = block_bytes(ARC) - ARC;
const ARC: usize = size_of::<BuiltRegion>() + 2 * size_of::<usize>();

/// Whether `v`'s capacity is the one that fills the allocator block of its length.
fn fits<T>(v: &[T], capacity: usize) -> bool {
    capacity == block_capacity(v.len(), size_of::<T>())
}

fn indices_fit(i: &Indices) -> bool {
    match i {
        Indices::U16(v) => fits(v, v.capacity()),
        Indices::U32(v) => fits(v, v.capacity()),
    }
}

/// The buffers of `region` whose capacity is not the one that fills the
/// allocator block of their length.
fn loose_buffers(region: &BuiltRegion) -> Vec<String> {
    let mut loose = Vec::new();
    let mut note = |name: &str, fit: bool| {
        if !fit {
            loose.push(name.to_owned());
        }
    };
    let parts: [(&str, &MeshPart); 3] =
        [("terrain", &region.mesh.terrain), ("blocks", &region.mesh.blocks), ("water", &region.mesh.water)];
    for (name, part) in parts {
        note(&format!("{name} vertices"), fits(&part.vertices, part.vertices.capacity()));
        note(&format!("{name} indices"), indices_fit(&part.indices));
        note(&format!("{name} overlap"), indices_fit(&part.overlap));
    }
    if let Some(c) = &region.collider {
        note("collider vertices", fits(&c.vertices, c.vertices.capacity()));
        note("collider corners", indices_fit(&c.corners));
        note("collider nodes", fits(&c.bvh.nodes, c.bvh.nodes.capacity()));
    }
    if let Some(n) = &region.navmesh {
        note("navmesh vertices", fits(&n.vertices, n.vertices.capacity()));
        note("navmesh polygons", fits(&n.polygons, n.polygons.capacity()));
    }
    if let Some(s) = &region.scatter {
        note("scatter objects", fits(&s.objects, s.objects.capacity()));
        note("scatter buildings", fits(&s.buildings, s.buildings.capacity()));
    }
    loose
}

fn sig(collider: &Option<Collider>) -> Option<planet::Signature> {
    collider.as_ref().map(Collider::signature)
}
