//! Runs the `planet` binary as a user would: on the default system, on good
//! and bad recipe files, with bad arguments. Checks output, messages and exit
//! codes, and that no panic ever reaches the terminal.

mod common;

use std::path::PathBuf;

use common::{planet, text};
use planet::PlannedSystem;

/// A file in a fresh scratch directory of this test process.
fn scratch(name: &str, contents: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("planet-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap();
    path
}

#[test]
fn system_prints_the_default_table() {
    let out = planet(&["system"]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let system = PlannedSystem::default_system();
    assert!(stdout.contains(&system.signature().to_string()));
    for p in &system.planets {
        assert!(stdout.contains(&p.name) && stdout.contains(&p.signature().to_string()), "{stdout}");
    }
}

#[test]
fn system_json_is_the_plan() {
    let out = planet(&["system", "--json"]);
    assert!(out.status.success());
    let plan: PlannedSystem = serde_json::from_slice(&out.stdout).expect("valid plan JSON");
    assert_eq!(plan, PlannedSystem::default_system());
}

#[test]
fn signature_prints_one_hex_line() {
    let out = planet(&["signature"]);
    assert!(out.status.success());
    assert_eq!(text(&out.stdout), format!("{}\n", PlannedSystem::default_system().signature()));
    let file = scratch("seed7.json", br#"{"seed": 7}"#);
    let out = planet(&["signature", file.to_str().unwrap()]);
    let expected = PlannedSystem::from_json(r#"{"seed": 7}"#).unwrap().signature();
    assert_eq!(text(&out.stdout).trim(), expected.to_string());
}

#[test]
fn validate_accepts_good_files() {
    let file = scratch("good.json", br#"{"seed": 3, "planets": [{"index": 0, "kind": "ice", "radius_m": 2000}]}"#);
    let out = planet(&["validate", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "ok\n");
    let default = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/systems/default.json");
    assert_eq!(planet(&["validate", default.to_str().unwrap()]).status.code(), Some(0));
}

#[test]
fn validate_lists_every_error_and_exits_2() {
    let file = scratch(
        "bad.json",
        br#"{"seed": 1, "planets": [{"index": 0, "radius_m": -5, "gravity_mps2": 99}, {"index": 0}]}"#,
    );
    let out = planet(&["validate", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("planets[1].index = 0: duplicates planets[0]"));

    let file = scratch("bad2.json", br#"{"seed": 1, "planets": [{"index": 2, "radius_m": -5, "gravity_mps2": 99}]}"#);
    let stderr = text(&planet(&["validate", file.to_str().unwrap()]).stderr);
    assert_eq!(
        stderr,
        "planets[0].radius_m = -5: must be in 500..=50000\nplanets[0].gravity_mps2 = 99: must be in 0.5..=30\n"
    );
}

#[test]
fn damaged_files_get_clear_errors() {
    let cases: &[(&str, &[u8], i32, &str)] = &[
        ("empty.json", b"", 2, "the file is empty"),
        ("truncated.json", br#"{"seed": 12, "planets": [{"ind"#, 2, "the JSON ends too early"),
        ("binary.json", &[0x7b, 0xff, 0xfe, 0x00, 0x22], 2, "is not UTF-8 text"),
        ("flipped.json", br#"{"seed": 12, "planets": [{"index": 0, "radius_m": 3000}]]"#, 2, "invalid JSON"),
    ];
    for (name, contents, code, message) in cases {
        let file = scratch(name, contents);
        for cmd in ["validate", "system", "signature"] {
            let out = planet(&[cmd, file.to_str().unwrap()]);
            assert_eq!(out.status.code(), Some(*code), "{cmd} {name}");
            assert!(text(&out.stderr).contains(message), "{cmd} {name}: {}", text(&out.stderr));
        }
    }
}

#[test]
fn missing_files_and_bad_arguments() {
    let out = planet(&["validate", "/no/such/recipe.json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("cannot read /no/such/recipe.json"));
    let out = planet(&["validate"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("Usage"));
    let out = planet(&["fly-to-the-moon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(planet(&["--help"]).status.success());
}

#[test]
fn region_summarises_a_region() {
    let out = planet(&["region", "--planet", "1", "--key", "4/0/103/101/0"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let t = planet::terrain::Terrain::new(&PlannedSystem::default_system().planets[1]);
    let expected = t.region("4/0/103/101/0".parse().unwrap()).unwrap().signature();
    assert!(stdout.contains(&format!("hash {expected}")), "{stdout}");
    assert!(stdout.contains("samples 46656 (36^3): solid"));
    // The same region by latitude and longitude.
    let out = planet(&["region", "--planet", "1", "--at", "43.5,-179.5,3"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("region 1/3/"));
}

#[test]
fn region_arguments_are_checked() {
    let cases: &[(&[&str], &str)] = &[
        (&["region", "--planet", "9", "--key", "0/0/0/0/0"], "--planet 9: must be in 0..=4 (the system has 5 planets)"),
        (
            &["region", "--planet", "1", "--key", "0/0/999/0/0"],
            "--key 0/0/999/0/0: x = 999: must be in 0..=255 at LOD 0",
        ),
        (&["region", "--planet", "1", "--key", "7/0/0/0/0"], "--key: face = 7: must be in 0..=5"),
        (&["region", "--planet", "1", "--key", "1/2/3"], "must be F/L/X/Y/Z"),
        (&["region", "--planet", "1", "--key", "0/9/0/0/0"], "lod = 9: must be in 0..=8"),
        (&["region", "--planet", "1", "--at", "95,0"], "--at 95,0: must be LAT,LON"),
        (&["region", "--planet", "1", "--at", "10,20,12"], "LOD must be in 0..=8"),
        (
            &["slice", "--planet", "1", "--key", "0/0/0/0/0", "--index", "40", "--out", "x.png"],
            "invalid value '40' for '--index <INDEX>': must be a whole number in 0..=35",
        ),
        (
            &["map", "--planet", "1", "--width", "7", "--out", "x.png"],
            "'--width <WIDTH>': must be a whole number in 16..=8192",
        ),
    ];
    for (args, message) in cases {
        let out = planet(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains(message), "{args:?}: {}", text(&out.stderr));
    }
    // Both or neither of --key and --at is a usage error.
    assert_eq!(planet(&["region", "--planet", "1"]).status.code(), Some(2));
    assert_eq!(planet(&["region", "--planet", "1", "--key", "0/0/0/0/0", "--at", "1,2"]).status.code(), Some(2));
}

/// `settlements` lists what `Settlements` holds, `nearest` finds what its
/// search finds; bad points and planets are usage errors.
#[test]
fn settlements_list_and_the_nearest_is_found() {
    let t = planet::terrain::Terrain::new(&PlannedSystem::default_system().planets[1]);
    let out = planet(&["settlements", "--planet", "1", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed = v["settlements"].as_array().unwrap();
    assert_eq!(listed.len(), t.settlements.data.sites.len());
    for (l, s) in listed.iter().zip(&t.settlements.data.sites) {
        assert_eq!(l["cell"], s.cell);
        assert_eq!(l["name"], s.name.as_str());
    }
    let d = planet::terrain::lat_lon_direction(10.0, 20.0);
    let (near, _) = t.settlements.nearest(d).unwrap();
    let out = planet(&["nearest", "--planet", "1", "--at", "10,20", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["cell"], near.cell);
    let cases: &[(&[&str], &str)] = &[
        (&["nearest", "--planet", "1", "--at", "95,0"], "--at 95,0: must be LAT,LON"),
        (&["nearest", "--planet", "1", "--at", "north"], "--at north: must be LAT,LON"),
        (&["nearest", "--planet", "9", "--at", "1,2"], "--planet 9: must be in 0..=4"),
        (&["settlements", "--planet", "9"], "--planet 9: must be in 0..=4"),
        (&["creatures", "--planet", "1", "--at", "95,0"], "--at 95,0: must be LAT,LON"),
        (&["creatures", "--planet", "9", "--at", "1,2"], "--planet 9: must be in 0..=4"),
        (&["creatures", "--planet", "1", "--at", "1,2", "--radius", "0"], "must be in 1..=5000 metres"),
        (&["creatures", "--planet", "1", "--at", "1,2", "--time", "-5"], "--time"),
    ];
    for (args, message) in cases {
        let out = planet(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains(message), "{args:?}: {}", text(&out.stderr));
    }
}

/// `creatures` lists the herds `Fauna` plans near a point, each animal where
/// its path puts it at the time asked.
#[test]
fn creatures_lists_the_herds_near_a_point() {
    let system = PlannedSystem::default_system();
    let t = planet::terrain::Terrain::new(&system.planets[1]);
    let fauna = planet::creatures::Fauna::new(&t);
    let at = planet::terrain::lat_lon_direction(7.38, 19.5);
    let herds: Vec<_> = fauna.grid.cells_near(at, 300.0).into_iter().filter_map(|c| fauna.herd(&t, c)).collect();
    assert!(!herds.is_empty());
    let out = planet(&["creatures", "--planet", "1", "--at", "7.38,19.5", "--time", "600", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed = v["herds"].as_array().unwrap();
    assert_eq!(listed.len(), herds.len());
    let daylight = planet::creatures::Daylight::of_planet(system.spin(1), system.planets[1].position_m);
    for (l, h) in listed.iter().zip(&herds) {
        assert_eq!(l["cell"], h.cell.to_string());
        let animals = l["animals"].as_array().unwrap();
        assert_eq!(animals.len(), usize::from(h.count));
        let species = &fauna.species[usize::from(h.species)];
        for (m, a) in animals.iter().enumerate() {
            let pose = h.pose(species, m as u8, &daylight, 600.0);
            let (lat, lon) = engine::lat_lon_of(pose.position);
            assert!((a["lat"].as_f64().unwrap() - lat).abs() < 1e-9 && (a["lon"].as_f64().unwrap() - lon).abs() < 1e-9);
        }
    }
}

#[test]
fn slice_and_map_write_pngs() {
    let dir = scratch("placeholder", b"").parent().unwrap().to_path_buf();
    let slice = dir.join("slices/cave.png");
    let out = planet(&[
        "slice",
        "--planet",
        "1",
        "--key",
        "4/0/103/101/0",
        "--axis",
        "z",
        "--index",
        "12",
        "--scale",
        "4",
        "--out",
        slice.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let img = image::open(&slice).unwrap().to_rgb8();
    assert_eq!(img.dimensions(), (144, 144));
    // The cave region's slice shows rock and cave air: more than a few colours.
    let mut colours: Vec<_> = img.pixels().map(|p| p.0).collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 5, "{} colours", colours.len());

    let map = dir.join("map.png");
    let out = planet(&["map", "--planet", "2", "--width", "64", "--out", map.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(image::open(&map).unwrap().to_rgb8().dimensions(), (64, 32));
    // An unwritable output is a failure with a message, exit 1.
    let out = planet(&["map", "--planet", "2", "--width", "16", "--out", "/proc/no/such/dir/map.png"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("cannot"), "{}", text(&out.stderr));
}

/// `planet scatter` prints the library's objects (the same signature, the
/// kinds adding up to the total), `planet mesh --scatter` adds them as
/// models grouped by kind, and `planet inspect` of a dump writes them.
#[test]
fn scatter_summarises_exports_and_inspects_a_forest() {
    let (planet_index, at, key) = (1, "-22.3233,-16.7839,0", "0/0/175/61/1");
    let out = planet(&["scatter", "--planet", "1", "--at", at]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let t = planet::terrain::Terrain::new(&PlannedSystem::default_system().planets[planet_index]);
    let k: planet::RegionKey = key.parse().unwrap();
    let columns = t.columns(k);
    let cube = planet::mesh::polygonize(&t, &columns, &t.voxels(&columns), &mut Default::default());
    let sphere = planet::mesh::spherify(&t.grid, &cube);
    let expected = planet::scatter::scatter(&t, &columns, &cube, sphere.origin);
    assert!(expected.objects.len() > 50, "{} objects", expected.objects.len());
    assert!(stdout.starts_with(&format!("scatter of region {key} of planet 1")), "{stdout}");
    assert!(stdout.contains(&format!("signature {}", expected.signature())), "{stdout}");
    assert!(stdout.contains(&format!("objects {}:", expected.objects.len())), "{stdout}");
    let by_kind: usize = stdout
        .lines()
        .skip_while(|l| *l != "by kind:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.split_whitespace().next().unwrap().parse::<usize>().unwrap())
        .sum();
    assert_eq!(by_kind, expected.objects.len(), "{stdout}");
    for rule in &t.recipe.scatter {
        assert!(stdout.contains(&rule.name), "rule {} missing: {stdout}", rule.name);
    }

    let dir = common::scratch_dir("cli-scatter", "files");
    let (bare, with) = (dir.join("bare.obj"), dir.join("forest.obj"));
    for (path, extra) in [(&bare, None), (&with, Some("--scatter"))] {
        let mut args = vec!["mesh", "--planet", "1", "--at", at, "--out", path.to_str().unwrap()];
        args.extend(extra);
        let out = planet(&args);
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let faces = |p: &PathBuf| std::fs::read_to_string(p).unwrap().lines().filter(|l| l.starts_with("f ")).count();
    let forest = std::fs::read_to_string(&with).unwrap();
    let groups: Vec<&str> = forest.lines().filter(|l| l.starts_with("g ")).collect();
    assert!(groups.contains(&"g 0_0_175_61_1_tree") && groups.contains(&"g 0_0_175_61_1_grass"), "{groups:?}");
    assert!(faces(&with) > faces(&bare) + 10 * expected.objects.len(), "{} against {}", faces(&with), faces(&bare));

    let dump = dir.join("dump");
    let s = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    assert!(planet(&["dump", "--planet", "1", "--key", key, "--out", &s(&dump), "--repeat", "1"]).status.success());
    let out = planet(&["inspect", &s(&dump), "--out", &s(&dir.join("inspect"))]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains(&format!("signature {}", expected.signature())), "{}", text(&out.stdout));
    let objects = std::fs::read_to_string(dir.join("inspect/scatter.obj")).unwrap();
    assert!(objects.lines().filter(|l| l.starts_with("f ")).count() > 10 * expected.objects.len());

    let out = planet(&["scatter", "--planet", "7", "--at", at]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--planet 7: must be in 0..=4"), "{}", text(&out.stderr));
}

#[test]
fn mesh_exports_obj_ply_and_a_preview() {
    let dir = scratch("placeholder2", b"").parent().unwrap().to_path_buf();
    let obj = dir.join("meshes/region.obj");
    let png = dir.join("meshes/region.png");
    let out = planet(&[
        "mesh",
        "--planet",
        "1",
        "--at",
        "43.5,-179.5,2",
        "--out",
        obj.to_str().unwrap(),
        "--png",
        png.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let text_obj = std::fs::read_to_string(&obj).unwrap();
    let vertices = text_obj.lines().filter(|l| l.starts_with("v ")).count();
    let faces: Vec<&str> = text_obj.lines().filter(|l| l.starts_with("f ")).collect();
    assert!(vertices > 100 && faces.len() > 100, "{vertices} vertices, {} faces", faces.len());
    // Every face refers to an existing vertex.
    for f in &faces {
        for corner in f.split_whitespace().skip(1) {
            let i: usize = corner.split("//").next().unwrap().parse().unwrap();
            assert!((1..=vertices).contains(&i), "{f}");
        }
    }
    assert_eq!(image::open(&png).unwrap().to_rgb8().dimensions(), (1024, 768));

    let ply = dir.join("meshes/ring.ply");
    let out = planet(&[
        "mesh",
        "--planet",
        "2",
        "--at",
        "0,0,1",
        "--neighbours",
        "--overlap",
        "--out",
        ply.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bytes = std::fs::read(&ply).unwrap();
    let header = String::from_utf8_lossy(&bytes[..400.min(bytes.len())]).to_string();
    assert!(header.starts_with("ply\nformat binary_little_endian 1.0"), "{header}");
    assert!(text(&out.stderr).contains("18 regions meshed"), "{}", text(&out.stderr));

    let out = planet(&["mesh", "--planet", "1", "--key", "0/0/0/0/0", "--out", "region.stl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("must end in .obj or .ply"));
}

#[test]
fn stream_runs_a_path_and_writes_a_report() {
    let path = scratch(
        "hover.json",
        br#"{"name":"hover","planet":1,"keyframes":[
            {"t":0,"lat":12,"lon":20,"altitude_m":2000,"heading_deg":0,"pitch_deg":-60},
            {"t":2,"lat":12,"lon":20.5,"altitude_m":1500,"heading_deg":0,"pitch_deg":-60}]}"#,
    );
    let report = scratch("stream-report.json", b"");
    let out = planet(&[
        "stream",
        "--path",
        path.to_str().unwrap(),
        "--threads",
        "2",
        "--quiet",
        "--report",
        report.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("path hover over planet 1"), "{stdout}");
    assert!(stdout.contains("all wanted ready     first at"), "{stdout}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let run = &json["runs"][0];
    assert!(run["seconds"].as_array().unwrap().len() >= 2);
    let summary = &run["summary"];
    assert!(summary["regions_built"].as_u64().unwrap() > 6);
    assert!(summary["first_settled_s"].as_f64().is_some(), "{summary}");
    assert_eq!(summary["final_hash"].as_str().unwrap().len(), 32);
    // A hovering camera: the speed allows the static target, and the cover has no holes.
    assert!(stdout.contains("against the speed    mean"), "{stdout}");
    assert_eq!(summary["deficit_speed_mean"], summary["deficit_mean"], "{summary}");
    assert_eq!(summary["hole_frames"].as_u64(), Some(0), "{summary}");
}

#[test]
fn stream_arguments_are_checked() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["stream", "--path", "nowhere"],
            "--path nowhere: no such built-in path (descent, lowpass, spiral1k, straight1k, straight3k, walk) or file",
        ),
        (&["stream", "--look-ahead", "-1"], "invalid value '-1' for '--look-ahead <S>': must be a number in 0..=10"),
        (&["stream", "--min-dwell", "nan"], "invalid value 'nan' for '--min-dwell <S>': must be a number in 0..=10"),
        (&["stream", "--fps", "0"], "invalid value '0' for '--fps <FPS>': must be a number in 1..=1000"),
        (&["stream", "--threads", "999"], "invalid value '999' for '--threads <N>': must be a whole number in 1..=256"),
        (&["stream", "--split", "20"], "invalid value '20' for '--split <WIDTHS>': must be a number in 0.5..=8"),
        (&["stream", "--planet", "9"], "--planet 9: must be in 0..=4"),
    ];
    for (args, message) in cases {
        let out = planet(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains(message), "{args:?}: {}", text(&out.stderr));
    }
    let bad = scratch("bad-path.json", br#"{"name":"x","planet":1,"keyframes":[]}"#);
    let out = planet(&["stream", "--path", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("keyframes: must hold at least one keyframe"), "{}", text(&out.stderr));
}

/// `planet path` across the home planet's southern continent, quiet, with `more` arguments.
fn continent_path(more: &[&str]) -> std::process::Output {
    let args = ["path", "--planet", "1", "--from", "-15,0", "--to", "-20,10", "--quiet"];
    planet(&[&args[..], more].concat())
}

#[test]
fn path_finds_a_way_over_land_the_same_on_any_thread_count() {
    let dir = std::env::temp_dir().join(format!("planet-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut paths = Vec::new();
    for threads in ["1", "2"] {
        let file = dir.join(format!("path-{threads}.json"));
        let out = continent_path(&["--threads", threads, "--out", file.to_str().unwrap()]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{stdout}{}", text(&out.stderr));
        assert!(stdout.contains("searched ") && stdout.contains(" regions at LOD "), "{stdout}");
        assert!(stdout.contains("path: ") && stdout.contains("x the straight "), "{stdout}");
        paths.push(std::fs::read_to_string(&file).unwrap());
    }
    assert_eq!(paths[0], paths[1], "the path differs between 1 and 2 threads");
    let json: serde_json::Value = serde_json::from_str(&paths[0]).unwrap();
    let corners = json["corners"].as_array().unwrap();
    assert!(corners.len() >= 2);
    let (first, last) = (&corners[0], &corners[corners.len() - 1]);
    assert!((first["lat"].as_f64().unwrap() + 15.0).abs() < 1e-3 && first["lon"].as_f64().unwrap().abs() < 1e-3);
    assert!((last["lat"].as_f64().unwrap() + 20.0).abs() < 1e-3 && (last["lon"].as_f64().unwrap() - 10.0).abs() < 1e-3);
    let (length, straight) = (json["length_m"].as_f64().unwrap(), json["straight_m"].as_f64().unwrap());
    assert!(length >= straight - 1.0 && length < straight * 1.6, "{length} against {straight}");
    assert!(!json["corridor"].as_array().unwrap().is_empty());
}

#[test]
fn path_to_an_island_is_none_and_bad_points_are_errors() {
    // The island west of the continent, across the sea: searched, none (exit 1).
    let out = planet(&["path", "--planet", "1", "--from", "-15,0", "--to", "5.6,-67.5", "--quiet"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).starts_with("error: no path: no walkable way from -15,0 to 5.6,-67.5"),
        "{}",
        text(&out.stderr)
    );
    // A path that cannot be written (its parent is a file, so no folder can be made there): exit 1, naming it.
    let blocker = scratch("a-file", b"x");
    let under = blocker.join("path.json");
    let out = continent_path(&["--out", under.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with(&format!("error: cannot create {}: ", blocker.display())),
        "{}",
        text(&out.stderr)
    );
    let sea = sea_point(1);
    for (args, message) in [
        (
            &["--from", "95,0", "--to", "0,0"][..],
            "error: --from 95,0: must be LAT,LON with LAT in -90..=90 and LON in -180..=180",
        ),
        (&["--from", "-15,0", "--to", "abc"], "error: --to abc: must be LAT,LON"),
        (&["--from", "-15,0", "--to", &sea], &format!("error: --to {sea}: under the sea (the ground is ")),
        (&["--from", "-15,0", "--to", "-20,10", "--lod", "30"], "error: --lod 30: must be in 0..=8"),
        (
            &["--from", "-15,0", "--to", "-20,10", "--threads", "0"],
            "error: invalid value '0' for '--threads <N>': must be a whole number in 1..=256",
        ),
        (
            &["--from", "-15,0", "--to", "-20,10", "--margin", "-3"],
            "error: invalid value '-3' for '--margin <M>': must be a number in 0..=100000",
        ),
    ] {
        let out = planet(&[&["path", "--planet", "1"][..], args].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).starts_with(message), "{args:?}: {}", text(&out.stderr));
    }
}

/// A place on `planet` of the default system well under its sea, as
/// `LAT,LON` (found, not hard-coded: the terrain changes with the generator).
fn sea_point(planet: usize) -> String {
    let p = &PlannedSystem::default_system().planets[planet];
    let t = planet::terrain::Terrain::new(p);
    let level = t.recipe.sea.level_m;
    (0..36 * 72)
        .map(|i| (f32::from((i / 72) as u8) * 5.0 - 87.5, f32::from((i % 72) as u8) * 5.0 - 177.5))
        .find(|&(lat, lon)| t.surface_height_at(planet::terrain::lat_lon_direction(lat, lon)) < level - 20.0)
        .map(|(lat, lon)| format!("{lat},{lon}"))
        .expect("the planet has a sea")
}

/// Every file argument goes through one bounded reader: devices, FIFOs and
/// folders are refused by type, files over their kind's cap by size, before
/// anything is read (a device would otherwise be read until memory ran out).
#[test]
fn file_arguments_are_bounded_and_refused_by_type() {
    let dir = common::scratch_dir("cli-bounded", "files");
    let fifo = dir.join("fifo.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    let big = dir.join("big.json");
    std::fs::write(&big, vec![b' '; (4 << 20) + 1]).unwrap();
    let s = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    let mut cases: Vec<(Vec<String>, String)> = vec![
        (vec!["validate".into(), "/dev/zero".into()], "/dev/zero: is not a regular file".into()),
        (vec!["system".into(), "/dev/zero".into()], "/dev/zero: is not a regular file".into()),
        (vec!["validate".into(), s(&dir)], format!("{}: is a directory; a recipe is a file", dir.display())),
        (vec!["validate".into(), s(&big)], format!("{}: 4194305 bytes, more than the 4194304 allowed", big.display())),
        (vec!["stream".into(), "--path".into(), "/dev/zero".into()], "a camera path is a file".into()),
        (vec!["inspect".into(), "/dev/zero".into()], "/dev/zero: is not a regular file".into()),
    ];
    if made {
        cases.push((vec!["validate".into(), s(&fifo)], "is not a regular file (a device, FIFO or socket)".into()));
    }
    for (args, message) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = planet(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).starts_with("error: ") && text(&out.stderr).contains(message.as_str()),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    // A dump stage file gets exactly the size its manifest records.
    let dump = dir.join("dump");
    assert!(
        planet(&["dump", "--planet", "1", "--key", "0/6/2/2/0", "--out", &s(&dump), "--repeat", "1"]).status.success()
    );
    let voxels = dump.join("voxels.bin");
    let mut bytes = std::fs::read(&voxels).unwrap();
    let recorded = bytes.len();
    bytes.push(0);
    std::fs::write(&voxels, &bytes).unwrap();
    let out = planet(&["replay", &s(&dump), "--repeat", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let want = format!("{}: {} bytes, more than the {recorded} the manifest records", voxels.display(), recorded + 1);
    assert!(text(&out.stderr).contains(&want), "{}", text(&out.stderr));
}

/// A recipe with thousands of errors lists the first 50 and how many more.
#[test]
fn long_error_lists_stop_with_a_count() {
    let planets: Vec<String> = (0..5000).map(|_| r#"{"index": 99}"#.to_owned()).collect();
    let file = scratch("many.json", format!(r#"{{"seed": 1, "planets": [{}]}}"#, planets.join(",")).as_bytes());
    for command in ["validate", "system"] {
        let out = planet(&[command, file.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        let err = text(&out.stderr);
        let lines: Vec<&str> = err.lines().collect();
        assert!(lines.len() <= 52, "{command}: {} lines", lines.len());
        assert!(lines.last().unwrap().ends_with("... and 4950 more"), "{command}: {:?}", lines.last());
    }
}

/// Every headless subcommand with stdout closed (a pipe whose reader has
/// gone: exit 141, quietly) and with stdout on a full disk (`/dev/full`:
/// exit 1, naming stdout); none panics (`planet` fails the test on a panic
/// message). A dump manifest's time too large for a `Duration` is refused.
#[test]
fn a_closed_or_full_stdout_never_panics() {
    let dir = common::scratch_dir("cli-stdout", "files");
    let s = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    let dump = dir.join("dump");
    assert!(
        planet(&["dump", "--planet", "1", "--key", "0/6/2/2/0", "--out", &s(&dump), "--repeat", "1"]).status.success()
    );
    let recipe = scratch("ok.json", br#"{"seed": 5}"#);
    let camera = scratch(
        "stdout-path.json",
        br#"{"name": "short", "planet": 1, "keyframes": [
            {"t": 0, "lat": 0, "lon": 0, "altitude_m": 3000, "heading_deg": 0, "pitch_deg": -30}]}"#,
    );
    let (map, slice, mesh, dump2) =
        (s(&dir.join("map.png")), s(&dir.join("slice.png")), s(&dir.join("mesh.obj")), s(&dir.join("dump2")));
    let commands: Vec<Vec<String>> = [
        vec!["map", "--planet", "2", "--width", "16", "--out", &map],
        vec!["slice", "--planet", "1", "--key", "0/6/2/2/0", "--out", &slice],
        vec!["mesh", "--planet", "1", "--key", "0/6/2/2/0", "--out", &mesh],
        vec!["dump", "--planet", "1", "--key", "0/6/2/2/0", "--out", &dump2, "--repeat", "1"],
        vec!["system"],
        vec!["system", "--json"],
        vec!["signature"],
        vec!["plan", "--planet", "2"],
        vec!["plan", "--planet", "2", "--json"],
        vec!["settlements", "--planet", "3"],
        vec!["settlements", "--planet", "3", "--json"],
        vec!["nearest", "--planet", "1", "--at", "10,20"],
        vec!["nearest", "--planet", "1", "--at", "10,20", "--json"],
        vec!["creatures", "--planet", "1", "--at", "7.38,19.5"],
        vec!["validate", recipe.to_str().unwrap()],
        vec!["region", "--planet", "1", "--key", "0/6/2/2/0"],
        vec!["scatter", "--planet", "1", "--key", "0/6/2/2/0"],
        vec!["inspect", dump.to_str().unwrap()],
        vec!["replay", dump.to_str().unwrap(), "--repeat", "1"],
        vec!["path", "--planet", "1", "--from", "-15,0", "--to", "-16,1", "--quiet"],
        vec!["stream", "--path", camera.to_str().unwrap(), "--unpaced", "--settle-timeout", "1", "--quiet"],
    ]
    .iter()
    .map(|c| c.iter().map(|a| (*a).to_owned()).collect())
    .collect();
    for args in &commands {
        common::assert_closed_and_full_stdout(args, true);
    }
    // A recorded time of 1e308 ms would overflow a `Duration`.
    let manifest = dump.join("manifest.json");
    let text_of = std::fs::read_to_string(&manifest).unwrap();
    let at = text_of.find("\"time_ms\": ").unwrap() + "\"time_ms\": ".len();
    let end = at + text_of[at..].find([',', '\n']).unwrap();
    std::fs::write(&manifest, format!("{}1e308{}", &text_of[..at], &text_of[end..])).unwrap();
    let out = planet(&["replay", &s(&dump), "--repeat", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("time_ms = 100000000"), "{}", text(&out.stderr));
}

/// Outputs are replaced whole or not at all: `map` (a PNG) and `dump` (a
/// folder) killed at 50 points spread over a run each leave either the earlier
/// output or the complete new one (both the same bytes: outputs are
/// deterministic), never a partial or empty one; a clean run leaves no
/// temporary file; an unsupported extension is refused before any work.
#[test]
fn killed_writers_never_destroy_the_earlier_output() {
    let dir = common::scratch_dir("cli-kill", "outputs");
    let s = |p: &std::path::Path| p.to_str().unwrap().to_owned();
    let png = dir.join("map.png");
    let dump = dir.join("dump");
    let (slice, mesh, path, replayed, report) = (
        dir.join("slice.png"),
        dir.join("mesh.ply"),
        dir.join("path.json"),
        dir.join("replayed"),
        dir.join("report.json"),
    );
    let owned = |a: &[&str]| a.iter().map(|x| (*x).to_owned()).collect::<Vec<String>>();
    let map_args = owned(&["map", "--planet", "1", "--width", "256", "--out", &s(&png)]);
    let dump_args = owned(&["dump", "--planet", "1", "--key", "0/6/2/2/0", "--out", &s(&dump), "--repeat", "1"]);
    let slice_args = owned(&["slice", "--planet", "1", "--key", "0/6/2/2/0", "--scale", "16", "--out", &s(&slice)]);
    let mesh_args = owned(&["mesh", "--planet", "1", "--key", "0/6/2/2/0", "--neighbours", "--out", &s(&mesh)]);
    let path_args =
        owned(&["path", "--planet", "1", "--from", "-15,0", "--to", "-15.3,0.3", "--quiet", "--out", &s(&path)]);
    let replay_args = owned(&["replay", &s(&dump), "--repeat", "1", "--out", &s(&replayed)]);
    let inspected = dir.join("inspected");
    let inspect_args = owned(&["inspect", &s(&dump), "--out", &s(&inspected)]);
    let camera = scratch(
        "short-path.json",
        br#"{"name": "short", "planet": 1, "keyframes": [
            {"t": 0, "lat": 0, "lon": 0, "altitude_m": 3000, "heading_deg": 0, "pitch_deg": -30},
            {"t": 0.5, "lat": 1, "lon": 0, "altitude_m": 3000, "heading_deg": 0, "pitch_deg": -30}]}"#,
    );
    let stream_args = owned(&[
        "stream",
        "--path",
        &s(&camera),
        "--unpaced",
        "--settle-timeout",
        "2",
        "--threads",
        "1",
        "--quiet",
        "--report",
        &s(&report),
    ]);
    let entries = |d: &std::path::Path| {
        let mut names: Vec<String> =
            std::fs::read_dir(d).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    };
    let folder = |d: &std::path::Path| -> Vec<(String, Vec<u8>)> {
        entries(d)
            .into_iter()
            .map(|n| {
                let b = std::fs::read(d.join(&n)).unwrap();
                (n, b)
            })
            .collect()
    };
    // A dump is whole when its manifest lists every file as it is (its times differ from run to run).
    let whole_dump = |dump: &std::path::Path| {
        let files = folder(dump);
        let manifest = files.iter().find(|(n, _)| n == "manifest.json").expect("a dump has its manifest");
        let m = planet::dump::Manifest::from_json(&manifest.1).expect("a whole manifest");
        let listed: Vec<&planet::dump::FileEntry> =
            std::iter::once(&m.recipe).chain(m.stages.iter().map(|e| &e.file)).collect();
        let whole = listed.len() + 1 == files.len()
            && listed.iter().all(|e| files.iter().any(|(n, b)| *n == e.file && e.matches(b)));
        let hashes: Vec<(String, String)> = files
            .iter()
            .filter(|(n, _)| n != "manifest.json")
            .map(|(n, b)| (n.clone(), planet::dump::hash_hex(b)))
            .collect();
        serde_json::to_vec(&(whole, hashes)).unwrap()
    };
    let bytes = |p: &std::path::Path| std::fs::read(p).unwrap();
    // Each writer's arguments, and the state of its output (the same bytes
    // before and after a run that was not killed).
    type Check<'a> = Box<dyn Fn() -> Vec<u8> + 'a>;
    let checks: [(&[String], Check<'_>); 8] = [
        (&map_args, Box::new(|| bytes(&png))),
        (&dump_args, Box::new(|| whole_dump(&dump))),
        (&slice_args, Box::new(|| bytes(&slice))),
        (&mesh_args, Box::new(|| bytes(&mesh))),
        (&path_args, Box::new(|| bytes(&path))),
        (&replay_args, Box::new(|| whole_dump(&replayed))),
        // Inspect's exports: each file whole (the same bytes every run); a
        // killed run may leave its temporary (dot) name beside them.
        (
            &inspect_args,
            Box::new(|| {
                let files: Vec<(String, String)> = folder(&inspected)
                    .into_iter()
                    .filter(|(n, _)| !n.starts_with('.'))
                    .map(|(n, b)| (n, planet::dump::hash_hex(&b)))
                    .collect();
                serde_json::to_vec(&files).unwrap()
            }),
        ),
        // A report's timings differ from run to run: it must be whole JSON.
        (
            &stream_args,
            Box::new(|| vec![u8::from(serde_json::from_slice::<serde_json::Value>(&bytes(&report)).is_ok())]),
        ),
    ];
    for (args, check) in checks {
        common::assert_kills_keep_the_output(args, &dir, check);
    }
    // Decided from the extension before any work: nothing is written, an earlier file is kept.
    std::fs::write(dir.join("map.jpg"), b"earlier").unwrap();
    let out = planet(&["map", "--planet", "1", "--out", &s(&dir.join("map.jpg"))]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--out") && text(&out.stderr).contains("must end in .png"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read(dir.join("map.jpg")).unwrap(), b"earlier");
}
