//! One shard of a survey: its slice of the planets, their figures (on all
//! the run's threads, a planet a task) and thumbnails (a system's world at a
//! time, on one device), written into `.shard-I-of-N.partial` beside the
//! shard's folder and renamed into place with its manifest once complete.
//! A finished shard is never run again; a killed one leaves only its
//! partial folder, which the next run of that shard clears first. A planet
//! whose figures or pictures panic is flagged `crashed` with the panic's
//! message, and the shard goes on: finding such planets is what a survey
//! is for.

use std::io::IsTerminal;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::survey::{Flag, PlanetFigures, PlanetTimings, Selection, Shard, SurveyPlanet, measure, timing_flags};
use indicatif::{ProgressBar, ProgressStyle};
use planet::PlannedSystem;
use rayon::prelude::*;
use render::{Capture, Gpu, MaterialSet, RenderOptions, ViewCamera, holes_in_view};

use super::manifest::{Entry, Manifest, Settings};
use crate::commands::capture::still_world_of;
use crate::commands::tour::planet_views;
use crate::failure::Failure;
use crate::output::{errln, outln};

/// A shard's figures, one record a planet, in planet order.
pub const FIGURES: &str = "planets.json";
/// A shard's measured times, one record a planet, in planet order.
pub const TIMINGS: &str = "timings.json";
/// The folder of thumbnails.
pub const THUMBS: &str = "thumbs";

/// A shard should run at least this long, seconds: a scheduler's start-up
/// of a pod or task costs seconds, and every shard plans its systems' worlds.
const MIN_SHARD_S: f64 = 60.0;

/// What a survey run needs.
#[derive(Debug)]
pub struct Run {
    /// The systems.
    pub selection: Selection,
    /// The settings every shard of the survey shares.
    pub settings: Settings,
    /// Threads for figures and streaming.
    pub threads: usize,
    /// How long a picture may take to settle.
    pub timeout: Duration,
    /// Thumbnail size.
    pub size: (u32, u32),
    /// No progress output.
    pub quiet: bool,
}

/// Runs shard `shard` into `out/shard-I-of-N`, unless it is there already.
pub fn run_shard(run: &Run, shard: Shard, out: &Path) -> Result<(), Failure> {
    let dir = out.join(shard.folder());
    if let Some(done) = Manifest::read(&dir)? {
        if done.settings == run.settings && done.shard == Some(shard) {
            errln!("shard {shard} is done already: {}", dir.display());
            outln!("{}", dir.display());
            return Ok(());
        }
        return Err(Failure::Invalid(format!(
            "{} holds a shard of another survey (other settings); remove it or choose another --out",
            dir.display()
        )));
    }
    if dir.exists() {
        return Err(Failure::Invalid(format!(
            "{} is there but is no finished shard (it has no {}); remove it or choose another --out",
            dir.display(),
            super::manifest::MANIFEST
        )));
    }
    let partial = out.join(format!(".{}.partial", shard.folder()));
    let start = Instant::now();
    write_into(&partial, |tmp| write_shard(run, shard, tmp))?;
    let took = start.elapsed().as_secs_f64();
    if took < MIN_SHARD_S && shard.count > 1 {
        errln!(
            "note: shard {shard} took {took:.0} s; a shard of a minute or more wastes less on starting (use fewer shards)"
        );
    }
    std::fs::rename(&partial, &dir).map_err(|e| {
        let _ = std::fs::remove_dir_all(&partial);
        Failure::Failed(format!("cannot move {} to {}: {e}", partial.display(), dir.display()))
    })?;
    outln!("{}", dir.display());
    Ok(())
}

/// Runs the whole survey as its one shard and merges it into `out`, which
/// is replaced whole once complete.
pub fn run_whole(run: &Run, out: &Path) -> Result<(), Failure> {
    crate::save::replace_folder(out, |tmp| {
        let shards = tmp.join("shards");
        let dir = shards.join(Shard::WHOLE.folder());
        std::fs::create_dir_all(&dir).map_err(|e| cannot_write(&dir, &e))?;
        write_shard(run, Shard::WHOLE, &dir)?;
        super::merge::merge_into(&[dir], tmp)
    })?;
    outln!("{}", out.join(super::sheet::SHEET).display());
    Ok(())
}

/// Makes `dir` afresh (clearing what a killed run left there) and fills it
/// with `fill`, removing it again when that fails.
fn write_into(dir: &Path, fill: impl FnOnce(&Path) -> Result<(), Failure>) -> Result<(), Failure> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| cannot_write(dir, &e))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| cannot_write(dir, &e))?;
    fill(dir).inspect_err(|_| {
        let _ = std::fs::remove_dir_all(dir);
    })
}

fn cannot_write(dir: &Path, e: &std::io::Error) -> Failure {
    Failure::Failed(format!("cannot write {}: {e}", dir.display()))
}

/// Measures and pictures the shard's planets into `dir`, manifest last.
fn write_shard(run: &Run, shard: Shard, dir: &Path) -> Result<(), Failure> {
    let all = run.selection.planets().map_err(|e| Failure::Invalid(e.to_string()))?;
    let mine = shard.slice(&all);
    // The device first: a machine without one fails before minutes of work.
    let gpu = if run.settings.views.is_empty() {
        None
    } else {
        let gpu = Gpu::headless().map_err(|e| {
            Failure::Failed(format!("{e}\na survey without pictures needs no device: pass --views none"))
        })?;
        Some(Arc::new(gpu))
    };
    let systems = plan_systems(&run.selection, mine)?;
    let progress = Progress::new(run.quiet, mine.len() as u64 * (1 + u64::from(gpu.is_some())));
    errln!("survey shard {shard}: {} of {} planets, {} threads", mine.len(), all.len(), run.threads);
    let (mut figures, mut timings) = figures_of(run, mine, &systems, &progress)?;
    if let Some(gpu) = gpu {
        std::fs::create_dir_all(dir.join(THUMBS)).map_err(|e| cannot_write(dir, &e))?;
        let pictures = Pictures { run, gpu, dir, progress: &progress };
        for (seed, system) in &systems {
            let at: Vec<usize> = (0..mine.len()).filter(|&i| mine[i].system == *seed).collect();
            let taken = catch_unwind(AssertUnwindSafe(|| pictures.of_system(system, &at, &mut figures, &mut timings)));
            match taken {
                Ok(result) => result?,
                // A panic while picturing: every planet of the system left without all its pictures is flagged.
                Err(panic) => {
                    let message = format!("pictures: {}", panic_message(&*panic));
                    for &i in &at {
                        let views = &run.settings.views;
                        if !views.iter().all(|v| dir.join(thumb(figures[i].id, v)).exists()) {
                            figures[i].flags.push(Flag::crashed(&message));
                        }
                    }
                }
            }
        }
    }
    for t in &mut timings {
        t.flags = timing_flags(t, run.settings.generate_budget_ms);
    }
    progress.finish();
    crate::save::replace(&dir.join(FIGURES), &pretty(&figures)?)?;
    crate::save::replace(&dir.join(TIMINGS), &pretty(&timings)?)?;
    let mut files = vec![FIGURES.to_owned()];
    for f in &figures {
        // A planet whose pictures crashed may lack some.
        files.extend(run.settings.views.iter().map(|v| thumb(f.id, v)).filter(|t| dir.join(t).exists()));
    }
    let files = files.iter().map(|f| Entry::of(dir, f)).collect::<Result<_, _>>()?;
    Manifest::new(&run.settings, Some(shard), figures.len(), files, vec![TIMINGS.to_owned()]).write(dir)
}

/// A panic's message (its payload as text).
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(ToString::to_string)
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned())
}

/// Panics where `PLANET_SURVEY_CRASH` names planet `id` and `phase`
/// (`s3-p1` for its figures, `s3-p1:pictures`): how tests plant a
/// generator bug to see it flagged while the shard goes on.
fn planted_crash(id: SurveyPlanet, phase: &str) {
    let Ok(planted) = std::env::var("PLANET_SURVEY_CRASH") else { return };
    let (at, when) = planted.split_once(':').unwrap_or((planted.as_str(), "figures"));
    if at == id.to_string() && when == phase {
        panic!("a crash planted in the {phase} of {id} (PLANET_SURVEY_CRASH)");
    }
}

/// The path of a planet's thumbnail in a survey folder.
#[must_use]
pub fn thumb(id: SurveyPlanet, view: &str) -> String {
    format!("{THUMBS}/{id}-{view}.png")
}

/// Each system the planets belong to, planned once, in order.
fn plan_systems(selection: &Selection, planets: &[SurveyPlanet]) -> Result<Vec<(u64, PlannedSystem)>, Failure> {
    let mut systems: Vec<(u64, PlannedSystem)> = Vec::new();
    for p in planets {
        if systems.last().is_none_or(|(s, _)| *s != p.system) {
            let system = selection.system(p.system).map_err(|e| Failure::Invalid(e.to_string()))?;
            systems.push((p.system, system));
        }
    }
    Ok(systems)
}

/// Every planet's figures, a planet a task on the run's threads.
fn figures_of(
    run: &Run,
    planets: &[SurveyPlanet],
    systems: &[(u64, PlannedSystem)],
    progress: &Progress,
) -> Result<(Vec<PlanetFigures>, Vec<PlanetTimings>), Failure> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(run.threads)
        .build()
        .map_err(|e| Failure::Failed(format!("cannot start {} threads: {e}", run.threads)))?;
    let sample = run.settings.sample;
    let measured: Vec<(PlanetFigures, PlanetTimings)> = pool.install(|| {
        planets
            .par_iter()
            .map(|id| {
                let system = &systems.iter().find(|(s, _)| *s == id.system).expect("every system is planned").1;
                let plan = &system.planets[id.planet as usize];
                let out = catch_unwind(AssertUnwindSafe(|| {
                    planted_crash(*id, "figures");
                    measure(*id, plan, sample)
                }))
                .unwrap_or_else(|panic| {
                    (PlanetFigures::crashed(*id, plan, &panic_message(&*panic)), PlanetTimings::none(*id))
                });
                progress.step(&format!("{id} {}: figures in {:.2} s", out.0.name, out.1.figures_s));
                out
            })
            .collect()
    });
    Ok(measured.into_iter().unzip())
}

/// How a shard takes its pictures: on one device, into its folder.
struct Pictures<'a> {
    run: &'a Run,
    gpu: Arc<Gpu>,
    dir: &'a Path,
    progress: &'a Progress,
}

impl Pictures<'_> {
    /// The thumbnails of the planets at `at` (indexes into `figures`) of one
    /// system, its world streamed afresh; holes and unsettled views flagged.
    fn of_system(
        &self,
        system: &PlannedSystem,
        at: &[usize],
        figures: &mut [PlanetFigures],
        timings: &mut [PlanetTimings],
    ) -> Result<(), Failure> {
        let (run, dir, progress) = (self.run, self.dir, self.progress);
        let world = still_world_of(Arc::new(system.clone()), Some(run.threads), true);
        let materials = MaterialSet::generate(&world.system);
        let mut capture = Capture::with_gpu(world, Arc::clone(&self.gpu), &materials, run.size);
        for &i in at {
            let start = Instant::now();
            let id = figures[i].id;
            planted_crash(id, "pictures");
            let names = run.settings.views.iter().map(String::as_str);
            for (name, view) in planet_views(&capture.world, id.planet, names) {
                let failed = |e: render::RenderError| Failure::Failed(format!("{id} {name}: {e}"));
                let pose = view.pose(&capture.world).map_err(|e| failed(e.into()))?;
                let camera = ViewCamera { pose, fov_y: view.fov.to_radians() };
                if !capture.settle(&camera, run.timeout) {
                    timings[i].unsettled.push(name.to_owned());
                }
                let (image, _) = capture.draw(&camera, &RenderOptions::default()).map_err(failed)?;
                crate::save::png(&dir.join(thumb(id, name)), &image)?;
                if holes_in_view(&mut capture, &camera, id.planet).map_err(failed)?.holes > 0 {
                    figures[i].flags.push(Flag::Hole(name.to_owned()));
                }
            }
            timings[i].views_s = start.elapsed().as_secs_f64();
            progress.step(&format!("{id} {}: pictures in {:.2} s", figures[i].name, timings[i].views_s));
        }
        Ok(())
    }
}

/// Progress on stderr: a bar on a terminal, else a line a step.
struct Progress {
    bar: Option<ProgressBar>,
    lines: bool,
}

impl Progress {
    fn new(quiet: bool, steps: u64) -> Self {
        let terminal = std::io::stderr().is_terminal();
        if quiet || !terminal {
            return Self { bar: None, lines: !quiet };
        }
        let bar = ProgressBar::new(steps);
        if let Ok(style) = ProgressStyle::with_template("survey [{bar:30}] {pos}/{len} {eta} {msg}") {
            bar.set_style(style.progress_chars("=> "));
        }
        Self { bar: Some(bar), lines: false }
    }

    fn step(&self, what: &str) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
            bar.set_message(what.to_owned());
        } else if self.lines {
            errln!("{what}");
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Pretty JSON, a line at the end.
pub fn pretty<T: serde::Serialize>(value: &T) -> Result<String, Failure> {
    serde_json::to_string_pretty(value).map(|s| s + "\n").map_err(|e| Failure::Failed(e.to_string()))
}
