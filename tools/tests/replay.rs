//! Debug replay through the `planet` binary: every golden region dumps and
//! replays to a match (the collider and navmesh included), replays on one
//! and several threads agree, every kind of damage to a dump gets a clear
//! error (and no panic), a hand-edited plan replayed from its stage changes
//! the terrain `planet inspect` draws, and a changed navmesh input shows.

mod common;

use std::path::{Path, PathBuf};

use common::{planet, text};
use planet::dump::{DUMP_FORMAT, FileEntry, Header, Manifest, hash_hex};
use planet::physics::NavMesh;
use planet::pipeline::{Pipeline, StageOutput, stages};
use planet::terrain::VoxelGrid;
use serde_json::Value;

/// A fresh scratch folder of this test process.
fn scratch(name: &str) -> PathBuf {
    common::scratch_dir("replay-test", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Dumps a region of the default system into `dir`.
fn dump(planet_index: u32, key: &str, dir: &Path) {
    let out = planet(&["dump", "--planet", &planet_index.to_string(), "--key", key, "--out", s(dir), "--repeat", "1"]);
    assert_eq!(out.status.code(), Some(0), "dump {key}: {}", text(&out.stderr));
}

fn copy_dump(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

fn edit_json(path: &Path, edit: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
}

#[test]
fn every_golden_region_dumps_and_replays_to_a_match() {
    let golden: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/golden/regions.json")).unwrap(),
    )
    .unwrap();
    let root = scratch("golden");
    let regions = golden["values"].as_object().unwrap();
    assert!(regions.len() >= 10);
    for (name, v) in regions {
        let key = v["key"].as_str().unwrap();
        let dir = root.join(key.replace('/', "_"));
        dump(v["planet"].as_u64().unwrap() as u32, key, &dir);
        // The dumped grid is the golden one.
        let voxels = StageOutput::decode(&stages::VOXELS, &std::fs::read(dir.join("voxels.bin")).unwrap()).unwrap();
        let grid = voxels.get::<VoxelGrid>().unwrap();
        assert_eq!(grid.signature().to_string(), v["voxels"].as_str().unwrap(), "{name}");
        let out = planet(&["replay", s(&dir), "--repeat", "1"]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{name}: {stdout}{}", text(&out.stderr));
        assert!(stdout.contains("all 12 replayed stages match the dump"), "{name}: {stdout}");
        for stage in Pipeline::standard().stages() {
            assert!(
                stdout.lines().any(|l| l.trim_start().starts_with(stage.name) && l.contains(" match ")),
                "{stdout}"
            );
        }
    }
}

#[test]
fn replays_on_one_and_several_threads_match() {
    let root = scratch("threads");
    let dir = root.join("cave");
    dump(1, "4/0/103/101/0", &dir);
    let (one, many) = (root.join("one"), root.join("many"));
    let a = planet(&["replay", s(&dir), "--threads", "1", "--repeat", "2", "--out", s(&one)]);
    let b = planet(&["replay", s(&dir), "--threads", "4", "--repeat", "8", "--out", s(&many)]);
    let c = planet(&["replay", s(&dir), "--from", "recipe", "--threads", "3", "--repeat", "3"]);
    for out in [&a, &b, &c] {
        assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
        assert!(text(&out.stdout).contains("all 12 replayed stages match the dump"));
    }
    assert!(text(&b.stdout).contains("median of 8 runs on 4 threads"));
    for stage in Pipeline::standard().stages() {
        let read = |d: &Path| std::fs::read(d.join(stage.file())).unwrap();
        assert_eq!(read(&one), read(&dir), "{stage}");
        assert_eq!(read(&many), read(&dir), "{stage}");
    }
    // The replays are dumps themselves, and replay to a match.
    let again = planet(&["replay", s(&many), "--repeat", "1"]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stdout));
}

/// Rewrites a dump as if an older generator had written it: every binary
/// header and the manifest say `version`, and the manifest's hashes follow.
fn make_version(dir: &Path, version: u32) {
    let path = dir.join("manifest.json");
    let mut m = Manifest::from_json(&std::fs::read(&path).unwrap()).unwrap();
    m.generator_version = version;
    for entry in &mut m.stages {
        let file = dir.join(entry.stage.file());
        let out = StageOutput::decode(entry.stage, &std::fs::read(&file).unwrap()).unwrap();
        let bytes = out.encode(version);
        std::fs::write(&file, &bytes).unwrap();
        entry.file = FileEntry::of(&entry.stage.file(), &bytes);
    }
    std::fs::write(&path, m.to_json()).unwrap();
}

#[test]
fn every_kind_of_damage_gets_a_clear_error() {
    let root = scratch("damage");
    let good = root.join("good");
    dump(1, "0/6/2/2/0", &good);
    let n = std::sync::atomic::AtomicUsize::new(0);
    // Copies the good dump, damages the copy, replays it: the exit code and a line of stderr.
    let check = |damage: &dyn Fn(&Path), args: &[&str], code: i32, expected: &[&str]| {
        let dir = root.join(format!("case{}", n.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
        copy_dump(&good, &dir);
        damage(&dir);
        let mut all = vec!["replay", s(&dir), "--repeat", "1"];
        all.extend_from_slice(args);
        let out = planet(&all);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{expected:?}: {}{stderr}", text(&out.stdout));
        for e in expected {
            assert!(stderr.contains(e), "expected {e:?} in:\n{stderr}");
        }
        // `planet inspect` reads damaged dumps without panicking (checked by `planet`), and says what is wrong.
        let inspect = planet(&["inspect", s(&dir), "--out", s(&dir.join("inspect"))]);
        assert!(matches!(inspect.status.code(), Some(0..=2)));
        dir
    };
    let truncate = |file: &'static str, keep: f64| {
        move |d: &Path| {
            let bytes = std::fs::read(d.join(file)).unwrap();
            std::fs::write(d.join(file), &bytes[..(bytes.len() as f64 * keep) as usize]).unwrap();
        }
    };
    let flip = |file: &'static str, from_end: usize| {
        move |d: &Path| {
            let mut bytes = std::fs::read(d.join(file)).unwrap();
            let at = bytes.len() - from_end;
            bytes[at] ^= 0x04;
            std::fs::write(d.join(file), bytes).unwrap();
        }
    };

    // Truncated.
    check(&truncate("voxels.bin", 0.5), &[], 2, &["voxels.bin: truncated: header.payload_bytes = 326592"]);
    check(&truncate("sphere_mesh.bin", 0.0), &[], 2, &["sphere_mesh.bin: truncated: 0 bytes"]);
    check(&truncate("cube_mesh.bin", 0.002), &[], 2, &["cube_mesh.bin: truncated: the header length says"]);
    check(&truncate("planet_plan.json", 0.5), &[], 2, &["planet_plan.json: truncated: the JSON ends early"]);
    check(&truncate("manifest.json", 0.5), &[], 2, &["manifest.json: truncated"]);
    check(&truncate("collider.bin", 0.7), &[], 2, &["collider.bin: truncated: header.payload_bytes = "]);
    check(&truncate("navmesh.bin", 0.001), &[], 2, &["navmesh.bin: truncated: "]);
    // Bit-flipped: in a payload, in the magic, in a plan's number.
    check(&flip("columns.bin", 100), &[], 2, &["columns.bin: damaged: the payload hashes to"]);
    check(&flip("cube_mesh.bin", 1), &[], 2, &["cube_mesh.bin: damaged"]);
    check(&flip("collider.bin", 7), &[], 2, &["collider.bin: damaged: the payload hashes to"]);
    check(&flip("navmesh.bin", 3), &[], 2, &["navmesh.bin: damaged: the payload hashes to"]);
    // Out-of-range indices behind a payload hash made right again.
    check(
        // The last polygon's neighbours[2]: its four neighbours end the file.
        &|d: &Path| set_u32_from_end(&d.join("navmesh.bin"), 2, 7_000_000),
        &[],
        2,
        &["navmesh.bin: polygons[", "].neighbours[2] = 7000000: must be in 0.."],
    );
    check(
        // The last triangle's vertices[2]: the objects section's one u32 ends the file.
        &|d: &Path| set_u32_from_end(&d.join("collider.bin"), 2, u32::MAX),
        &[],
        2,
        &["collider.bin: triangles[", "].vertices[2] = 4294967295: must be in 0.."],
    );
    check(
        &|d: &Path| set_u32_from_end(&d.join("collider.bin"), 1, u32::MAX),
        &[],
        2,
        &["collider.bin: objects_from = 4294967295: must be in 0..="],
    );
    let magic = |d: &Path| {
        let mut bytes = std::fs::read(d.join("voxels.bin")).unwrap();
        bytes[0] ^= 0x20;
        std::fs::write(d.join("voxels.bin"), bytes).unwrap();
    };
    check(&magic, &[], 2, &["voxels.bin: not a binary stage file", "PLANETSD"]);
    let flipped_plan = check(
        &|d: &Path| {
            edit_json(&d.join("planet_plan.json"), |v| {
                v["recipe"]["terrain"]["hills"]["height_m"] = 20.0.into();
            });
        },
        &[],
        1,
        &["do not match the dump: planet_plan, planet_layout, columns"],
    );
    let out = planet(&["replay", s(&flipped_plan), "--repeat", "1"]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("note: planet_plan.json was edited after dumping"), "{stdout}");
    let hills = planet::PlannedSystem::default_system().planets[1].recipe.terrain.hills.height_m;
    assert!(
        stdout.contains(&format!("first difference: recipe.terrain.hills.height_m: dumped 20.0, replayed {hills:?}")),
        "{stdout}"
    );
    // Wrong versions.
    let refused = format!("generator_version = 0: this build's GENERATOR_VERSION is {}", planet::GENERATOR_VERSION);
    check(&|d: &Path| make_version(d, 0), &[], 2, &[refused.as_str(), "--allow-version-mismatch"]);
    let old = check(&|d: &Path| make_version(d, 0), &["--allow-version-mismatch"], 0, &[]);
    let out = planet(&["replay", s(&old), "--allow-version-mismatch", "--repeat", "1"]);
    assert!(text(&out.stdout).contains("note: --allow-version-mismatch: the dump is from GENERATOR_VERSION 0"));
    check(
        &|d: &Path| edit_json(&d.join("manifest.json"), |v| v["format"] = 9.into()),
        &[],
        2,
        &[&format!("manifest.json: format = 9: this build reads dump format {DUMP_FORMAT}")],
    );
    // Missing files.
    check(
        &|d: &Path| std::fs::remove_file(d.join("navmesh.bin")).unwrap(),
        &[],
        1,
        &["navmesh.bin: listed in manifest.json, cannot read"],
    );
    check(
        &|d: &Path| std::fs::remove_file(d.join("sphere_mesh.bin")).unwrap(),
        &[],
        1,
        &["sphere_mesh.bin: listed in manifest.json, cannot read"],
    );
    check(
        &|d: &Path| std::fs::remove_file(d.join("manifest.json")).unwrap(),
        &[],
        1,
        &["manifest.json", "`planet dump` writes one"],
    );
    check(
        &|d: &Path| std::fs::remove_file(d.join("recipe.json")).unwrap(),
        &[],
        1,
        &["recipe.json: listed in manifest.json, cannot read"],
    );
    // Hand edits that break validation, name the field and the allowed range.
    check(
        &|d: &Path| edit_json(&d.join("planet_plan.json"), |v| v["recipe"]["caves"]["worm_threshold"] = 5.into()),
        &[],
        2,
        &["planet_plan.json: recipe.caves.worm_threshold = 5: must be in 0.005..=0.3"],
    );
    check(
        &|d: &Path| edit_json(&d.join("planet_plan.json"), |v| v["recipe"]["caves"]["wormz"] = 1.into()),
        &[],
        2,
        &["planet_plan.json: recipe.caves.wormz: unknown field `wormz`, expected one of"],
    );
    check(
        &|d: &Path| edit_json(&d.join("planet_plan.json"), |v| v["recipe"]["sea"]["level_m"] = "low".into()),
        &[],
        2,
        &["planet_plan.json: recipe.sea.level_m: invalid type: string \"low\""],
    );
    check(
        &|d: &Path| edit_json(&d.join("manifest.json"), |v| v["key"] = "0/6/9/2/0".into()),
        &[],
        2,
        &["the manifest's key 0/6/9/2/0 is not a region of this plan"],
    );
    check(
        &|d: &Path| edit_json(&d.join("manifest.json"), |v| v["stages"][2]["stage"] = "voxels".into()),
        &[],
        2,
        &["manifest.json: stages[2].stage = voxels: must be planet_layout"],
    );
    check(
        &|d: &Path| edit_json(&d.join("recipe.json"), |v| v["planet_count"] = 99.into()),
        &[],
        2,
        &["recipe.json: planet_count = 99: must be in 1..=16"],
    );
    // A binary file replaced by another stage's, or by another dump's.
    check(
        &|d: &Path| std::fs::copy(d.join("columns.bin"), d.join("voxels.bin")).map(drop).unwrap(),
        &[],
        2,
        &["voxels.bin: header.stage = columns: expected voxels"],
    );
    check(
        &|d: &Path| std::fs::copy(d.join("navmesh.bin"), d.join("collider.bin")).map(drop).unwrap(),
        &[],
        2,
        &["collider.bin: header.stage = navmesh: expected collider"],
    );
    let other = root.join("other");
    dump(1, "0/6/2/3/0", &other);
    check(
        &|d: &Path| std::fs::copy(other.join("voxels.bin"), d.join("voxels.bin")).map(drop).unwrap(),
        &[],
        2,
        &["voxels.bin: size ", "are not the manifest's", "only the JSON plans may be edited by hand"],
    );
}

#[test]
fn a_hand_edited_plan_replayed_from_its_stage_changes_the_slices() {
    let root = scratch("edit");
    let dir = root.join("cave");
    dump(1, "4/0/103/101/0", &dir);
    let before = planet(&["inspect", s(&dir), "--out", s(&root.join("before"))]);
    assert_eq!(before.status.code(), Some(0), "{}", text(&before.stderr));
    // The voxel summary's air count, as the generator gives it.
    let voxels = planet::terrain::Terrain::new(&planet::PlannedSystem::default_system().planets[1])
        .region("4/0/103/101/0".parse().unwrap())
        .unwrap();
    let air = voxels.voxels.iter().filter(|v| v.density <= 0).count();
    assert!(text(&before.stdout).contains(&format!("air {air}")), "{}", text(&before.stdout));

    // Widen the worm caves, and replay from the plan: the dump's later stages no longer match.
    edit_json(&dir.join("planet_plan.json"), |v| v["recipe"]["caves"]["worm_threshold"] = 0.1.into());
    let edited = root.join("edited");
    let out = planet(&["replay", s(&dir), "--from", "planet_plan", "--repeat", "1", "--out", s(&edited)]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("planet_plan  -         (taken from the dump, edited by hand)"), "{stdout}");
    assert!(stdout.contains("columns      match"), "{stdout}");
    assert!(stdout.contains("voxels       MISMATCH"), "{stdout}");
    assert!(stdout.contains("first difference: voxels["), "{stdout}");
    assert!(
        text(&out.stderr).contains(
            "5 of 10 replayed stages do not match the dump: voxels, cube_mesh, sphere_mesh, collider, navmesh"
        ),
        "{}",
        text(&out.stderr)
    );

    let after = planet(&["inspect", s(&edited), "--out", s(&root.join("after"))]);
    let summary = text(&after.stdout);
    assert_eq!(after.status.code(), Some(0));
    let air_after: usize = summary
        .split("air ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .expect("the voxel summary counts air");
    assert!(summary.contains("worm_threshold 0.1") && air_after > air * 3 / 2, "{air} air before: {summary}");
    for name in ["voxels-x18.png", "voxels-y18.png", "voxels-z18.png"] {
        let a = std::fs::read(root.join("before").join(name)).unwrap();
        let b = std::fs::read(root.join("after").join(name)).unwrap();
        assert!(a.starts_with(b"\x89PNG") && a != b, "{name} should show the wider caves");
    }
    for name in ["cube_mesh.obj", "sphere_mesh.obj", "collider.obj"] {
        let obj = std::fs::read_to_string(root.join("after").join(name)).unwrap();
        assert!(obj.lines().filter(|l| l.starts_with("f ")).count() > 1000, "{name}");
    }
    // The replay's output is a consistent dump of the edited world: every stage
    // matches but the plan, which the unedited recipe plans as before.
    let again = planet(&["replay", s(&edited), "--repeat", "1"]);
    assert_eq!(again.status.code(), Some(1), "{}", text(&again.stdout));
    assert!(text(&again.stderr).contains("1 of 12 replayed stages do not match the dump: planet_plan"));
    let again = planet(&["replay", s(&edited), "--repeat", "1", "--from", "planet_plan"]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stdout));

    // One stage file on its own.
    let one =
        planet(&["inspect", s(&edited.join("voxels.bin")), "--out", s(&root.join("one")), "--axis-index-unknown"]);
    assert_eq!(one.status.code(), Some(2));
    let one = planet(&["inspect", s(&edited.join("voxels.bin")), "--out", s(&root.join("one")), "--index", "10"]);
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    assert!(root.join("one/voxels-z10.png").exists());
    let junk = root.join("junk.bin");
    std::fs::write(&junk, b"hello").unwrap();
    let out = planet(&["inspect", s(&junk)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("junk.bin: not a stage file"));
}

#[test]
fn bad_arguments_exit_2() {
    let root = scratch("args");
    let dir = root.join("d");
    dump(1, "0/6/2/2/0", &dir);
    let out = planet(&["replay", s(&dir), "--from", "meshes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .contains("must be one of recipe, system_plan, planet_plan, planet_layout, planet_settlements, columns")
    );
    assert_eq!(planet(&["replay", s(&dir), "--repeat", "0"]).status.code(), Some(2));
    assert_eq!(planet(&["replay", s(&dir), "--threads", "0"]).status.code(), Some(2));
    assert_eq!(planet(&["dump", "--planet", "9", "--key", "0/6/2/2/0", "--out", s(&dir)]).status.code(), Some(2));
    let out = planet(&["replay", s(&root.join("nowhere"))]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("nowhere: does not exist"));
    // `--from` takes a stage by type name too; a replay from the last stage has nothing to run.
    let out = planet(&["replay", s(&dir), "--from", "CreaturePaths"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("nothing to replay: creature_paths is the last stage"));
    let out = planet(&["replay", s(&dir), "--from", "SphereMesh"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("all 4 replayed stages match the dump"), "{}", text(&out.stdout));
}

/// Sets the `back`-th `u32` from the end of a binary stage file's payload
/// (1: the last) and makes its payload hash right again (the manifest's hash
/// of the file is then wrong, but the file is read, and refused, first).
fn set_u32_from_end(path: &Path, back: usize, value: u32) {
    let bytes = std::fs::read(path).unwrap();
    let header_len = u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize;
    let mut header: Header = serde_json::from_slice(&bytes[12..12 + header_len]).unwrap();
    let mut payload = bytes[12 + header_len..].to_vec();
    let end = payload.len();
    payload[end - 4 * back..end - 4 * (back - 1)].copy_from_slice(&value.to_le_bytes());
    header.payload_hash = hash_hex(&payload);
    let json = serde_json::to_vec(&header).unwrap();
    let mut out = bytes[..8].to_vec();
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(&payload);
    std::fs::write(path, out).unwrap();
}

/// The navmesh is made from the plan (its sea), the sphere mesh and the
/// collider: a plan without a sea, replayed from the sphere mesh, leaves the
/// collider as it was and makes the sea floor walkable. `planet inspect`
/// summarises both and draws them.
#[test]
fn a_changed_navmesh_input_is_a_mismatch() {
    let root = scratch("navmesh");
    let dir = root.join("coast");
    dump(1, "0/6/2/2/0", &dir);
    let inspect = planet(&["inspect", s(&dir), "--out", s(&root.join("before"))]);
    let before = text(&inspect.stdout);
    assert_eq!(inspect.status.code(), Some(0), "{}", text(&inspect.stderr));
    for line in [
        "collider.bin (Collider, ",
        " triangles, ",
        " vertices; BVH of ",
        "  BVH bounds (",
        "(the BVH included)",
        "navmesh.bin (NavMesh, ",
        " polygons (",
        " quads; ",
        " walkable triangles), ",
        " m² walkable in ",
        "  edges: ",
        "  walkable share: ",
    ] {
        assert!(before.contains(line), "{line:?} in:\n{before}");
    }
    for name in ["collider.obj", "navmesh.obj"] {
        let obj = std::fs::read_to_string(root.join("before").join(name)).unwrap();
        assert!(obj.lines().filter(|l| l.starts_with("f ")).count() > 10, "{name}");
    }

    edit_json(&dir.join("planet_plan.json"), |v| v["recipe"]["sea"]["enabled"] = false.into());
    let edited = root.join("dry");
    let out = planet(&["replay", s(&dir), "--from", "sphere_mesh", "--repeat", "2", "--out", s(&edited)]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("sphere_mesh  -         (taken from the dump)"), "{stdout}");
    assert!(stdout.contains("collider     match"), "{stdout}");
    assert!(stdout.contains("navmesh      MISMATCH"), "{stdout}");
    let first = stdout.lines().find(|l| l.contains("first difference: ")).unwrap();
    assert!(first.contains("first difference: vertices[") || first.contains("first difference: polygons["), "{first}");
    // The scatter matches (nothing grows on this sea floor even dry), so the collider does.
    assert!(
        text(&out.stderr).contains(" of 4 replayed stages do not match the dump: navmesh"),
        "{}",
        text(&out.stderr)
    );
    // More ground is walkable without the sea.
    let triangles = |d: &Path| {
        let out = StageOutput::decode(&stages::NAVMESH, &std::fs::read(d.join("navmesh.bin")).unwrap()).unwrap();
        out.get::<NavMesh>().unwrap().polygons.iter().map(|p| p.count as usize - 2).sum::<usize>()
    };
    assert!(triangles(&edited) > triangles(&dir), "{} <= {}", triangles(&edited), triangles(&dir));
    // The one stage file on its own, with the sphere mesh beside it.
    let one = planet(&["inspect", s(&edited.join("navmesh.bin")), "--out", s(&root.join("one"))]);
    assert_eq!(one.status.code(), Some(0), "{}", text(&one.stderr));
    assert!(text(&one.stdout).contains("  walkable share: "), "{}", text(&one.stdout));
    assert!(root.join("one/navmesh.obj").exists());
}
