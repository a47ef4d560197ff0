//! `planet capture`: a headless screenshot. Streams the view until it is
//! settled (or the timeout, which it reports), draws it on the device (Mesa's
//! lavapipe without a GPU) and writes a PNG. With `--path`, it instead flies
//! a scripted camera path frame by frame, draws every frame, and reports the
//! engine's and the renderer's CPU time per frame and the bytes uploaded.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use engine::path::CameraPath;
use engine::{Pose, ViewSpec, World, WorldSettings};
use planet::PlannedSystem;
use render::{Capture, Gpu, MaterialSet, RenderError, RenderOptions, ViewCamera, capture_view};

use crate::failure::Failure;
use crate::load;
use crate::output::{errln, outln};

/// Arguments of `planet capture`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// System recipe (JSON); the embedded default system when omitted.
    #[arg(long, value_name = "FILE")]
    system: Option<PathBuf>,
    /// Where the camera is: `planet=N,lat=D,lon=D,alt=M,heading=D,pitch=D,fov=D` (any
    /// subset; `look=N` looks at planet N instead of heading and pitch).
    #[arg(long, value_name = "VIEW", default_value = "planet=1,lat=0,lon=0,alt=300,pitch=-10")]
    view: String,
    /// Image size, WIDTHxHEIGHT, each 16..=8192.
    #[arg(long, value_name = "WxH", default_value = "1280x720")]
    size: engine::flags::Size,
    /// The PNG to write.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Seconds to wait for the view to settle, 0..=600.
    #[arg(long, value_parser = engine::flags::timeout, value_name = "S", default_value_t = 60.0)]
    timeout: f64,
    /// Job threads, 1..=256 (default: one per core).
    #[arg(long, value_parser = engine::flags::threads, value_name = "N")]
    threads: Option<usize>,
    /// Fly a camera path (descent, lowpass, walk, spiral1k, straight1k, straight3k, or a JSON file) drawing every
    /// frame, and report frame times; `--out` gets the last frame.
    #[arg(long, value_name = "NAME|FILE")]
    path: Option<String>,
    /// Frames per second of the path's simulated clock, 1..=1000.
    #[arg(long, value_parser = engine::flags::fps, value_name = "FPS", default_value_t = 30.0)]
    fps: f64,
    /// Print frame statistics (draws, triangles, uploads) of the capture.
    #[arg(long)]
    stats: bool,
    /// Build every region without its scatter (no trees, rocks or grass): what they cost.
    #[arg(long)]
    no_scatter: bool,
    /// Draw the objects with one instanced draw per batch instead of one
    /// indirect multi-draw a planet (the same pixels; to compare the two).
    #[arg(long)]
    no_indirect: bool,
    /// A saved world (`planet edit`): its edits are applied before streaming.
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// The world clock, seconds, 0..=1e11: planets stand as generated at 0
    /// and turn from there (the view's lat and lon turn with its planet; the
    /// sun moves). A `--path` starts at it and runs at real time.
    #[arg(long, value_parser = engine::flags::time, value_name = "S", default_value_t = 0.0)]
    time: f64,
}

/// The world of a loaded system for still views, each drawn once it has
/// settled (a tour's, a survey's), on `threads` job threads: the streamer
/// builds the leaves a view shows, not the fallbacks a moving camera
/// shows while they are missing nor the leaves out of its view, which
/// change no pixel of a settled view.
pub fn still_world_of(plan: Arc<PlannedSystem>, threads: Option<usize>, scatter: bool) -> World {
    World::new(plan, world_settings(threads, scatter, false))
}

/// The world of a loaded system entered at planet `first` (the camera's,
/// made before this returns). For a `moving` camera the other planets are
/// made in the background by threads and the streamer keeps its fallback
/// columns; for a still view each planet is made where it is first needed,
/// and only the wanted leaves that may be in view are built. A planet not in the system is
/// left for the view's check to name.
pub fn world_at(plan: Arc<PlannedSystem>, threads: Option<usize>, scatter: bool, first: u32, moving: bool) -> World {
    let settings = WorldSettings { planet_makers: moving, ..world_settings(threads, scatter, moving) };
    if (first as usize) < plan.planets.len() {
        World::new_at(plan, settings, first)
    } else {
        World::new(plan, settings)
    }
}

/// A command's world settings: `threads` job threads (one a core by
/// default), scatter on or off, and for a `moving` camera the streamer's
/// fallbacks and the columns out of view (a still view builds neither).
fn world_settings(threads: Option<usize>, scatter: bool, moving: bool) -> WorldSettings {
    // The range was checked when the flag was parsed (`flags::threads`).
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, usize::from));
    let stream =
        engine::StreamSettings { fallbacks: moving, build_unseen: moving, ..engine::StreamSettings::default() };
    WorldSettings { threads, scatter, stream, ..WorldSettings::default() }
}

/// Loads the save at `path` into `world`: refused, naming why, when it is
/// damaged or of another world.
pub fn load_save(world: &mut World, path: &std::path::Path) -> Result<(), Failure> {
    let save = engine::savefile::read_save(path).map_err(|e| Failure::Invalid(e.to_string()))?;
    world.load(&save).map_err(|e| Failure::Invalid(format!("{}: {e}", path.display())))?;
    let edits: usize = save.planets.iter().map(Vec::len).sum();
    errln!("loaded {}: {edits} edits", path.display());
    Ok(())
}

/// A headless capture, or a failure that says how to get a device.
pub fn headless(world: World, size: (u32, u32)) -> Result<Capture, Failure> {
    Capture::new(world, size).map_err(|e| Failure::Failed(e.to_string()))
}

/// Runs the command.
pub fn run(args: &Args) -> Result<(), Failure> {
    crate::save::expect_extension("--out", &args.out, &["png"])?;
    let size = args.size.pair();
    let view: ViewSpec = args.view.parse().map_err(|e| Failure::Invalid(format!("--view: {e}")))?;
    let path = args.path.as_deref().map(load_path).transpose()?;
    let launched = Instant::now();
    let plan = Arc::new(load::system(args.system.as_deref())?);
    let first = path.as_ref().map_or(view.planet, |p| p.planet);
    // One view needs only the planets it may see (it makes them when it
    // settles) and the leaves it shows once settled; a path may fly to any
    // planet, and its frames show fallbacks while leaves are missing.
    let mut world = world_at(Arc::clone(&plan), args.threads, !args.no_scatter, first, path.is_some());
    let world_s = launched.elapsed().as_secs_f64();
    // The device starts and the material textures are made once the
    // camera's planet is (both need only the system; started beside it they
    // took a share of the cores it needed, and streaming began 0.05-0.1 s
    // later), while the view streams; a bad argument is still reported first.
    let device = std::thread::spawn({
        let plan = Arc::clone(&plan);
        move || {
            // The device and the textures (on threads that inherit this
            // one's priority) share the cores with the region jobs and the
            // background planets.
            jobs::set_worker_priority(jobs::WorkerPriority::Low);
            let gpu = Gpu::headless();
            let materials = gpu.is_ok().then(|| MaterialSet::generate(&plan));
            (gpu, materials, Instant::now())
        }
    });
    world.set_time(args.time);
    if let Some(save) = &args.save {
        load_save(&mut world, save)?;
    }
    let pose = view.pose(&world).map_err(|e| Failure::Invalid(format!("--view: {e}")))?;
    if path.is_none() {
        // Streaming begins while the device starts (the capture's own
        // updates carry it on).
        let aspect = f64::from(size.0) / f64::from(size.1);
        world.update(&ViewCamera { pose, fov_y: view.fov.to_radians() }.engine_camera(aspect));
    }
    let streaming = path.is_none().then(|| launched.elapsed().as_secs_f64());
    let (gpu, materials, device_ready) =
        device.join().map_err(|_| Failure::Failed("the device's start panicked".into()))?;
    let gpu = gpu.map_err(|e| Failure::Failed(e.to_string()))?;
    let materials = materials.unwrap_or_else(|| MaterialSet::generate(&world.system));
    let joined = launched.elapsed().as_secs_f64();
    let mut capture = Capture::with_gpu(world, Arc::new(gpu), &materials, size);
    capture.renderer.set_indirect(!args.no_indirect);
    let renderer_s = launched.elapsed().as_secs_f64() - joined;
    // A path streams from its first frame, after the renderer.
    let streaming = streaming.unwrap_or(joined + renderer_s);
    errln!("device: {}", capture.renderer.gpu().describe());
    let others = capture.world.planets.len().saturating_sub(1);
    let others = if path.is_some() {
        format!("the other {others} made in the background")
    } else {
        format!("of the other {others}, those in view made as it settles")
    };
    errln!(
        "started in {streaming:.2} s: world {world_s:.2} s (planet {first}; {others}), device and textures {:.2} s \
         (after the world, beside streaming), renderer {renderer_s:.2} s",
        (device_ready - launched).as_secs_f64(),
    );
    if let Some(path) = path {
        return fly_path(&mut capture, &path, args);
    }
    let started = Instant::now();
    let shot = capture_view(&mut capture, &view, Duration::from_secs_f64(args.timeout)).map_err(render_failure)?;
    crate::save::png(&args.out, &shot.image)?;
    if shot.settled {
        let planets = &capture.world.planets;
        let made: Vec<_> = planets.iter().filter_map(|p| p.made()).map(|m| m.made_at).collect();
        let last_s = made.iter().max().map_or(0.0, |t| (*t - launched).as_secs_f64());
        let which = if made.len() == planets.len() {
            format!("every planet made {last_s:.2} s after launch")
        } else {
            format!(
                "{} of {} planets made (every one in view), the last {last_s:.2} s after launch",
                made.len(),
                planets.len()
            )
        };
        errln!(
            "settled after {:.2} s of streaming; {which}; first frame {:.2} s after launch",
            shot.stream_s,
            launched.elapsed().as_secs_f64()
        );
    } else {
        errln!("warning: not settled after {:.0} s (timeout); captured what was ready (see --timeout)", shot.stream_s);
    }
    if args.stats {
        let s = shot.stats;
        // A still view builds no region out of its view (`StreamSettings::build_unseen`).
        let unseen = capture.world.attached().map_or(0, |a| a.report.unseen);
        outln!(
            "draws {}  triangles {}  regions resident {} ({unseen} out of view not built)  uploaded {:.1} MiB  total {:.2} s",
            s.draws,
            s.triangles,
            s.resident_regions,
            capture.renderer.uploaded_bytes() as f64 / f64::from(1 << 20),
            started.elapsed().as_secs_f64()
        );
        let pose = view.pose(&capture.world).map_err(|e| Failure::Invalid(format!("--view: {e}")))?;
        let camera = ViewCamera::new(pose).engine_camera(f64::from(size.0) / f64::from(size.1));
        let near = render::objects_within(&capture.world, &camera, 1000.0);
        let kinds: Vec<String> = planet::scatter::KINDS
            .iter()
            .zip(near)
            .map(|(k, n)| format!("{n} {}", planet::scatter::kind_name(*k)))
            .collect();
        outln!(
            "objects: {} draw calls ({}) of {} batches, {} instances; {} in view within 1 km, drawn whole ({})",
            s.object_draws,
            if capture.renderer.indirect() { "indirect multi-draws" } else { "instanced draws" },
            s.object_batches,
            s.objects,
            near.iter().sum::<u64>(),
            kinds.join(", ")
        );
    }
    outln!("{}", args.out.display());
    Ok(())
}

fn load_path(name: &str) -> Result<CameraPath, Failure> {
    if let Some(p) = CameraPath::builtin(name) {
        return Ok(p);
    }
    let text = load::text(std::path::Path::new(name), load::FileKind::CameraPath)?;
    CameraPath::from_json(&text).map_err(|e| Failure::Invalid(format!("{name}: {e}")))
}

/// The system-space camera of a path at time `t`.
pub fn path_camera(world: &World, path: &CameraPath, t: f64) -> Result<ViewCamera, Failure> {
    let planet = world
        .planets
        .get(path.planet as usize)
        .ok_or_else(|| Failure::Invalid(format!("path {}: planet {} is not in the system", path.name, path.planet)))?;
    let local = path.camera(planet.terrain(), t);
    let position = planet.to_system(local.position);
    let forward = planet.vector_to_system(local.forward);
    Ok(ViewCamera::new(Pose::looking(position, forward, planet.vector_to_system(local.position.normalize()))))
}

/// Flies `path`, drawing every frame; prints per-frame CPU times.
fn fly_path(capture: &mut Capture, path: &CameraPath, args: &Args) -> Result<(), Failure> {
    let dt = 1.0 / args.fps;
    let frames = (path.duration() / dt).ceil() as usize + 1;
    let (w, h) = capture.target.size();
    let aspect = f64::from(w) / f64::from(h);
    let (mut engine_ms, mut render_ms, mut gpu_ms) = (Vec::new(), Vec::new(), Vec::new());
    let uploaded_before = capture.renderer.uploaded_bytes();
    let wall = Instant::now();
    let mut last = None;
    for frame in 0..frames {
        let t = (frame as f64 * dt).min(path.duration());
        capture.world.set_time(args.time + t);
        capture.world.pass_real_time(if frame == 0 { 0.0 } else { dt });
        let camera = path_camera(&capture.world, path, t)?;
        let start = Instant::now();
        capture.world.update(&camera.engine_camera(aspect));
        let engine_done = Instant::now();
        let options = RenderOptions { time: t, ..RenderOptions::default() };
        capture.renderer.render(&capture.world, &camera, &capture.target.view, &capture.target.depth, &options);
        let render_done = Instant::now();
        // Wait for the frame, so frames do not queue up behind a slow device.
        capture.renderer.wait_idle();
        engine_ms.push((engine_done - start).as_secs_f64() * 1e3);
        render_ms.push((render_done - engine_done).as_secs_f64() * 1e3);
        gpu_ms.push(render_done.elapsed().as_secs_f64() * 1e3);
        last = Some(camera);
        if frame % (args.fps as usize).max(1) == 0 {
            crate::output::err!("\rframe {frame}/{frames}  t {t:.1} s");
        }
    }
    errln!();
    let wall_s = wall.elapsed().as_secs_f64();
    if let Some(camera) = last {
        let (image, _) = capture
            .draw(&camera, &RenderOptions { time: path.duration(), ..RenderOptions::default() })
            .map_err(|e| Failure::Failed(e.to_string()))?;
        crate::save::png(&args.out, &image)?;
    }
    let uploaded = (capture.renderer.uploaded_bytes() - uploaded_before) as f64;
    let p = engine::run::percentile;
    outln!("path {} ({frames} frames at {} fps simulated, {wall_s:.1} s wall)", path.name, args.fps);
    outln!("engine CPU ms/frame   p50 {:7.3}  p99 {:7.3}", p(&mut engine_ms, 0.5), p(&mut engine_ms, 0.99));
    outln!("render CPU ms/frame   p50 {:7.3}  p99 {:7.3}", p(&mut render_ms, 0.5), p(&mut render_ms, 0.99));
    outln!("device wait ms/frame  p50 {:7.3}  p99 {:7.3}", p(&mut gpu_ms, 0.5), p(&mut gpu_ms, 0.99));
    outln!(
        "uploaded {:.1} MiB, {:.2} MiB per simulated second, {:.2} MiB per wall second",
        uploaded / f64::from(1 << 20),
        uploaded / f64::from(1 << 20) / path.duration(),
        uploaded / f64::from(1 << 20) / wall_s
    );
    outln!("{}", args.out.display());
    Ok(())
}

/// A drawing failure as a command's: a view the world does not have is
/// invalid input (`--view`), anything else a failure.
pub fn render_failure(e: RenderError) -> Failure {
    match e {
        RenderError::View(v) => Failure::Invalid(format!("--view: {v}")),
        other => Failure::Failed(other.to_string()),
    }
}
