//! Saves through the CLI: `planet edit` adds edits to a save, `planet
//! capture --save` refuses a damaged or foreign one with a reason, and a
//! save survives `kill -9`: runs of `planet edit` killed at each step of the
//! save's write (held there by `PLANET_SAVE_HOLD`) and at points spread over
//! a run by a timer never leave a save that does not load, and never lose an
//! edit that was written before.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Instant;

use common::{planet, scratch_dir, text};
use engine::savefile::HoldStep;
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

/// What a run left: the save's edits on planet 1, checked against the edits
/// before the run.
struct Kept {
    /// The edits the save held before this run.
    count: usize,
    /// Those edits.
    previous: Vec<Edit>,
}

impl Kept {
    /// Loads the save after run `i` (which must load), checks that the
    /// earlier edits are still there in order and that it holds `count` or
    /// `count + 1` edits as `grew` allows, and takes it as the new state.
    /// Returns whether the run's edit is in it.
    fn check(&mut self, save: &std::path::Path, i: u32, grew: &[bool]) -> bool {
        let bytes = std::fs::read(save).expect("a save is always there");
        let loaded =
            Save::decode(&bytes).unwrap_or_else(|e| panic!("run {i}: the save does not load after a kill: {e}"));
        let now = loaded.planets[1].len();
        let added = now == self.count + 1;
        assert!(
            (now == self.count || added) && grew.contains(&added),
            "run {i}: {} edits before, {now} after (allowed to grow: {grew:?})",
            self.count
        );
        // No Debug print: 200,000 edits.
        assert!(loaded.planets[1][..self.count] == self.previous[..self.count], "run {i}: earlier edits changed");
        self.count = now;
        self.previous = loaded.planets[1].clone();
        added
    }
}

/// The temporary files a killed write left in `dir`, removed.
fn take_temporaries(dir: &std::path::Path) -> usize {
    let mut found = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.starts_with(".world.save") {
            found += 1;
            std::fs::remove_file(dir.join(name)).unwrap();
        }
    }
    found
}

#[test]
fn a_save_killed_mid_write_always_loads_and_keeps_what_was_written() {
    let dir = scratch_dir("saves", "kill");
    let save = dir.join("world.save");
    let backup = dir.join("world.save.bak");
    // A large save, so that writing it takes a while and timed kills land in it too.
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
    // The shortest of three clean runs, which the timed kills spread over.
    let took = (0..3)
        .map(|_| {
            let clean = Instant::now();
            assert!(run(0).status().unwrap().success());
            clean.elapsed()
        })
        .min()
        .unwrap();
    let previous = Save::decode(&std::fs::read(&save).unwrap()).unwrap().planets[1].clone();
    assert_eq!(previous.len(), start.planets[1].len() + 3, "the clean runs each add an edit");
    let mut kept = Kept { count: previous.len(), previous };

    // Kills at each step of the write, held there by PLANET_SAVE_HOLD, so
    // each lands where it is meant to whatever the machine's load.
    let mut i = 0;
    for step in HoldStep::ALL {
        for _ in 0..3 {
            i += 1;
            let mut child = run(i).env("PLANET_SAVE_HOLD", step.name()).stderr(Stdio::piped()).spawn().unwrap();
            let stderr = BufReader::new(child.stderr.take().unwrap());
            // Bounded by the child: its stderr ends when it exits.
            let mut said = Vec::new();
            for line in stderr.lines() {
                let line = line.unwrap();
                if line.starts_with("save held at") {
                    said.clear();
                    break;
                }
                said.push(line);
            }
            assert!(said.is_empty(), "run {i} ended before the write reached {}: {said:?}", step.name());
            child.kill().unwrap();
            assert!(!child.wait().unwrap().success());
            let replaced = step == HoldStep::Replaced;
            assert!(kept.check(&save, i, &[replaced]) == replaced);
            assert_eq!(take_temporaries(&dir), usize::from(!replaced), "run {i}: temporaries after {}", step.name());
            if matches!(step, HoldStep::BackedUp | HoldStep::Replaced) {
                let old = Save::decode(&std::fs::read(&backup).unwrap()).unwrap();
                assert_eq!(old.planets[1].len(), kept.count - usize::from(replaced), "run {i}: the backup");
            }
        }
    }

    // Kills by a timer, spread over the shortest clean run: they land while
    // the save is read, checked or written, and a few finish.
    let (mut finished, mut killed, mut mid_write) = (0, 0, 0);
    for _ in 0..60 {
        i += 1;
        let mut child = run(i).spawn().unwrap();
        let at = f64::from(i % 30) / 30.0;
        std::thread::sleep(took.mul_f64(if i % 2 == 0 { at } else { 0.85 + 0.35 * at }));
        let _ = child.kill();
        if child.wait().unwrap().success() {
            finished += 1;
            kept.check(&save, i, &[true]);
        } else {
            killed += 1;
            kept.check(&save, i, &[false, true]);
        }
        mid_write += take_temporaries(&dir).min(1);
    }
    eprintln!(
        "15 runs held and killed at the write's five steps; {killed} killed by a timer ({mid_write} while \
         writing), {finished} finished; {} edits",
        kept.count
    );
    // The timer's figures depend on the machine's load: only printed.
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
