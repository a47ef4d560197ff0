//! The table's promises: a stage plugs in through one row (a test-only
//! stage here, with its own output type and dump layout), the runner stops
//! between stages when cancelled, and a table whose stage reads a later or
//! missing stage is refused.

use std::cell::Cell;

use super::*;
use crate::RegionKey;
use crate::dump::binary::{Field, Kind, Section};
use crate::dump::{DumpError, binary};
use crate::mesh::SphereMesh;
use crate::recipe::SystemRecipe;

/// A test-only stage: the terrain's triangle count and its highest vertex.
#[derive(Clone, Debug, PartialEq)]
struct Summit {
    key: RegionKey,
    triangles: u32,
    highest_m: f32,
}

impl StageValue for Summit {}

struct SummitStage;

static SUMMIT: StageDef = StageDef::of::<SummitStage>();

const SUMMIT_LAYOUT: &[Field] =
    &[Field { name: "triangles", kind: Kind::U32 }, Field { name: "highest_m", kind: Kind::F32 }];

impl RegionStage for SummitStage {
    type Output = Summit;
    const NAME: &'static str = "summit";
    const TYPE_NAME: &'static str = "Summit";
    const INPUTS: &'static [&'static str] = &["sphere_mesh"];

    fn run(_input: &RegionInput<'_>, chain: &Chain) -> Result<Summit, DumpError> {
        let mesh = chain.need::<SphereMesh>(&stages::SPHERE_MESH, &SUMMIT)?;
        let highest_m = mesh
            .terrain
            .vertices
            .iter()
            .map(|v| (mesh.origin + glam::Vec3::from_array(v.position).as_dvec3()).length() as f32)
            .fold(f32::NEG_INFINITY, f32::max);
        Ok(Summit { key: mesh.key, triangles: (mesh.terrain.indices.len() / 3) as u32, highest_m })
    }

    fn key(s: &Summit) -> Option<RegionKey> {
        Some(s.key)
    }

    fn sections(s: &Summit) -> Vec<Section> {
        let mut bytes = s.triangles.to_le_bytes().to_vec();
        bytes.extend_from_slice(&s.highest_m.to_le_bytes());
        vec![Section::new("summit", SUMMIT_LAYOUT, bytes)]
    }

    fn layout() -> Vec<(String, &'static [&'static [Field]])> {
        vec![("summit".into(), &[SUMMIT_LAYOUT])]
    }

    fn read(key: RegionKey, s: &[Section]) -> Result<Summit, DumpError> {
        s[0].expect_count(1)?;
        let b = &s[0].bytes;
        let triangles = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        Ok(Summit { key, triangles, highest_m: f32::from_le_bytes([b[4], b[5], b[6], b[7]]) })
    }
}

fn region(pipeline: &Pipeline, key: &str) -> (Chain, StageTimes) {
    let recipe = SystemRecipe::default_system();
    let input = RegionInput::new(&recipe, 1, key.parse().unwrap());
    let mut chain = Chain::default();
    let mut times = StageTimes::default();
    let all = 0..pipeline.stages().len();
    assert_eq!(pipeline.run(&input, &mut chain, all, &|| false, |i, t| times.0[i] = t), Ok(Run::Finished));
    (chain, times)
}

#[test]
fn a_stage_plugs_in_through_one_row() {
    let pipeline = Pipeline::standard().with(&SUMMIT).unwrap();
    assert_eq!(pipeline.names().last(), Some(&"summit"));
    assert_eq!(pipeline.find("Summit"), Ok(&SUMMIT));
    let (chain, times) = region(&pipeline, "0/6/2/2/0");
    let summit: &Summit = chain.value(&SUMMIT).unwrap();
    assert!(summit.triangles > 1000 && summit.highest_m > 3000.0, "{summit:?}");
    assert!(times.0[pipeline.index(&SUMMIT).unwrap()] > std::time::Duration::ZERO);

    // Its dump file round-trips through the shared binary framing, and damage is named.
    let out = chain.get(&SUMMIT).unwrap();
    let bytes = out.encode(crate::GENERATOR_VERSION);
    assert_eq!(SUMMIT.file(), "summit.bin");
    let back = StageOutput::decode(&SUMMIT, &bytes).unwrap();
    assert_eq!(&back, out);
    let (header, _) = binary::header(&bytes).unwrap();
    assert_eq!((header.stage.as_str(), header.sections[0].layout.as_str()), ("summit", "triangles:u32 highest_m:f32"));
    let mut flipped = bytes.clone();
    *flipped.last_mut().unwrap() ^= 1;
    assert!(StageOutput::decode(&SUMMIT, &flipped).unwrap_err().0.contains("damaged"));
    // Differences name the field; the summary lists its sections.
    let changed = Summit { triangles: summit.triangles + 1, ..summit.clone() };
    let d = out.difference(&StageOutput::new(&SUMMIT, changed).unwrap()).unwrap();
    assert!(d.starts_with("summit[0].triangles: dumped "), "{d}");
    assert_eq!(out.summary(), "summit 1");
    // A value of another type is not this stage's output.
    assert!(StageOutput::new(&SUMMIT, 3_u32.to_string()).is_none());
    // The chain checks it like any other stage: another key is named.
    let recipe = SystemRecipe::default_system();
    let other: RegionKey = "0/6/2/3/0".parse().unwrap();
    let problems = pipeline.check_chain(&chain, &RegionInput::new(&recipe, 1, other));
    assert!(problems.iter().any(|(s, e)| *s == &SUMMIT && e.starts_with("key = 0/6/2/2/0")), "{problems:?}");
}

impl StageValue for String {}

#[test]
fn the_runner_stops_between_stages_when_cancelled() {
    let recipe = SystemRecipe::default_system();
    let input = RegionInput::new(&recipe, 1, "0/6/2/2/0".parse().unwrap());
    let pipeline = Pipeline::standard();
    for stop_after in 0..pipeline.stages().len() {
        let ran = Cell::new(0);
        let mut chain = Chain::default();
        let all = 0..pipeline.stages().len();
        let run = pipeline.run(&input, &mut chain, all, &|| ran.get() >= stop_after, |_, _| ran.set(ran.get() + 1));
        assert_eq!(run, Ok(Run::Cancelled));
        assert_eq!(ran.get(), stop_after);
        assert_eq!(chain.outputs().count(), stop_after, "the stages before the cancel are kept");
    }
}

#[test]
fn tables_that_read_a_later_or_missing_stage_are_refused() {
    let s = Pipeline::standard().stages();
    assert_eq!(
        Pipeline::new(vec![s[0], s[1], s[2], s[3], s[5]]),
        Err(PipelineError::MissingInput { stage: "voxels", input: "columns" })
    );
    assert_eq!(
        Pipeline::new(vec![&SUMMIT]),
        Err(PipelineError::MissingInput { stage: "summit", input: "sphere_mesh" })
    );
    assert_eq!(Pipeline::standard().with(s[4]), Err(PipelineError::Duplicate("columns")));
    assert!(Pipeline::new(s.to_vec()).is_ok());
}

#[test]
fn the_engine_input_runs_the_region_stages_alone() {
    // What a region job does: the planet's terrain lent, no recipe, no plans in the chain.
    let system = crate::PlannedSystem::default_system();
    let terrain = crate::terrain::Terrain::new(&system.planets[1]);
    let key: RegionKey = "0/6/2/2/0".parse().unwrap();
    let mut times = StageTimes::default();
    let chain =
        Pipeline::standard().run_region(&RegionInput::of_terrain(&terrain, key), &|| false, |i, t| times.0[i] = t);
    let chain = chain.unwrap().unwrap();
    let (full, _) = region(Pipeline::standard(), "0/6/2/2/0");
    for (_, stage) in Pipeline::standard().region_stages() {
        assert_eq!(chain.get(stage), full.get(stage), "{stage}: the same bytes as a dump's chain");
    }
    assert_eq!(chain.outputs().count(), 8);
    assert_eq!(times.of(&stages::SYSTEM_PLAN), std::time::Duration::ZERO);
}
