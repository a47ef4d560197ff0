use super::*;
use crate::PlannedSystem;
use crate::mesh::{CubeMesh, SphereMesh};
use crate::physics::{Collider, NavMesh};
use crate::pipeline::stages::{COLLIDER, COLUMNS, CUBE_MESH, NAVMESH, PLANET_PLAN, SPHERE_MESH, VOXELS};
use crate::pipeline::{Chain, RegionInput, StageOutput};
use crate::plan::PlanetPlan;
use crate::recipe::SystemRecipe;
use crate::terrain::VoxelGrid;

/// Every stage of a small region of the default system.
fn chain(key: &str) -> (Chain, SystemRecipe) {
    let recipe = SystemRecipe::default_system();
    let input = RegionInput::new(&recipe, 1, key.parse().unwrap());
    let mut chain = Chain::default();
    let all = 0..Pipeline::standard().stages().len();
    Pipeline::standard().run(&input, &mut chain, all, &|| false, |_, _| {}).unwrap();
    (chain, recipe)
}

fn out<T: crate::pipeline::StageValue>(stage: Stage, value: T) -> StageOutput {
    StageOutput::new(stage, value).unwrap()
}

fn value<T: crate::pipeline::StageValue>(chain: &Chain, stage: Stage) -> T {
    chain.value::<T>(stage).unwrap().clone()
}

#[test]
fn every_stage_round_trips_bit_for_bit() {
    let (chain, _) = chain("0/6/2/2/0");
    assert_eq!(chain.value::<PlanetPlan>(&PLANET_PLAN), PlannedSystem::default_system().planet(1));
    for &stage in Pipeline::standard().stages() {
        let out = chain.get(stage).unwrap().clone();
        let bytes = out.encode(crate::GENERATOR_VERSION);
        let back = StageOutput::decode(stage, &bytes).unwrap();
        assert_eq!(back, out, "{stage}");
        assert_eq!(out.difference(&back), None, "{stage}");
        // Encoding is canonical: the same output, the same bytes.
        assert_eq!(back.encode(crate::GENERATOR_VERSION), bytes, "{stage}");
    }
    // The collider read back rebuilds its BVH: the same collider, BVH included.
    let (col, nav) = (value::<Collider>(&chain, &COLLIDER), value::<NavMesh>(&chain, &NAVMESH));
    let back = StageOutput::decode(&COLLIDER, &out(&COLLIDER, col.clone()).encode(1)).unwrap();
    let back = back.get::<Collider>().unwrap();
    assert_eq!(back.signature(), col.signature());
    assert!(col.triangle_count() > 1000 && !nav.polygons.is_empty(), "{col:?}: {} polygons", nav.polygons.len());
    let recipe = SystemRecipe::default_system();
    let input = RegionInput::new(&recipe, 1, "0/6/2/2/0".parse().unwrap());
    assert!(Pipeline::standard().check_chain(&chain, &input).is_empty());
}

#[test]
fn damaged_binary_files_are_refused_with_the_reason() {
    let (chain, _) = chain("0/6/2/2/0");
    for &stage in Pipeline::standard().stages().iter().filter(|s| !s.json) {
        let good = chain.get(stage).unwrap().encode(1);
        let message = |bytes: &[u8]| StageOutput::decode(stage, bytes).unwrap_err().0;
        // Truncated anywhere: in the preamble, the header, the payload.
        for len in [0, 5, 11, 40, good.len() / 2, good.len() - 1] {
            assert!(message(&good[..len]).contains("truncated"), "{stage} at {len}: {}", message(&good[..len]));
        }
        let mut longer = good.clone();
        longer.push(0);
        assert!(message(&longer).contains("too long"));
        // A flipped bit in the payload, the magic or the header.
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 0x10;
        assert!(message(&flipped).contains("damaged"), "{}", message(&flipped));
        let mut magic = good.clone();
        magic[2] ^= 1;
        assert!(message(&magic).contains("magic"));
        let header_len = u32::from_le_bytes(good[8..12].try_into().unwrap()) as usize;
        let text = String::from_utf8(good[12..12 + header_len].to_vec()).unwrap();
        let at = 12 + text.find("\"payload_bytes\"").unwrap() + 1;
        let mut header = good.clone();
        header[at] ^= 0x20; // "payload_bytes" -> "Payload_bytes"
        assert!(message(&header).starts_with("header: "), "{}", message(&header));
        // Another stage's file.
        let other: Stage = if stage == &VOXELS { &COLUMNS } else { &VOXELS };
        assert!(StageOutput::decode(other, &good).unwrap_err().0.contains("holds another stage"));
    }
}

#[test]
fn differences_name_the_element_and_field() {
    let (chain, _) = chain("0/6/2/2/0");
    let mut voxels = value::<VoxelGrid>(&chain, &VOXELS);
    voxels.voxels[(4 * 36 + 3) * 36 + 5].density += 1;
    let d = chain.get(&VOXELS).unwrap().difference(&out(&VOXELS, voxels));
    assert!(d.unwrap().starts_with("voxels[3, 4, 5].density: dumped "));

    let mut plan = value::<PlanetPlan>(&chain, &PLANET_PLAN);
    plan.recipe.caves.worm_threshold = 0.25;
    let d = chain.get(&PLANET_PLAN).unwrap().difference(&out(&PLANET_PLAN, plan));
    assert!(d.unwrap().starts_with("recipe.caves.worm_threshold: dumped "));

    let mut mesh = value::<CubeMesh>(&chain, &CUBE_MESH);
    mesh.terrain.vertices[7].local.z += 0.5;
    let d = chain.get(&CUBE_MESH).unwrap().difference(&out(&CUBE_MESH, mesh));
    assert!(d.unwrap().starts_with("terrain.vertices[7].local.z: dumped "));
}

#[test]
fn chains_with_edits_that_break_validation_are_reported() {
    let (mut chain, recipe) = chain("0/6/2/2/0");
    let key = "0/6/2/2/0".parse().unwrap();
    let check =
        |chain: &Chain, planet| Pipeline::standard().check_chain(chain, &RegionInput::new(&recipe, planet, key));
    let mut plan = value::<PlanetPlan>(&chain, &PLANET_PLAN);
    plan.recipe.caves.worm_threshold = 5.0;
    chain.set(out(&PLANET_PLAN, plan));
    let errors = check(&chain, 1);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, &PLANET_PLAN);
    assert!(errors[0].1.starts_with("recipe.caves.worm_threshold = 5: must be in"), "{errors:?}");
    let (mut chain, _) = self::chain("0/6/2/2/0");
    let mut voxels = value::<VoxelGrid>(&chain, &VOXELS);
    voxels.voxels[0].materials[1] = 200;
    chain.set(out(&VOXELS, voxels));
    assert_eq!(check(&chain, 1)[0].1.split(": must").next(), Some("voxels[0, 0, 0].materials[1] = 200"));
    assert!(check(&self::chain("0/6/2/2/0").0, 9)[0].1.contains("no planet with index 9"));
}

#[test]
fn manifests_check_their_shape() {
    let entry = |s: &Stage| StageEntry { stage: s, file: FileEntry::of(&s.file(), b"x"), time_ms: 1.0 };
    let m = Manifest {
        format: DUMP_FORMAT,
        generator_version: 1,
        signature: Signature(7),
        planet: 1,
        planet_signature: Signature(8),
        key: "0/6/2/2/0".into(),
        recipe: FileEntry::of(RECIPE_FILE, b"{}"),
        stages: Pipeline::standard().stages().iter().map(entry).collect(),
        replayed_from: None,
    };
    assert_eq!(Manifest::from_json(&m.to_json()).unwrap(), m);
    let text = String::from_utf8(m.to_json()).unwrap();
    let bad = text.replace("0/6/2/2/0", "0/6/2/2").replace("\"voxels\"", "\"voxel\"");
    let e = Manifest::from_json(bad.as_bytes()).unwrap_err().0;
    assert!(e.contains("stages[5].stage") && e.contains(r#"unknown stage "voxel""#), "{e}");
    let e = Manifest::from_json(text.replace("0/6/2/2/0", "0/6/2/2").as_bytes()).unwrap_err().0;
    assert!(e.starts_with("key = \"0/6/2/2\""), "{e}");
    let e = Manifest::from_json(&m.to_json()[..100]).unwrap_err().0;
    assert!(e.starts_with("truncated"), "{e}");
    let find = |name: &str| Pipeline::standard().find(name);
    assert_eq!(find("PlanetPlan"), Ok(&PLANET_PLAN));
    assert_eq!(find("cube-mesh"), Ok(&CUBE_MESH));
    assert!(find("mesh").unwrap_err().contains("system_plan, planet_plan"));
}

/// A binary stage file with its payload or header changed and the payload's
/// hash made right again: damage only the checks past the hash can see.
fn rehashed(good: &[u8], edit_header: impl FnOnce(&mut Header), edit_payload: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let header_len = u32::from_le_bytes(good[8..12].try_into().unwrap()) as usize;
    let mut header: Header = serde_json::from_slice(&good[12..12 + header_len]).unwrap();
    let mut payload = good[12 + header_len..].to_vec();
    edit_payload(&mut payload);
    edit_header(&mut header);
    header.payload_bytes = payload.len() as u64;
    header.payload_hash = hash_hex(&payload);
    let json = serde_json::to_vec(&header).unwrap();
    let mut out = binary::MAGIC.to_vec();
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&payload);
    out
}

/// Where section `name` starts in the payload.
fn section_start(good: &[u8], name: &str) -> usize {
    let header_len = u32::from_le_bytes(good[8..12].try_into().unwrap()) as usize;
    let header: Header = serde_json::from_slice(&good[12..12 + header_len]).unwrap();
    let mut at = 0;
    for s in &header.sections {
        if s.name == name {
            return at;
        }
        at += s.count as usize * s.element_bytes as usize;
    }
    panic!("no section {name}");
}

#[test]
fn physics_files_with_bad_contents_are_refused_naming_the_field() {
    let (chain, _) = chain("0/6/2/2/0");
    let col = chain.get(&COLLIDER).unwrap().encode(1);
    let nav = chain.get(&NAVMESH).unwrap().encode(1);
    let message = |stage: Stage, bytes: &[u8]| StageOutput::decode(stage, bytes).unwrap_err().0;
    let put_u32 = |at: usize, v: u32| move |p: &mut Vec<u8>| p[at..at + 4].copy_from_slice(&v.to_le_bytes());

    // A triangle's corner past the vertices (building the tree would panic).
    let vertices = value::<Collider>(&chain, &COLLIDER).vertices.len();
    let at = section_start(&col, "triangles") + 12 * 5 + 4;
    let bad = rehashed(&col, |_| {}, put_u32(at, vertices as u32));
    assert_eq!(
        message(&COLLIDER, &bad),
        format!("triangles[5].vertices[1] = {vertices}: must be in 0..{vertices} (the vertex count)")
    );
    // A coordinate that is not finite.
    let at = section_start(&col, "vertices") + 12 * 3 + 8;
    let bad = rehashed(&col, |_| {}, put_u32(at, f32::NAN.to_bits()));
    assert_eq!(message(&COLLIDER, &bad), "vertices[3].z = NaN: must be finite");
    // A triangle count the payload cannot hold, a layout that is not the collider's.
    let bad = rehashed(&col, |h| h.sections[2].count += 1, |_| {});
    assert!(message(&COLLIDER, &bad).starts_with("header.sections[2].count = "), "{}", message(&COLLIDER, &bad));
    let bad = rehashed(&col, |h| h.sections[2].layout = "a:u32 b:u32 c:u32".into(), |_| {});
    assert!(message(&COLLIDER, &bad).starts_with("header.sections[2].layout = \"a:u32 b:u32 c:u32\": must be"));

    // A navmesh polygon's corner, neighbour or corner count out of range,
    // and a slot past its corners in use (a polygon is 36 bytes: its count,
    // four corners, four neighbours).
    let n = value::<NavMesh>(&chain, &NAVMESH);
    let (nv, np) = (n.vertices.len(), n.polygons.len());
    let at = section_start(&nav, "polygons") + 36 * (np - 1);
    let bad = rehashed(&nav, |_| {}, put_u32(at + 4 + 8, nv as u32 + 7));
    assert_eq!(
        message(&NAVMESH, &bad),
        format!("polygons[{}].vertices[2] = {}: must be in 0..{nv} (the vertex count)", np - 1, nv + 7)
    );
    let bad = rehashed(&nav, |_| {}, put_u32(at + 4 + 16 + 4, np as u32));
    assert_eq!(
        message(&NAVMESH, &bad),
        format!(
            "polygons[{}].neighbours[1] = {np}: must be in 0..{np} (the polygon count) or 4294967295 (no neighbour)",
            np - 1
        )
    );
    let bad = rehashed(&nav, |_| {}, put_u32(at, 7));
    assert_eq!(message(&NAVMESH, &bad), format!("polygons[{}].count = 7: must be in 3..=4", np - 1));
    let t = n.polygons.iter().position(|p| p.count == 3).expect("a navmesh has triangles left");
    let bad = rehashed(&nav, |_| {}, put_u32(section_start(&nav, "polygons") + 36 * t + 4 + 12, 0));
    assert_eq!(
        message(&NAVMESH, &bad),
        format!(
            "polygons[{t}].vertices[3] = 0, neighbours[3] = 4294967295: both must be 4294967295 past the polygon's 3 \
             corners"
        )
    );
    // Two origins.
    let bad = rehashed(&nav, |h| h.sections[0].count = 2, |p| p.splice(0..0, [0; 24]).for_each(drop));
    assert_eq!(message(&NAVMESH, &bad), "origin: 2 elements, must be 1");
}

/// A change to what the navmesh is built from (its settings, the mesh under
/// it, the collider over it) shows as a difference naming the element.
#[test]
fn changes_to_the_physics_inputs_are_named() {
    let (chain, recipe) = chain("0/6/2/2/0");
    let input = RegionInput::new(&recipe, 1, "0/6/2/2/0".parse().unwrap());
    let nav = chain.get(&NAVMESH).unwrap().clone();
    let rerun = |chain: &Chain| NAVMESH.run(&input, chain).unwrap();
    assert_eq!(nav.difference(&rerun(&chain)), None);

    // Without a sea, the sea floor is walkable too: more polygons.
    let mut dry = chain.clone();
    let mut plan = value::<PlanetPlan>(&chain, &PLANET_PLAN);
    plan.recipe.sea.enabled = false;
    dry.set(out(&PLANET_PLAN, plan));
    let d = nav.difference(&rerun(&dry)).expect("the sea floor is walkable without a sea");
    assert!(d.starts_with("vertices[") || d.starts_with("polygons["), "{d}");

    // A steeper limit than the recipe's: checked on the navmesh function, as the stage calls it.
    let (mesh, col) = (value::<SphereMesh>(&chain, &SPHERE_MESH), value::<Collider>(&chain, &COLLIDER));
    let mut settings = crate::physics::NavSettings::for_recipe(&value::<PlanetPlan>(&chain, &PLANET_PLAN).recipe);
    settings.max_slope_deg = 10.0;
    let flat = out(&NAVMESH, crate::physics::navmesh(&mesh, &col, &settings));
    let d = nav.difference(&flat).expect("fewer walkable slopes");
    assert!(d.contains("elements differ"), "{d}");

    // A corner of a walkable triangle raised a centimetre: the collider and
    // the navmesh both name a vertex.
    let n = nav.get::<NavMesh>().unwrap();
    let mut moved = chain.clone();
    let mut raised = mesh.clone();
    let corner = raised.terrain.vertices.iter().position(|v| v.position == n.vertices[0]).unwrap();
    let p = glam::Vec3::from_array(raised.terrain.vertices[corner].position);
    let up = (mesh.origin + p.as_dvec3()).normalize().as_vec3();
    raised.terrain.vertices[corner].position = (p + up * 0.01).to_array();
    moved.set(out(&SPHERE_MESH, raised));
    let col_after = COLLIDER.run(&input, &moved).unwrap();
    let d = chain.get(&COLLIDER).unwrap().difference(&col_after).unwrap();
    assert!(d.starts_with("vertices["), "{d}");
    moved.set(col_after);
    let d = nav.difference(&rerun(&moved)).unwrap();
    assert!(d.starts_with("vertices[0]."), "{d}");
}

/// The physics stages give the same bytes, the collider's BVH included, on
/// several threads at once as on one.
#[test]
fn physics_stages_agree_across_threads() {
    let (chain, recipe) = chain("4/0/103/101/0");
    let input = RegionInput::new(&recipe, 1, "4/0/103/101/0".parse().unwrap());
    for stage in [&COLLIDER, &NAVMESH] {
        let one = chain.get(stage).unwrap();
        let runs: Vec<StageOutput> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4).map(|_| s.spawn(|| stage.run(&input, &chain).unwrap())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for out in &runs {
            assert_eq!(one.difference(out), None, "{stage}");
            assert_eq!(out.encode(1), one.encode(1), "{stage}");
        }
        if let (Some(a), Some(b)) = (one.get::<Collider>(), runs[3].get::<Collider>()) {
            assert_eq!(a.signature(), b.signature());
        }
    }
}
