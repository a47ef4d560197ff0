//! The rendering commands as a user runs them: `planet capture`, `planet
//! tour`, `planet` with no arguments, and the flight client in a real window
//! under Xvfb driven by an input script. They need a Vulkan device (Mesa's
//! lavapipe: `apt-get install mesa-vulkan-drivers`) and, for the window,
//! `xvfb`; `.ci/run` installs both.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::planet_env as planet;

fn scratch(name: &str) -> PathBuf {
    common::scratch_dir("render-cli", name)
}

fn stderr(out: &Output) -> String {
    common::text(&out.stderr)
}

/// An image that shows something: not one flat colour.
fn assert_picture(path: &Path, size: (u32, u32)) -> image::RgbaImage {
    let image = image::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())).to_rgba8();
    assert_eq!(image.dimensions(), size, "{}", path.display());
    let first = *image.get_pixel(0, 0);
    let other = image.pixels().filter(|p| **p != first).count();
    assert!(other > (size.0 * size.1 / 10) as usize, "{} is nearly blank", path.display());
    image
}

#[test]
fn capture_writes_a_png_and_rejects_bad_arguments() {
    let dir = scratch("capture");
    let out_path = dir.join("shot.png");
    let out =
        planet(&["capture", "--view", "planet=1,lat=-30,lon=-90,alt=300,pitch=-20", "--size", "160x90", "--out"], &[]);
    assert_eq!(out.status.code(), Some(2), "--out needs a value: {}", stderr(&out));
    let out = planet(
        &[
            "capture",
            "--view",
            "planet=1,lat=-30,lon=-90,alt=300,pitch=-20",
            "--size",
            "160x90",
            "--stats",
            "--out",
            out_path.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("settled after"), "{}", stderr(&out));
    // Where the start-up went, and when the first frame was there.
    for phase in ["started in ", " s: world ", ", device ", ", renderer ", "; first frame "] {
        assert!(stderr(&out).contains(phase), "no {phase:?} in {}", stderr(&out));
    }
    assert!(String::from_utf8_lossy(&out.stdout).contains("draws "));
    assert_picture(&out_path, (160, 90));

    for (args, message) in [
        (vec!["--size", "10x10"], "invalid value '10x10' for '--size <WxH>': must be WIDTHxHEIGHT, each in 16..=8192"),
        (vec!["--size", "wide"], "invalid value 'wide' for '--size <WxH>'"),
        (vec!["--view", "lat=91"], "view: lat = 91: must be in -90..=90"),
        (vec!["--view", "planet=9"], "view: planet = 9: the system has planets 0..=4"),
        (vec!["--view", "look=1,planet=1"], "a planet cannot look at itself"),
        (vec!["--view", "zoom=2"], "unknown key `zoom`"),
        (vec!["--timeout=-1"], "invalid value '-1' for '--timeout <S>': must be a number in 0..=600"),
        (vec!["--timeout", "-1"], "invalid value '-1' for '--timeout <S>': must be a number in 0..=600"),
        (vec!["--path", "nowhere.json"], "cannot read nowhere.json"),
    ] {
        let mut all = vec!["capture", "--out", out_path.to_str().unwrap()];
        all.extend(args.iter());
        let out = planet(&all, &[]);
        assert_ne!(out.status.code(), Some(0), "{all:?} succeeded");
        assert!(stderr(&out).contains(message), "{all:?}: {}", stderr(&out));
    }
}

/// The rendering commands that print to stdout, into a closed pipe (exit
/// 141, quietly) and onto a full disk (exit 1, saying so), never panic; the
/// headless ones are checked in `cli.rs`. (`fly` prints to stderr only.)
#[test]
fn capture_and_tour_never_panic_on_a_closed_or_full_stdout() {
    let dir = scratch("stdout");
    let shot = dir.join("shot.png");
    let tour = dir.join("tour");
    let commands: [Vec<&str>; 2] = [
        vec![
            "capture",
            "--view",
            "planet=1,lat=-30,lon=-90,alt=300,pitch=-20",
            "--size",
            "32x18",
            "--stats",
            "--out",
            shot.to_str().unwrap(),
        ],
        vec!["tour", "--size", "16x16", "--out", tour.to_str().unwrap()],
    ];
    for args in &commands {
        common::assert_closed_and_full_stdout(args, false);
    }
    // `fly` writes nothing to stdout: with no display it fails on the window
    // (exit 1), whatever stdout is, and never panics.
    for stdout in [Stdio::null(), std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap().into()] {
        let (code, err) = common::planet_with_stdout(&["fly", "--seconds", "1"], stdout);
        assert_eq!(code, Some(1), "fly with no display: {err}");
        assert!(err.contains("cannot open a window"), "{err}");
    }
}

/// `capture` and `tour` killed at 50 points of a run each leave the earlier
/// output or the complete new one (the same bytes: captures are
/// deterministic on one device), never a partial picture or a half-filled
/// folder; a clean run leaves no temporary file. The tour is of a one-planet
/// system, so that 50 runs stay short.
#[test]
fn killed_captures_and_tours_never_destroy_the_earlier_output() {
    let dir = scratch("kill");
    let (shot, tour) = (dir.join("shot.png"), dir.join("tour"));
    let system = dir.join("one-planet.json");
    std::fs::write(&system, br#"{"seed": 5, "planet_count": 1}"#).unwrap();
    let view = "planet=2,lat=1.9593,lon=100.9664,alt=3000,pitch=-60";
    let capture: Vec<&str> = vec!["capture", "--view", view, "--size", "32x18", "--out", shot.to_str().unwrap()];
    let tour_args: Vec<&str> =
        vec!["tour", "--system", system.to_str().unwrap(), "--size", "16x16", "--out", tour.to_str().unwrap()];
    // The output's state: its files' names and bytes (a tour's folder is swapped in whole).
    let state = |path: &Path| -> Vec<(String, Vec<u8>)> {
        if path.is_file() {
            return vec![(String::new(), std::fs::read(path).unwrap())];
        }
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap())
            })
            .collect();
        files.sort();
        files
    };
    for (args, output) in [(&capture, &shot), (&tour_args, &tour)] {
        common::assert_kills_keep_the_output(args, &dir, || state(output));
    }
}

#[test]
fn tour_captures_every_planet_four_ways() {
    let dir = scratch("tour");
    let out = planet(&["tour", "--size", "96x54", "--out", dir.to_str().unwrap()], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let listed: Vec<String> = String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect();
    // Five planets from orbit, a kilometre up, 300 m up and the ground, and one look across.
    assert_eq!(listed.len(), 21, "{listed:?}");
    for line in listed.iter().filter(|l| !l.contains("toward")) {
        assert_picture(Path::new(line), (96, 54));
    }
    // The look across: black sky with the neighbour in the middle of it.
    let across = listed.iter().find(|l| l.contains("toward")).expect("a look across");
    let image = image::open(across).unwrap().to_rgba8();
    let brightest = (45..52)
        .flat_map(|x| (24..31).map(move |y| (x, y)))
        .map(|(x, y)| image.get_pixel(x, y).0[..3].iter().map(|&c| u32::from(c)).sum::<u32>())
        .max()
        .unwrap();
    assert!(brightest > 120, "no planet at the centre of {across}");
    assert!(listed.iter().any(|l| l.ends_with("1-draraor-orbit.png")));
    assert!(listed.iter().any(|l| l.ends_with("1-draraor-300m.png")));
}

#[test]
fn with_no_arguments_and_a_display_it_flies_or_says_why_not() {
    // A display that does not exist: the client says it cannot open a window.
    let out = planet(&[], &[("DISPLAY", ":4242")]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("window"), "{}", stderr(&out));
}

/// An Xvfb server on a free display, stopped on drop.
struct Xvfb {
    child: Child,
    display: String,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn xvfb() -> Xvfb {
    for n in 90..120 {
        if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() || Path::new(&format!("/tmp/.X{n}-lock")).exists() {
            continue;
        }
        let display = format!(":{n}");
        let mut child = Command::new("Xvfb")
            .args([display.as_str(), "-screen", "0", "800x600x24", "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb runs (apt-get install xvfb)");
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10) {
            if Path::new(&format!("/tmp/.X11-unix/X{n}")).exists() {
                return Xvfb { child, display };
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    panic!("no Xvfb display could be started");
}

#[test]
fn the_flight_client_flies_a_script_in_a_window_under_xvfb() {
    let server = xvfb();
    let dir = scratch("fly");
    let shot = dir.join("window.png");
    let out = planet(
        &[
            "fly",
            "--script",
            "takeoff",
            "--seconds",
            "4",
            "--size",
            "320x180",
            "--threads",
            "2",
            "--screenshot",
            shot.to_str().unwrap(),
        ],
        &[("DISPLAY", server.display.as_str())],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // The readout: fps, altitude, speed, nearest planet with its local time
    // and the clock's scale, its nearest town, regions.
    let err = stderr(&out);
    let readout = err.lines().find(|l| l.starts_with("planet: ")).unwrap_or_else(|| panic!("no readout: {err}"));
    for part in [" fps | alt ", " | near Draraor ", " x1 | town ", " deg | regions ", " ready, ", " queued"] {
        assert!(readout.contains(part), "{readout}");
    }
    let clock = readout.split(" | near Draraor ").nth(1).and_then(|r| r.split(' ').next()).unwrap_or("");
    let hours: Vec<u32> = clock.split(':').filter_map(|x| x.parse().ok()).collect();
    assert!(hours.len() == 2 && hours[0] < 24 && hours[1] < 60, "no local time in {readout}");
    // The window's last frame: sky on top, ground below, after climbing away.
    let image = assert_picture(&shot, (320, 180));
    let top = image.get_pixel(160, 2).0;
    assert!(top[2] > top[0], "the top of the window is not sky: {top:?}");

    // Walk mode: land (walk toggles on), walk and jump; the readout says so.
    let script = dir.join("walk.json");
    std::fs::write(
        &script,
        r#"[{"until": 0.3}, {"until": 0.5, "keys": ["walk"]}, {"until": 2.0, "keys": ["w", "jump"]}, {"until": 1e9, "keys": ["w"]}]"#,
    )
    .unwrap();
    let out = planet(
        &["fly", "--script", script.to_str().unwrap(), "--seconds", "3", "--size", "320x180", "--threads", "2"],
        &[("DISPLAY", server.display.as_str())],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.lines().any(|l| l.starts_with("planet: ") && l.contains(" | walk")), "not walking: {err}");

    // The done check of walking: before a cave mouth, walk mode on, walk
    // ahead: down the hillside and into the cave, standing on its floor.
    let out = planet(
        &["fly", "--view", "cave", "--script", "cave", "--seconds", "14", "--size", "320x180", "--threads", "2"],
        &[("DISPLAY", server.display.as_str())],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    let last = err.lines().rfind(|l| l.starts_with("planet: ")).unwrap_or_default();
    let depth: f64 = last
        .split_once(" m underground)")
        .and_then(|(before, _)| before.rsplit_once('(')?.1.parse().ok())
        .unwrap_or_else(|| panic!("not underground: {err}"));
    assert!(depth > 10.0 && last.contains(" | walk"), "not walking in the cave: {last}");

    // The done check of editing: dig into the ground, walk into the hole,
    // quit (the edits saved), start again with the save and find them.
    let save = dir.join("world.save");
    let fly_dig = |seconds: &str, shot: &Path| {
        let args = ["fly", "--script", "dig", "--seconds", seconds, "--size", "320x180", "--threads", "2"];
        let more = ["--save", save.to_str().unwrap(), "--screenshot", shot.to_str().unwrap()];
        planet(&[&args[..], &more[..]].concat(), &[("DISPLAY", server.display.as_str())])
    };
    let out = fly_dig("10", &dir.join("dig.png"));
    assert!(out.status.success(), "{}", stderr(&out));
    let saved = planet::edit::save::Save::decode(&std::fs::read(&save).unwrap()).unwrap();
    assert_eq!(saved.planets[1].len(), 2, "two digs saved: {:?}", saved.planets[1]);
    assert!(saved.planets[1].iter().all(|e| e.op == planet::edit::Operation::Dig));
    let err = stderr(&out);
    let last = err.lines().rfind(|l| l.starts_with("planet: ")).unwrap_or_default();
    assert!(last.contains(" | dig 4 m ball, ") && last.contains(" | 2 edits"), "{last}");
    let out = fly_dig("1", &dir.join("again.png"));
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains(&format!("loaded {}: 2 edits", save.display())), "{}", stderr(&out));
    assert_picture(&dir.join("dig.png"), (320, 180));

    let bad = planet(&["fly", "--script", "nowhere.json"], &[("DISPLAY", server.display.as_str())]);
    assert_eq!(bad.status.code(), Some(1), "{}", stderr(&bad));
    let bad = planet(&["fly", "--seconds", "0"], &[("DISPLAY", server.display.as_str())]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
}
