//! A table of bad inputs across every kind the `planet` binary reads: flags,
//! views, keys, recipes, camera paths, input scripts and dumps. Each case
//! gives the exit code it must end with and words its message must hold: the
//! flag or field at fault and, for numbers, the allowed range. None may
//! panic (`common::planet` fails the test on a panic message).

mod common;

use std::path::{Path, PathBuf};

use common::{planet, scratch_dir, text};
use planet::dump::DUMP_FORMAT;

/// One bad input: the arguments (`{dir}` is the scratch folder, holding the
/// files below), the exit code, and what stderr must contain.
struct Case {
    args: Vec<String>,
    code: i32,
    needles: Vec<String>,
}

fn case(args: &[&str], code: i32, needles: &[&str]) -> Case {
    Case {
        args: args.iter().map(|s| (*s).to_owned()).collect(),
        code,
        needles: needles.iter().map(|s| (*s).to_owned()).collect(),
    }
}

/// A numeric flag given each of the values a user gets wrong: below, above,
/// negative, fractional, past the type's range, not a number. Each is exit 2
/// naming the flag and its range.
fn flag_cases(command: &[&str], flag: &str, range: &str, values: &[&str]) -> Vec<Case> {
    values
        .iter()
        .map(|v| {
            let mut args = command.to_vec();
            args.extend([flag, v]);
            case(&args, 2, &[&format!("'{flag} <"), range])
        })
        .collect()
}

const WHOLE_BAD: [&str; 5] = ["-1", "1.5", "99999999999999999999", "ten", "1e3"];

fn files(dir: &Path) {
    let write = |name: &str, body: &str| std::fs::write(dir.join(name), body).unwrap();
    // Recipes.
    write("dup-seed.json", r#"{"seed": 1, "seed": 2}"#);
    write("dup-nested.json", r#"{"seed": 1, "planets": [{"index": 1, "radius_m": 3000, "radius_m": 4000}]}"#);
    write("empty.json", "");
    write("array.json", "[1, 2]");
    write("truncated.json", r#"{"seed": 1, "planets": ["#);
    write("no-seed.json", r#"{"name": "x"}"#);
    write("seed-string.json", r#"{"seed": "one"}"#);
    write("seed-negative.json", r#"{"seed": -4}"#);
    write("count.json", r#"{"seed": 1, "planet_count": 99}"#);
    write("unknown.json", r#"{"seed": 1, "colour": 3}"#);
    write("radius.json", r#"{"seed": 1, "planets": [{"index": 0, "radius_m": -5}]}"#);
    write("gravity.json", r#"{"seed": 1, "planets": [{"index": 0, "gravity_mps2": 1e9}]}"#);
    write("kind.json", r#"{"seed": 1, "planets": [{"index": 0, "kind": "gas"}]}"#);
    write("index.json", r#"{"seed": 1, "planet_count": 3, "planets": [{"index": 7}]}"#);
    write("worms.json", r#"{"seed": 1, "planets": [{"index": 1, "caves": {"worm_threshold": 5}}]}"#);
    write("material.json", r#"{"seed": 1, "planets": [{"index": 1, "materials": {"3": {"color": [2, 0, 0]}}}]}"#);
    write(
        "octaves-negative.json",
        r#"{"seed": 1, "planets": [{"index": 1, "terrain": {"hills": {"noise": {"octaves": -2}}}}]}"#,
    );
    write(
        "octaves-huge.json",
        r#"{"seed": 1, "planets": [{"index": 1, "terrain": {"hills": {"noise": {"octaves": 99999999999}}}}]}"#,
    );
    write("index-negative.json", r#"{"seed": 1, "planets": [{"index": -1}]}"#);
    write("not-utf8.json", "\u{0}");
    std::fs::write(dir.join("binary.json"), [0xff, 0xfe, 0x00, 0x7b]).unwrap();
    // Camera paths.
    let key = |t: f64, lon: &str| {
        format!(r#"{{"t": {t}, "lat": 0, "lon": {lon}, "altitude_m": 50, "heading_deg": 0, "pitch_deg": 0}}"#)
    };
    let path = |frames: &str| format!(r#"{{"name": "p", "planet": 1, "keyframes": [{frames}]}}"#);
    write("path-lon.json", &path(&format!("{}, {}", key(0.0, "0"), key(1.0, "2000"))));
    write("path-nan.json", &path(&key(0.0, "1e999")));
    write("path-empty.json", &path(""));
    write("path-order.json", &path(&format!("{}, {}", key(2.0, "0"), key(1.0, "0"))));
    write("path-type.json", &path(&key(0.0, "\"east\"")));
    write(
        "path-dup.json",
        r#"{"name": "p", "planet": 1, "planet": 2, "keyframes": [{"t": 0, "lat": 0, "lon": 0, "altitude_m": 5, "heading_deg": 0, "pitch_deg": 0}]}"#,
    );
    write("path-field.json", r#"{"name": "p", "planet": 1, "keyframes": [{"t": 0, "lat": 0}]}"#);
    write("path-extra.json", r#"{"name": "p", "planet": 1, "speed": 3, "keyframes": []}"#);
    write("path-planet.json", &format!(r#"{{"name": "p", "planet": 9, "keyframes": [{}]}}"#, key(0.0, "0")));
    write("path-alt.json", &path(&key(0.0, "0").replace("\"altitude_m\": 50", "\"altitude_m\": -50")));
    // Input scripts.
    write("script-key.json", r#"[{"until": 1, "keys": ["F13"]}]"#);
    write("script-dup.json", r#"[{"until": 1, "until": 2, "keys": []}]"#);
    write("script-type.json", r#"{"until": 1}"#);
}

/// A dump of a small region, with its manifest then edited by `edit`.
fn dump_with(dir: &Path, name: &str, edit: &dyn Fn(&mut String)) -> PathBuf {
    let out = dir.join(name);
    let made = planet(&["dump", "--planet", "2", "--at", "67,-50,5", "--repeat", "1", "--out", out.to_str().unwrap()]);
    assert_eq!(made.status.code(), Some(0), "{}", text(&made.stderr));
    let manifest = out.join("manifest.json");
    let mut body = std::fs::read_to_string(&manifest).unwrap();
    edit(&mut body);
    std::fs::write(&manifest, body).unwrap();
    out
}

fn table(dir: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    // Shared numeric flags: one range each, whatever the command.
    for command in [&["path", "--planet", "1", "--from", "-15,0", "--to", "-20,10"][..], &["replay", "x"], &["stream"]]
    {
        cases.extend(flag_cases(command, "--threads", "1..=256", &["0", "257", "-2", "2.5", "many"]));
    }
    cases.extend(flag_cases(&["capture", "--out", "x.png"], "--threads", "1..=256", &["0", "-1"]));
    cases.extend(flag_cases(&["capture", "--out", "x.png"], "--timeout", "0..=600", &["-1", "601", "nan", "soon"]));
    cases.extend(flag_cases(&["tour"], "--timeout", "0..=600", &["-0.5", "1e9"]));
    cases.extend(flag_cases(&["stream"], "--settle-timeout", "0..=600", &["-3", "700"]));
    cases.extend(flag_cases(
        &["dump", "--planet", "1", "--at", "0,0", "--out", "d"],
        "--repeat",
        "1..=1000",
        &WHOLE_BAD,
    ));
    cases.extend(flag_cases(&["replay", "x"], "--repeat", "1..=1000", &["0", "1001"]));
    cases.extend(flag_cases(&["stream"], "--repeat", "1..=1000", &["0", "-5"]));
    cases.extend(flag_cases(&["stream"], "--fps", "1..=1000", &["0", "-60", "1e6"]));
    cases.extend(flag_cases(&["stream"], "--cache-mib", "16..=65536", &["8", "-1", "1e5"]));
    cases.extend(flag_cases(&["stream"], "--split", "0.5..=8", &["0.1", "-2", "9"]));
    cases.extend(flag_cases(&["stream"], "--planet", "0..=15", &["-1", "16", "1.5"]));
    cases.extend(flag_cases(&["region", "--key", "0/0/0/0/0"], "--planet", "0..=15", &WHOLE_BAD));
    cases.extend(flag_cases(
        &["slice", "--planet", "1", "--key", "0/0/0/0/0", "--out", "s.png"],
        "--index",
        "0..=35",
        &["36", "-1"],
    ));
    cases.extend(flag_cases(
        &["slice", "--planet", "1", "--key", "0/0/0/0/0", "--out", "s.png"],
        "--scale",
        "1..=64",
        &["0", "65"],
    ));
    cases.extend(flag_cases(&["inspect", "x"], "--index", "0..=35", &["99", "-4"]));
    cases.extend(flag_cases(
        &["map", "--planet", "1", "--out", "m.png"],
        "--width",
        "16..=8192",
        &["8", "17", "-16", "9000"],
    ));
    cases.extend(flag_cases(
        &["path", "--planet", "1", "--from", "-15,0", "--to", "-20,10"],
        "--margin",
        "0..=100000",
        &["-3", "1e7"],
    ));
    cases.extend(flag_cases(
        &["path", "--planet", "1", "--from", "-15,0", "--to", "-20,10"],
        "--lod",
        "0..=31",
        &["-1", "40"],
    ));
    cases.extend(flag_cases(&["fly"], "--seconds", "0.1..=86400", &["0", "-1"]));
    for size in ["640", "8x8", "640x-1", "huge", "640x360x2", "99999x100"] {
        cases.push(case(&["capture", "--out", "x.png", "--size", size], 2, &["'--size <", "16..=8192"]));
    }
    // The planet's own count, after the system is loaded.
    cases.push(case(&["region", "--planet", "9", "--key", "0/0/0/0/0"], 2, &["--planet 9", "0..=4"]));
    cases.push(case(&["stream", "--planet", "7"], 2, &["--planet 7", "0..=4"]));
    // Views.
    for (view, words) in [
        ("lat=91", &["lat = 91", "-90..=90"][..]),
        ("lon=200", &["lon = 200", "-180..=180"]),
        ("alt=-5", &["alt = -5"]),
        ("planet=2.9", &["planet = 2.9", "whole number"]),
        ("planet=-1", &["planet = -1"]),
        ("planet=9", &["planet", "9"]),
        ("lat=1,lat=2", &["lat is given twice"]),
        ("look=2,heading=90", &["look and heading together"]),
        ("speed=3", &["unknown key `speed`"]),
        ("lat", &["not key=value"]),
        ("alt=x", &["not a number"]),
        ("pitch=95", &["pitch = 95"]),
    ] {
        cases.push(case(&["capture", "--out", "x.png", "--view", view], 2, words));
    }
    // Keys and places.
    for (key, words) in [
        ("0/0/999/0/0", &["x = 999", "0..=255"][..]),
        ("7/0/0/0/0", &["face = 7", "0..=5"]),
        ("0/9/0/0/0", &["lod = 9", "0..=8"]),
        ("0/0/0/0", &["--key", "\"0/0/0/0\"", "F/L/X/Y/Z"]),
        ("a/b/c/d/e", &["--key", "\"a/b/c/d/e\"", "F/L/X/Y/Z"]),
        ("0/0/0/0/99", &["z = 99"]),
        ("0/0/99999999999/0/0", &["x = 99999999999", "too large"]),
        ("99999999999/0/0/0/0", &["face = 99999999999", "too large"]),
    ] {
        cases.push(case(&["region", "--planet", "1", "--key", key], 2, words));
    }
    for at in ["95,0", "0,181", "10,20,12", "10,20,1.5", "north"] {
        cases.push(case(&["region", "--planet", "1", "--at", at], 2, &[&format!("--at {at}")]));
    }
    // Recipes.
    let d = |name: &str| dir.join(name).to_str().unwrap().to_owned();
    for (file, code, words) in [
        ("dup-seed.json", 2, &["seed", "given twice"][..]),
        ("dup-nested.json", 2, &["planets[0].radius_m", "given twice"]),
        ("empty.json", 2, &["empty"]),
        ("array.json", 2, &["must be a JSON object"]),
        ("truncated.json", 2, &["ends too early"]),
        ("no-seed.json", 2, &["seed"]),
        ("seed-string.json", 2, &["seed"]),
        ("seed-negative.json", 2, &["seed"]),
        ("count.json", 2, &["planet_count = 99", "1..=16"]),
        ("unknown.json", 2, &["colour"]),
        ("radius.json", 2, &["planets[0].radius_m = -5", "500..=50000"]),
        ("gravity.json", 2, &["planets[0].gravity_mps2"]),
        ("kind.json", 2, &["planets[0].kind"]),
        ("index.json", 2, &["planets[0].index"]),
        ("worms.json", 2, &["caves.worm_threshold = 5"]),
        ("material.json", 2, &["materials[3].color"]),
        ("binary.json", 2, &["not UTF-8"]),
        // Numbers of the wrong sign or size are told the field's range, not the type's.
        ("octaves-negative.json", 2, &["planets[0].terrain.hills.noise.octaves = -2", "1..=16"]),
        ("octaves-huge.json", 2, &["octaves = 99999999999", "1..=16"]),
        ("index-negative.json", 2, &["planets[0].index = -1", "0..=15"]),
        ("missing.json", 1, &["missing.json"]),
    ] {
        cases.push(case(&["validate", &d(file)], code, words));
        cases.push(case(&["region", "--system", &d(file), "--planet", "0", "--key", "0/0/0/0/0"], code, words));
    }
    cases.push(case(&["validate", &dir.to_string_lossy()], 2, &["is a directory"]));
    cases.push(case(&["validate", "/dev/zero"], 2, &["not a regular file"]));
    // Camera paths.
    for (file, words) in [
        ("path-lon.json", &["keyframes[1].lon = 2000", "-1800..=1800"][..]),
        ("path-nan.json", &["path-nan.json", "number out of range"]),
        ("path-empty.json", &["keyframes", "at least one"]),
        ("path-order.json", &["keyframes[1].t = 1", "after keyframes[0].t"]),
        ("path-type.json", &["keyframes[0].lon", "invalid type"]),
        ("path-dup.json", &["planet", "given twice"]),
        ("path-field.json", &["keyframes[0]", "missing field"]),
        ("path-extra.json", &["speed"]),
        ("path-alt.json", &["keyframes[0].altitude_m = -50"]),
    ] {
        cases.push(case(&["stream", "--path", &d(file)], 2, words));
    }
    cases.push(case(&["stream", "--path", &d("path-planet.json")], 2, &["planet 9", "0..=4"]));
    cases.push(case(&["stream", "--path", "nowhere"], 2, &["--path nowhere", "no such built-in path"]));
    // Input scripts (checked before any window opens).
    cases.push(case(&["fly", "--script", &d("script-key.json")], 2, &["F13"]));
    cases.push(case(&["fly", "--script", &d("script-dup.json")], 2, &["[0].until", "given twice"]));
    cases.push(case(&["fly", "--script", &d("script-type.json")], 2, &["script"]));
    // Outputs whose format is wrong, refused before any work.
    cases.push(case(&["map", "--planet", "1", "--out", "m.jpg"], 2, &["--out m.jpg", ".png"]));
    cases.push(case(&["stream", "--report", "r.txt"], 2, &["--report r.txt", ".json"]));
    // Dumps with a hand-edited manifest.
    // (name, edit, replay's and inspect's exit codes, words). A manifest
    // edited to another GENERATOR_VERSION no longer matches its stage files'
    // headers: replay refuses it even with --allow-version-mismatch, and
    // inspect says so.
    let first_time = |m: &mut String| {
        let at = m.find("\"time_ms\": ").unwrap() + "\"time_ms\": ".len();
        let end = at + m[at..].find(['\n', ',']).unwrap();
        m.replace_range(at..end, "1e308");
    };
    type Edit<'a> = &'a dyn Fn(&mut String);
    let dumps: [(&str, Edit<'_>, i32, i32, &[&str]); 5] = [
        (
            "dup",
            &|m| *m = m.replacen("\"planet\": 2,", "\"planet\": 2, \"planet\": 2,", 1),
            2,
            2,
            &["planet", "given twice"],
        ),
        ("time", &first_time, 2, 2, &["time_ms = 1000000000"]),
        (
            "version",
            &|m| *m = m.replacen("\"generator_version\": ", "\"generator_version\": 1", 1),
            2,
            2,
            &["must be the manifest's 1"],
        ),
        ("key", &|m| *m = m.replacen("\"key\": \"", "\"key\": \"9/", 1), 2, 2, &["key"]),
        ("format", &|m| *m = m.replacen(&format!("\"format\": {DUMP_FORMAT}"), "\"format\": 40", 1), 2, 2, &["format"]),
    ];
    for (name, edit, replay_code, inspect_code, words) in dumps {
        let dump = dump_with(dir, name, edit);
        let at = dump.to_str().unwrap();
        let replay_words: &[&str] =
            if name == "version" { &["generator_version = 1", "--allow-version-mismatch"] } else { words };
        cases.push(case(&["replay", at, "--repeat", "1"], replay_code, replay_words));
        cases.push(case(&["inspect", at, "--out", &format!("{at}-inspect")], inspect_code, words));
    }
    cases
}

#[test]
fn a_hundred_bad_inputs_get_their_exit_code_and_name_the_field() {
    let dir = scratch_dir("bad-input", "files");
    files(&dir);
    let cases = table(&dir);
    assert!(cases.len() >= 100, "only {} cases", cases.len());
    let mut wrong = Vec::new();
    for c in &cases {
        let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
        let out = planet(&args);
        let stderr = text(&out.stderr);
        let missing: Vec<&String> = c.needles.iter().filter(|n| !stderr.contains(n.as_str())).collect();
        if out.status.code() != Some(c.code) || !missing.is_empty() {
            wrong.push(format!(
                "{args:?}: exit {:?} (want {}), missing {missing:?} in:\n{stderr}",
                out.status.code(),
                c.code
            ));
        }
    }
    eprintln!("{} bad inputs, {} wrong", cases.len(), wrong.len());
    assert!(wrong.is_empty(), "{} of {} cases wrong:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
}
