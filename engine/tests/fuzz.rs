//! A mutation fuzzer over every parser of user input: system recipes (parsed
//! and planned), camera paths, view strings, dump manifests, plans and binary
//! stage files (checked against the rest of the chain, as replay does), and
//! saves (decoded, checked against the world, their edits logged). Each
//! case mutates a valid input a few times (bit flips, cut and repeated
//! spans, JSON tokens and edge numbers spliced in, truncation); for stage
//! files the payload hash, and for saves each record's checksum, is
//! recomputed after mutating, so the decoder's section, record and value
//! checks are reached, not only the hash check. No input
//! may panic. The suite runs it briefly (a few thousand cases, deterministic);
//! `FUZZ_CASES=200000 cargo test --release -p engine --test fuzz` runs it
//! wider by hand.

use std::panic::{AssertUnwindSafe, catch_unwind};

use engine::ViewSpec;
use engine::path::CameraPath;
use planet::dump::{DUMP_FORMAT, Manifest, hash_hex};
use planet::hash::HashStream;
use planet::pipeline::{Chain, Pipeline, RegionInput, StageOutput};
use planet::{GENERATOR_VERSION, PlannedSystem, RegionKey, SystemRecipe};

/// Cases per target unless `FUZZ_CASES` says otherwise.
const CASES: usize = 600;

fn cases() -> usize {
    std::env::var("FUZZ_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(CASES)
}

/// Tokens worth splicing into JSON and view strings.
const TOKENS: [&str; 24] = [
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "=",
    "-1",
    "0",
    "1e999",
    "-1e308",
    "NaN",
    "null",
    "true",
    "4294967296",
    "18446744073709551616",
    "0.5",
    "\"seed\"",
    "\"index\"",
    "\"planets\"",
    "\"keyframes\"",
    "planet=",
    "\u{0}",
];

/// `seed` mutated one to four times.
fn mutate(s: &mut HashStream, seed: &[u8]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + s.index(4) {
        let at = if b.is_empty() { 0 } else { s.index(b.len() + 1) };
        match s.index(7) {
            0 if !b.is_empty() => {
                let i = at.min(b.len() - 1);
                b[i] ^= 1 << s.index(8);
            }
            1 if !b.is_empty() => {
                let i = at.min(b.len() - 1);
                b[i] = [0, 0x7f, 0x80, 0xff, b'"', b'-', b'9'][s.index(7)];
            }
            2 => {
                let t = TOKENS[s.index(TOKENS.len())].as_bytes();
                b.splice(at..at, t.iter().copied());
            }
            3 => {
                let end = (at + 1 + s.index(16)).min(b.len());
                b.drain(at.min(end)..end);
            }
            4 => {
                let end = (at + 1 + s.index(32)).min(b.len());
                let span: Vec<u8> = b[at.min(end)..end].to_vec();
                b.splice(at..at, span);
            }
            5 => b.truncate(at),
            _ => {
                // A number replaced by an edge value.
                if let Some(i) = b.iter().skip(at).position(u8::is_ascii_digit).map(|i| i + at) {
                    let end = i + b[i..].iter().take_while(|c| c.is_ascii_digit() || **c == b'.').count();
                    let edge = ["0", "-0", "1e999", "99999999999999999999", "-7", "0.0000001"][s.index(6)];
                    b.splice(i..end, edge.bytes());
                }
            }
        }
    }
    b
}

/// Runs `f` on `cases()` mutations of each seed; fails on any panic, showing
/// the input. `f` says whether the parser accepted the input.
fn fuzz(name: &str, seeds: &[Vec<u8>], f: impl Fn(&[u8]) -> bool) {
    let mut s = HashStream::new(planet::hash::hash0(0xf022, planet::hash::salt_str(name)));
    let n = cases();
    let mut accepted = 0;
    for i in 0..n {
        let seed = &seeds[i % seeds.len()];
        let input = mutate(&mut s, seed);
        match catch_unwind(AssertUnwindSafe(|| f(&input))) {
            Ok(ok) => accepted += usize::from(ok),
            Err(_) => panic!("{name}: case {i} panicked on input {:?}", String::from_utf8_lossy(&input)),
        }
    }
    eprintln!("{name}: {n} cases ({accepted} accepted), no panic");
}

#[test]
fn recipes_never_panic_when_parsed_and_planned() {
    let seeds = vec![
        planet::recipe::DEFAULT_SYSTEM_JSON.as_bytes().to_vec(),
        br#"{"seed": 3, "planet_count": 2, "planets": [{"index": 1, "kind": "ocean", "radius_m": 3000, "sea": {"level_m": 40}, "materials": {"3": {"color": [0.1, 0.4, 0.1]}}}]}"#.to_vec(),
        br#"{"seed": 9, "planets": [{"index": 0, "caves": {"worm_threshold": 0.05}, "terrain": {"hills": {"height_m": 9}}}]}"#.to_vec(),
    ];
    fuzz("recipe", &seeds, |b| {
        let text = String::from_utf8_lossy(b);
        let Ok(mut recipe) = SystemRecipe::from_json(&text) else { return false };
        // Planning is the slow part: two planets at most (an override of a
        // later planet is then an error, which is checked too).
        recipe.planet_count = Some(recipe.planet_count.unwrap_or(2).min(2));
        PlannedSystem::build(&recipe).is_ok()
    });
}

#[test]
fn camera_paths_and_views_never_panic() {
    let seeds: Vec<Vec<u8>> = engine::path::BUILTIN.iter().map(|(_, t)| t.as_bytes().to_vec()).collect();
    fuzz("path", &seeds, |b| {
        let Ok(path) = CameraPath::from_json(&String::from_utf8_lossy(b)) else { return false };
        let _ = path.sample(path.duration() * 0.5);
        true
    });
    let views = [
        "planet=1,lat=-7.4565,lon=-34.5481,alt=2,heading=135,pitch=-4",
        "planet=2,lat=1.9593,lon=100.9664,alt=15000,pitch=-90",
        "planet=1,alt=20000,look=2,fov=20",
    ];
    let seeds: Vec<Vec<u8>> = views.iter().map(|v| v.as_bytes().to_vec()).collect();
    fuzz("view", &seeds, |b| String::from_utf8_lossy(b).parse::<ViewSpec>().is_ok());
}

/// A real region's dump: each stage's file as `planet dump` writes it, and the chain.
fn dumped_region() -> (SystemRecipe, RegionKey, Chain, Vec<(usize, Vec<u8>)>) {
    let recipe = SystemRecipe::default_system();
    let key: RegionKey = "2/5/2/2/0".parse().unwrap();
    let input = RegionInput::new(&recipe, 2, key);
    let pipeline = Pipeline::standard();
    let mut chain = Chain::default();
    let all: Vec<usize> = (0..pipeline.stages().len()).collect();
    pipeline.run(&input, &mut chain, all, &|| false, |_, _| {}).expect("the default system plans");
    let files = (0..pipeline.stages().len())
        .filter_map(|i| chain.get(pipeline.stages()[i]).map(|o| (i, o.encode(GENERATOR_VERSION))))
        .collect();
    (recipe, key, chain, files)
}

/// `file` with its payload mutated and its header's payload hash and size
/// made to match again (when it is a binary stage file).
fn rehashed(s: &mut HashStream, file: &[u8]) -> Vec<u8> {
    if file.len() < 12 || &file[..8] != b"PLANETSD" {
        return mutate(s, file);
    }
    let header_len = u32::from_le_bytes(file[8..12].try_into().unwrap()) as usize;
    let (head, payload) = file[12..].split_at(header_len);
    let payload = mutate(s, payload);
    let mut header: serde_json::Value = serde_json::from_slice(head).unwrap();
    header["payload_hash"] = hash_hex(&payload).into();
    header["payload_bytes"] = payload.len().into();
    if s.index(4) == 0 {
        // Now and then a section's count or element size changed too.
        let sections = header["sections"].as_array_mut().unwrap();
        let i = s.index(sections.len());
        let field = ["count", "element_bytes"][s.index(2)];
        sections[i][field] = [0u64, 1, 7, u64::from(u32::MAX), 1 << 40][s.index(5)].into();
    }
    let head = serde_json::to_vec(&header).unwrap();
    let mut out = b"PLANETSD".to_vec();
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(&payload);
    out
}

#[test]
fn dump_files_never_panic_when_read_and_checked() {
    let (recipe, key, chain, files) = dumped_region();
    let pipeline = Pipeline::standard();
    let input = RegionInput::new(&recipe, 2, key);
    for (i, file) in &files {
        let stage = pipeline.stages()[*i];
        let mut s = HashStream::new(planet::hash::hash0(0xd0, *i as u64));
        let n = cases() / 2;
        let mut accepted = 0;
        for case in 0..n {
            let bytes = if case % 2 == 0 { rehashed(&mut s, file) } else { mutate(&mut s, file) };
            let run = || {
                let Ok(out) = StageOutput::decode(stage, &bytes) else { return false };
                // Judged with the rest of the region's chain, as replay does.
                let mut edited = chain.clone();
                let _ = out.summary();
                edited.set(out);
                pipeline.check_chain(&edited, &input).is_empty()
            };
            match catch_unwind(AssertUnwindSafe(run)) {
                Ok(ok) => accepted += usize::from(ok),
                Err(_) => panic!("{}: case {case} panicked ({} bytes)", stage.file(), bytes.len()),
            }
        }
        eprintln!("{}: {n} cases ({accepted} accepted and consistent), no panic", stage.file());
    }
    // The manifest of such a dump, every stage listed.
    let entries: Vec<String> = files
        .iter()
        .map(|(i, b)| {
            let stage = pipeline.stages()[*i];
            format!(
                r#"{{"stage": "{}", "file": "{}", "size": {}, "hash": "{}", "time_ms": 0.25}}"#,
                stage.name,
                stage.file(),
                b.len(),
                hash_hex(b)
            )
        })
        .collect();
    let system = PlannedSystem::default_system();
    let manifest = format!(
        r#"{{"format": {DUMP_FORMAT}, "generator_version": {GENERATOR_VERSION}, "signature": "{}", "planet": 2,
        "planet_signature": "{}", "key": "{key}",
        "recipe": {{"file": "recipe.json", "size": 10, "hash": "0123456789abcdef"}},
        "stages": [{}]}}"#,
        system.signature(),
        system.planets[2].signature(),
        entries.join(", ")
    );
    if let Err(e) = Manifest::from_json(manifest.as_bytes()) {
        panic!("the seed manifest is not valid: {e}");
    }
    fuzz("manifest", &[manifest.into_bytes()], |b| {
        let Ok(m) = Manifest::from_json(b) else { return false };
        let _ = m.region_key();
        true
    });
}

/// A save's records with their payloads mutated and their checksums made to
/// match again, so the decoder's record checks are reached, not only the sums.
fn rechecksummed(s: &mut HashStream, file: &[u8]) -> Vec<u8> {
    let mut out = file[..16].to_vec();
    let mut at = 16;
    while at + 8 <= file.len() {
        let length = u32::from_le_bytes(file[at + 4..at + 8].try_into().unwrap()) as usize;
        let end = (at + 8 + length).min(file.len());
        let mut payload = file[at + 8..end].to_vec();
        if s.index(2) == 0 {
            payload = mutate(s, &payload);
        }
        let start = out.len();
        out.extend_from_slice(&file[at..at + 4]);
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(&payload);
        let sum = xxhash_rust::xxh3::xxh3_64(&out[start..]);
        out.extend_from_slice(&sum.to_le_bytes());
        at = end + 8;
    }
    out
}

#[test]
fn saves_never_panic_when_read_and_loaded() {
    use planet::edit::save::Save;
    use planet::edit::{Brush, Edit, EditLog, Operation};
    let system = PlannedSystem::default_system();
    let terrains: Vec<planet::terrain::Terrain> = system.planets.iter().map(planet::terrain::Terrain::new).collect();
    let mut save = Save::new(system.signature(), terrains.len());
    let edit = |op, brush, y: f32| Edit { op, brush, centre: [10.0, y, -30.0], material: 2 };
    save.planets[1] = vec![
        edit(Operation::Dig, Brush::Sphere { radius_m: 4.0 }, 4000.0),
        edit(Operation::Fill, Brush::Box { half_m: [1.0, 2.0, 3.0], yaw_deg: 45.0 }, 3990.0),
    ];
    save.planets[2] = vec![edit(Operation::Paint, Brush::Sphere { radius_m: 1.0 }, 5000.0)];
    let voxel = planet::terrain::Voxel { density: -40, materials: [1, 1], blend: 0 };
    let key = RegionKey { face: 1, lod: 0, x: 3, y: 4, z: 1 };
    save.bakes[1] = vec![(1, planet::edit::Bake::new(key, vec![(5, voxel), (77, voxel)], vec![12]))];
    let seed = save.encode();
    let load = |b: &[u8]| {
        let Ok(save) = Save::decode(b) else { return false };
        if save.check_world(system.signature(), terrains.len()).is_err() {
            return false;
        }
        let planets = save.planets.iter().zip(&save.bakes).zip(&terrains);
        planets.into_iter().all(|((edits, bakes), t)| EditLog::with_bakes(t, edits, bakes).is_ok())
    };
    fuzz("save", std::slice::from_ref(&seed), load);
    let mut s = HashStream::new(0x5a7e);
    let mut accepted = 0;
    for case in 0..cases() {
        let input = rechecksummed(&mut s, &seed);
        match catch_unwind(AssertUnwindSafe(|| load(&input))) {
            Ok(ok) => accepted += usize::from(ok),
            Err(_) => panic!("save (checksums fixed): case {case} panicked on input {input:?}"),
        }
    }
    eprintln!("save (checksums fixed): {} cases ({accepted} accepted), no panic", cases());
}
