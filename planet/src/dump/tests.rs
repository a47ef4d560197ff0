use super::*;
use crate::PlannedSystem;
use crate::recipe::SystemRecipe;

/// Every stage of a small region of the default system.
fn chain(key: &str) -> (Chain, SystemRecipe) {
    let recipe = SystemRecipe::default_system();
    let input = RegionInput { recipe: &recipe, planet: 1, key: key.parse().unwrap() };
    let mut chain = Chain::default();
    for stage in Stage::ALL {
        let out = run_stage(stage, &input, &chain).unwrap();
        chain.set(out);
    }
    (chain, recipe)
}

#[test]
fn every_stage_round_trips_bit_for_bit() {
    let (chain, _) = chain("0/6/2/2/0");
    assert_eq!(chain.planet_plan.as_ref(), PlannedSystem::default_system().planet(1));
    for stage in Stage::ALL {
        let out = chain.get(stage).unwrap();
        let bytes = out.encode(crate::GENERATOR_VERSION);
        let back = StageOutput::decode(stage, &bytes).unwrap();
        assert_eq!(back, out, "{stage}");
        assert_eq!(first_difference(&out, &back), None, "{stage}");
        // Encoding is canonical: the same output, the same bytes.
        assert_eq!(back.encode(crate::GENERATOR_VERSION), bytes, "{stage}");
    }
    assert!(check_chain(&chain, 1, "0/6/2/2/0".parse().unwrap()).is_empty());
}

#[test]
fn damaged_binary_files_are_refused_with_the_reason() {
    let (chain, _) = chain("0/6/2/2/0");
    for stage in [Stage::Columns, Stage::Voxels, Stage::CubeMesh, Stage::SphereMesh] {
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
        let other = if stage == Stage::Voxels { Stage::Columns } else { Stage::Voxels };
        assert!(StageOutput::decode(other, &good).unwrap_err().0.contains("holds another stage"));
    }
}

#[test]
fn differences_name_the_element_and_field() {
    let (chain, _) = chain("0/6/2/2/0");
    let mut voxels = chain.voxels.clone().unwrap();
    voxels.voxels[(4 * 36 + 3) * 36 + 5].density += 1;
    let d = first_difference(&StageOutput::Voxels(chain.voxels.clone().unwrap()), &StageOutput::Voxels(voxels));
    assert!(d.unwrap().starts_with("voxels[3, 4, 5].density: dumped "));

    let mut plan = chain.planet_plan.clone().unwrap();
    plan.recipe.caves.worm_threshold = 0.25;
    let d =
        first_difference(&StageOutput::PlanetPlan(chain.planet_plan.clone().unwrap()), &StageOutput::PlanetPlan(plan));
    assert!(d.unwrap().starts_with("recipe.caves.worm_threshold: dumped "));

    let mut mesh = chain.cube_mesh.clone().unwrap();
    mesh.terrain.vertices[7].local.z += 0.5;
    let d = first_difference(&StageOutput::CubeMesh(chain.cube_mesh.clone().unwrap()), &StageOutput::CubeMesh(mesh));
    assert!(d.unwrap().starts_with("terrain.vertices[7].local.z: dumped "));
}

#[test]
fn chains_with_edits_that_break_validation_are_reported() {
    let (mut chain, _) = chain("0/6/2/2/0");
    let key = "0/6/2/2/0".parse().unwrap();
    chain.planet_plan.as_mut().unwrap().recipe.caves.worm_threshold = 5.0;
    let errors = check_chain(&chain, 1, key);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, Stage::PlanetPlan);
    assert!(errors[0].1.starts_with("recipe.caves.worm_threshold = 5: must be in"), "{errors:?}");
    let (mut chain, _) = self::chain("0/6/2/2/0");
    chain.voxels.as_mut().unwrap().voxels[0].materials[1] = 200;
    assert_eq!(check_chain(&chain, 1, key)[0].1.split(": must").next(), Some("voxels[0, 0, 0].materials[1] = 200"));
    assert!(check_chain(&self::chain("0/6/2/2/0").0, 9, key)[0].1.contains("no planet with index 9"));
}

#[test]
fn manifests_check_their_shape() {
    let entry = |s: Stage| StageEntry { stage: s, file: FileEntry::of(s.file(), b"x"), time_ms: 1.0 };
    let m = Manifest {
        format: DUMP_FORMAT,
        generator_version: 1,
        signature: Signature(7),
        planet: 1,
        planet_signature: Signature(8),
        key: "0/6/2/2/0".into(),
        recipe: FileEntry::of(RECIPE_FILE, b"{}"),
        stages: Stage::ALL.map(entry).to_vec(),
        replayed_from: None,
    };
    assert_eq!(Manifest::from_json(&m.to_json()).unwrap(), m);
    let text = String::from_utf8(m.to_json()).unwrap();
    let bad = text.replace("0/6/2/2/0", "0/6/2/2").replace("\"voxels\"", "\"voxel\"");
    let e = Manifest::from_json(bad.as_bytes()).unwrap_err().0;
    assert!(e.contains("stages[3].stage") && e.contains("unknown variant"), "{e}");
    let e = Manifest::from_json(text.replace("0/6/2/2/0", "0/6/2/2").as_bytes()).unwrap_err().0;
    assert!(e.starts_with("key = \"0/6/2/2\""), "{e}");
    let e = Manifest::from_json(&m.to_json()[..100]).unwrap_err().0;
    assert!(e.starts_with("truncated"), "{e}");
    assert_eq!("PlanetPlan".parse::<Stage>(), Ok(Stage::PlanetPlan));
    assert_eq!("cube-mesh".parse::<Stage>(), Ok(Stage::CubeMesh));
    assert!("mesh".parse::<Stage>().unwrap_err().contains("system_plan, planet_plan"));
}
