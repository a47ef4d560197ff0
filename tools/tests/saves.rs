//! Saves through the CLI: `planet edit` adds edits to a save, `planet
//! capture --save` refuses a damaged or foreign one with a reason, and a
//! save survives `kill -9`: 200 runs of `planet edit` killed at points spread
//! over a run (most of them while the save is written) never leave a save
//! that does not load, and never lose an edit that was written before.

mod common;

use std::process::{Command, Stdio};
use std::time::Instant;

use common::{planet, scratch_dir, text};
use planet::edit::save::Save;
use planet::edit::{Brush, Edit, Operation};

fn s(p: &std::path::Path) -> String {
    p.to_str().unwrap().to_owned()
}

#[test]
fn edits_are_added_and_bad_saves_refused() {
    let dir = scratch_dir("saves", "cli");
    let save = dir.join("world.save");
    let out =
        planet(&["edit", "--save", &s(&save), "--planet", "1", "--at", "-22.3,-16.8", "--op", "dig", "--radius", "5"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("dig with a sphere of 5 m at -22.3,-16.8"), "{}", text(&out.stdout));
    let args = ["edit", "--save", &s(&save), "--planet", "1", "--at", "-22.3,-16.8", "--op", "fill", "--box", "2,3,4"];
    let out = planet(&[&args[..], &["--material", "1"]].concat());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let loaded = Save::decode(&std::fs::read(&save).unwrap()).unwrap();
    assert_eq!(loaded.planets[1].len(), 2);
    assert_eq!(loaded.planets[1][1].brush, Brush::Box { half_m: [2.0, 3.0, 4.0], yaw_deg: 0.0 });
    assert_eq!(loaded.planets[1][1].material, 1);
    assert!(dir.join("world.save.bak").is_file(), "the second write keeps the first as a backup");
    // Bad arguments: each names its flag and range, exit 2, and the save is untouched.
    let before = std::fs::read(&save).unwrap();
    for (extra, expect) in [
        (vec!["--op", "blast"], "--op blast: must be one of dig, fill, flatten, paint"),
        (vec!["--op", "dig", "--radius", "0"], "radius_m = 0: must be in 0.25..=64 m"),
        (vec!["--op", "dig", "--radius", "65"], "radius_m = 65"),
        (vec!["--op", "dig", "--box", "1,2"], "--box 1,2: must be three numbers"),
        (vec!["--op", "dig", "--depth", "100"], "--depth 100: must be in -64..=64 m"),
        (vec!["--op", "paint", "--material", "granite-ish"], "--material granite-ish: must be one of 0 "),
    ] {
        let base = ["edit", "--save", &s(&save), "--planet", "1", "--at", "-22.3,-16.8"];
        let out = planet(&[&base[..], &extra[..]].concat());
        assert_eq!(out.status.code(), Some(2), "{extra:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(expect), "{extra:?}: {}", text(&out.stderr));
    }
    assert_eq!(std::fs::read(&save).unwrap(), before, "a refused edit changed the save");
    // A damaged save: refused, naming the record and offering the backup.
    let mut damaged = before.clone();
    let at = damaged.len() - 10;
    damaged[at] ^= 0x40;
    std::fs::write(&save, &damaged).unwrap();
    let out = planet(&["edit", "--save", &s(&save), "--planet", "1", "--at", "0,0", "--op", "dig"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("is damaged and was not loaded: record 1 (edits)") && err.contains("world.save.bak reads"),
        "{err}"
    );
    // Another system's save.
    let recipe = dir.join("other.json");
    std::fs::write(&recipe, br#"{"seed": 7}"#).unwrap();
    std::fs::write(&save, &before).unwrap();
    let out =
        planet(&["edit", "--save", &s(&save), "--system", &s(&recipe), "--planet", "1", "--at", "0,0", "--op", "dig"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("the save is of system"), "{}", text(&out.stderr));
}

#[test]
fn a_save_killed_mid_write_always_loads_and_keeps_what_was_written() {
    let dir = scratch_dir("saves", "kill");
    let save = dir.join("world.save");
    // A large save, so that writing it takes a while and kills land in it.
    let mut start = Save::new(planet::PlannedSystem::default_system().signature(), 5);
    let edit =
        Edit { op: Operation::Dig, brush: Brush::Sphere { radius_m: 1.0 }, centre: [0.0, 4000.0, 0.0], material: 0 };
    start.planets[1] = vec![edit; 200_000];
    engine::savefile::write_save(&save, &start).unwrap();
    let args = |i: u32| {
        let at = format!("{},{}", -20.0 + f64::from(i % 40) * 0.01, -14.0);
        ["edit", "--save", &s(&save), "--planet", "1", "--at", &at, "--op", "dig", "--radius", "1"].map(str::to_owned)
    };
    let run = |i: u32| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_planet"));
        command.args(args(i)).stdout(Stdio::null()).stderr(Stdio::null());
        command
    };
    // The shortest of three clean runs: kills are spread over it.
    let took = (0..3)
        .map(|_| {
            let clean = Instant::now();
            assert!(run(0).status().unwrap().success());
            clean.elapsed()
        })
        .min()
        .unwrap();
    let mut count = start.planets[1].len() + 3;
    let mut previous = Save::decode(&std::fs::read(&save).unwrap()).unwrap().planets[1].clone();
    let (mut finished, mut killed, mut mid_write) = (0, 0, 0);
    // 200 runs, and up to 200 more until ten kills have landed mid-write
    // (the write is the last few per cent of a run, whose timing a loaded
    // machine moves).
    for i in 1..=400u32 {
        if i > 200 && mid_write >= 10 {
            break;
        }
        let mut child = run(i).spawn().unwrap();
        // Spread over a run: many land while the save is read, checked or
        // written. Odd runs land from 0.85 to 1.2 of the shortest clean run,
        // around the write at its end (making the planet's layout and
        // settlements takes most of a run, and a loaded machine stretches it).
        let at = f64::from(i % 50) / 50.0;
        std::thread::sleep(took.mul_f64(if i % 2 == 0 { at } else { 0.85 + 0.35 * at }));
        let _ = child.kill();
        let status = child.wait().unwrap();
        let bytes = std::fs::read(&save).expect("a save is always there");
        let loaded =
            Save::decode(&bytes).unwrap_or_else(|e| panic!("run {i}: the save does not load after a kill: {e}"));
        let now = loaded.planets[1].len();
        if status.success() {
            finished += 1;
            assert_eq!(now, count + 1, "run {i} finished but its edit is not in the save");
        } else {
            killed += 1;
            assert!(now == count || now == count + 1, "run {i}: {count} edits before the kill, {now} after");
        }
        // A kill while the new save was being written leaves its temporary file.
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.starts_with(".world.save") {
                mid_write += 1;
                std::fs::remove_file(dir.join(name)).unwrap();
            }
        }
        // Everything written before is still there, in order (no Debug print: 200,000 edits).
        assert!(loaded.planets[1][..count] == previous[..count], "run {i}: earlier edits changed");
        count = now;
        previous = loaded.planets[1].clone();
    }
    eprintln!("{killed} runs killed ({mid_write} while writing the save), {finished} finished; {count} edits");
    assert!(killed >= 100, "only {killed} runs were killed");
    assert!(mid_write >= 10, "only {mid_write} kills landed while the save was written");
}

#[test]
fn planet_edit_aims_at_the_ground_a_baked_save_leaves() {
    // A save whose crowded regions are baked (the digs there dropped from
    // its edits): `planet edit` finds the ground the bakes hold, as a
    // loaded world shows it, not the ground the kept edits alone leave.
    let dir = scratch_dir("saves", "baked");
    let save = dir.join("world.save");
    let system = planet::PlannedSystem::default_system();
    let terrain = planet::terrain::Terrain::new(&system.planets[1]);
    let d = planet::terrain::lat_lon_direction(-22.3233, -16.7839);
    let ground = planet::edit::ground_radius(&terrain, &planet::edit::EditLog::new(), d).unwrap();
    let mut log = planet::edit::EditLog::new();
    let side = d.any_orthonormal_vector();
    // Digs about the spot, then paints over them until every region there
    // is baked after the last dig: the digs all leave the log.
    let spot = |i: usize| {
        let a = i as f32 * 2.4;
        let turn = side * libm::cosf(a) + d.cross(side) * libm::sinf(a);
        (d * ground + turn * ((i % 6) as f32 * 0.5) - d * 1.5).to_array()
    };
    for (op, count) in [(Operation::Dig, 100), (Operation::Paint, 60)] {
        for i in 0..count {
            let edit = Edit { op, brush: Brush::Sphere { radius_m: 2.5 }, centre: spot(i), material: 1 };
            log.push(&terrain, edit).unwrap();
        }
    }
    assert!(log.baked_regions() > 0, "the crowd was not baked");
    assert!(log.edits().iter().all(|e| e.op == Operation::Paint), "digs are left in the log: {:?}", log.edits());
    let mut start = Save::new(system.signature(), system.planets.len());
    start.planets[1] = log.edits().to_vec();
    start.bakes[1] = log.bakes();
    engine::savefile::write_save(&save, &start).unwrap();
    let dug = planet::edit::ground_radius(&terrain, &log, d).unwrap();
    assert!(dug < ground - 2.0, "the crowd dug the ground at the spot down by only {} m", ground - dug);
    let at = "-22.3233,-16.7839";
    let out = planet(&["edit", "--save", &s(&save), "--planet", "1", "--at", at, "--op", "paint", "--radius", "1"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let saved = Save::decode(&std::fs::read(&save).unwrap()).unwrap();
    let paint = saved.planets[1].last().unwrap();
    let r = glam::Vec3::from_array(paint.centre).length();
    assert!(
        (r - dug).abs() < 0.05,
        "the paint's centre is {:.2} m off the baked ground ({:.2} m under the undug)",
        r - dug,
        ground - r
    );
    assert_eq!(saved.bakes[1], start.bakes[1], "the bakes are kept as they were");
}
