//! `planet fly`: the flight client. A window (winit, X11) drawn by the render
//! crate; mouse look, WASD with up and down, a speed that scales with the
//! altitude (walking pace near the ground, kilometres a second in space), the
//! camera kept above the ground, and the streamer following the camera from
//! one planet to the next with no loading screen. The title bar reads fps,
//! altitude, speed, the nearest planet, its nearest town (name, distance and
//! bearing; a cyan beacon floats 60 m over it) and the regions ready and queued.
//!
//! Planets turn on the world clock (`--time` to start at, `--time-scale`,
//! and `P` cycles paused, 1x, 10x, 100x and 1000x); the title reads the
//! local solar time under the camera and the scale. Walking or hovering,
//! the player turns with the ground.
//!
//! `G` toggles walk mode: gravity towards the planet's centre (the recipe's
//! `gravity_mps2`), walking on the terrain's colliders (`engine::physics`),
//! Space to jump, slopes too steep to stand on slide the walker off; `G`
//! again flies on from where it stands (in a cave, too: the camera is kept
//! above the outer surface except in a cave's air).
//!
//! Editing: `F` (or the left button, with the cursor grabbed) digs where
//! the crosshair meets the ground, `R` (or the right button) fills, `T`
//! flattens, `V` smooths, `[` and `]` (or the wheel) change the brush's size and `B`
//! its shape (a ball or a box), and a ring of yellow stones on the ground
//! shows its rim. `--save FILE` loads a saved
//! world (a new one if FILE does not exist) and saves the edits to it every
//! `--autosave` seconds and on quitting (`engine::savefile`: nothing is ever
//! half-written).
//!
//! `--script` replaces the keyboard and mouse with a timed input script (a
//! built-in name or a JSON file) and `--seconds` quits after that long,
//! writing `--screenshot`: how the client is tested under Xvfb. A script's
//! clock, and `--seconds` with it, is simulated (1/30 s a frame) and starts
//! once the view has streamed in.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use engine::player::{Player, PlayerInput};
use engine::tool::{Aim, EditTool, Ground};
use engine::{ViewSpec, World};
use planet::edit::{Operation, Surface};
use render::{DepthTarget, Gpu, RenderOptions, Renderer, ViewCamera};
use serde::Deserialize;
use winit::application::ApplicationHandler;
use winit::event::{DeviceEvent, DeviceId, ElementState, MouseButton, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{CursorGrabMode, Window, WindowId};

use super::capture::world_at;
use crate::failure::Failure;
use crate::output::errln;

/// Arguments of `planet fly`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// System recipe (JSON); the embedded default system when omitted.
    #[arg(long, value_name = "FILE")]
    system: Option<PathBuf>,
    /// Where to start (see `planet capture --view`), or `cave`: before a cave
    /// mouth on planet 1's day side, looking in; default: on the ground of
    /// planet 1, on its day side.
    #[arg(long, value_name = "VIEW")]
    view: Option<String>,
    /// Window size, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "1280x720")]
    size: engine::flags::Size,
    /// Job threads, 1..=256 (default: one per core).
    #[arg(long, value_parser = engine::flags::threads, value_name = "N")]
    threads: Option<usize>,
    /// Drive the camera from an input script (built-in: takeoff, cave, dig) instead of the keyboard and mouse.
    #[arg(long, value_name = "NAME|FILE")]
    script: Option<String>,
    /// Quit after this many seconds, 0.1..=86400 (with --script, counted from its start, once the view has streamed in).
    #[arg(long, value_parser = engine::flags::seconds, value_name = "S")]
    seconds: Option<f64>,
    /// On quitting, write the window's last frame to this PNG.
    #[arg(long, value_name = "FILE")]
    screenshot: Option<PathBuf>,
    /// A saved world to continue (created when missing): edits are saved to it.
    #[arg(long, value_name = "FILE")]
    save: Option<PathBuf>,
    /// Seconds between autosaves of --save while there are new edits, 1..=86400 (and always on quitting).
    #[arg(long, value_parser = engine::flags::seconds, value_name = "S", default_value_t = 60.0)]
    autosave: f64,
    /// The world clock at the start, seconds, 0..=1e11 (planets stand as generated at 0).
    #[arg(long, value_parser = engine::flags::time, value_name = "S", default_value_t = 0.0)]
    time: f64,
    /// Simulated seconds per real second, 0..=1000 (0: paused; `P` cycles 0, 1, 10, 100, 1000).
    #[arg(long, value_parser = engine::flags::time_scale, value_name = "X", default_value_t = 1.0)]
    time_scale: f64,
}

/// One step of an input script: these keys held (and this look rate) until `until`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptStep {
    /// Seconds since the start at which the step ends.
    pub until: f64,
    /// Keys held: w a s d up down boost, walk (toggles walk mode when first held), jump.
    #[serde(default)]
    pub keys: Vec<String>,
    /// Turn rate, degrees per second: right, up.
    #[serde(default)]
    pub look: [f64; 2],
}

/// The built-in script: look around on the ground, climb away and turn.
/// Speed grows with altitude, so climbing is exponential: the climb lasts two
/// seconds without boost (staying under the top of the air, whatever the frame rate),
/// then it flies level.
const TAKEOFF: &str = r#"[
  {"until": 1.0, "look": [20, 0]},
  {"until": 3.0, "keys": ["w", "up"], "look": [0, -3]},
  {"until": 1e9, "keys": ["w"]}
]"#;

/// The built-in walk: walk mode on, wait for the ground, then walk straight
/// ahead (from `--view cave`: down the dune and into the cave).
const CAVE: &str = r#"[
  {"until": 0.5, "keys": ["walk"]},
  {"until": 2.0},
  {"until": 1e9, "keys": ["w"]}
]"#;

/// The built-in dig: walk mode on, wait for the ground, look down ahead,
/// dig twice with a 4 m brush (a hole, then deeper), then fly up and back
/// looking down at it.
const DIG: &str = r#"[
  {"until": 0.5, "keys": ["walk"]},
  {"until": 2.0},
  {"until": 3.0, "look": [0, -40]},
  {"until": 3.1, "keys": ["larger"]},
  {"until": 3.2, "keys": ["dig"]},
  {"until": 5.0},
  {"until": 5.1, "keys": ["dig"]},
  {"until": 7.0},
  {"until": 7.1, "keys": ["walk"]},
  {"until": 8.5, "keys": ["up", "s"], "look": [0, -25]},
  {"until": 1e9}
]"#;

fn load_script(name: &str) -> Result<Vec<ScriptStep>, Failure> {
    let text = match name {
        "takeoff" => TAKEOFF.to_string(),
        "cave" => CAVE.to_string(),
        "dig" => DIG.to_string(),
        _ => crate::load::text(std::path::Path::new(name), crate::load::FileKind::Script)?,
    };
    let steps: Vec<ScriptStep> =
        planet::json::parse(&text).map_err(|e| Failure::Invalid(format!("script {name}: {e}")))?;
    let known = KEYS;
    for (i, step) in steps.iter().enumerate() {
        if let Some(k) = step.keys.iter().find(|k| !known.contains(&k.as_str())) {
            return Err(Failure::Invalid(format!(
                "script {name}: [{i}].keys: unknown key `{k}` (keys: {})",
                known.join(", ")
            )));
        }
        if !step.until.is_finite() || (i > 0 && step.until <= steps[i - 1].until) {
            return Err(Failure::Invalid(format!("script {name}: [{i}].until must increase")));
        }
    }
    if steps.is_empty() {
        return Err(Failure::Invalid(format!("script {name}: needs at least one step")));
    }
    Ok(steps)
}

/// What `planet` with no arguments (and `cargo run --release`) does: fly
/// when there is a display, else say so and run `planet tour`.
pub fn run_default() -> Result<(), Failure> {
    let display = ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if display {
        let args = Args {
            system: None,
            view: None,
            size: engine::flags::Size(1280, 720),
            threads: None,
            script: None,
            seconds: None,
            screenshot: None,
            save: None,
            autosave: 60.0,
            time: 0.0,
            time_scale: 1.0,
        };
        return run(&args);
    }
    errln!("No display (neither DISPLAY nor WAYLAND_DISPLAY is set): running headless.");
    errln!(
        "`planet tour` captures every planet of the default system into planet-tour/ (`planet --help` lists the rest)."
    );
    super::tour::run(&super::tour::Args::default())
}

/// Runs the client.
pub fn run(args: &Args) -> Result<(), Failure> {
    if let Some(shot) = &args.screenshot {
        crate::save::expect_extension("--screenshot", shot, &["png"])?;
    }
    let size = args.size.pair();
    let script = args.script.as_deref().map(load_script).transpose()?;
    let cave = args.view.as_deref() == Some("cave");
    let view: Option<ViewSpec> = match args.view.as_deref() {
        Some("cave") | None => None,
        Some(v) => Some(v.parse().map_err(|e| Failure::Invalid(format!("--view: {e}")))?),
    };
    let launched = Instant::now();
    let plan = Arc::new(crate::load::system(args.system.as_deref())?);
    // The planet the client starts on is made first; the others are made
    // in the background while it streams.
    let home = 1.min(plan.planets.len() as u32 - 1);
    let first = view.as_ref().map_or(home, |v| v.planet);
    // The other planets are made beside the region jobs: the sky shows them.
    let mut world = world_at(Arc::clone(&plan), args.threads, true, first, true);
    // Then the material textures are made while the window and its device
    // start (they need only the system), ahead of the background planets
    // and the region jobs: the first frame waits for them.
    let materials = std::thread::spawn(move || render::MaterialSet::generate(&plan));
    world.set_time(args.time);
    world.set_time_scale(args.time_scale);
    if let Some(save) = args.save.as_deref().filter(|p| p.exists()) {
        super::capture::load_save(&mut world, save)?;
    }
    let edits = world.save().planets.iter().map(Vec::len).sum();
    let view = match view {
        Some(v) => v,
        None if cave => engine::view::sunlit_cave_mouth(&world, home, 15.0).ok_or_else(|| {
            Failure::Invalid(format!("--view cave: planet {home} has no cave mouth on dry land near noon"))
        })?,
        None => {
            let (lat, lon) = engine::sunlit_land(&world, home);
            ViewSpec { planet: home, lat, lon, alt: 2.0, ..ViewSpec::default() }
        }
    };
    let pose = view.pose(&world).map_err(|e| Failure::Invalid(format!("--view: {e}")))?;
    // Streaming begins while the window and its device start (the frames'
    // updates carry it on).
    world.update(&ViewCamera::new(pose).engine_camera(f64::from(size.0) / f64::from(size.1.max(1))));
    let streaming_s = launched.elapsed().as_secs_f64();
    // The first frames draw this planet's proxy until its regions cover it:
    // it is made while the window and its device start.
    world.planets[view.planet as usize].begin_proxy();
    let event_loop = EventLoop::new()
        .map_err(|e| Failure::Failed(format!("cannot open a window ({e}); with no display use `planet tour`")))?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut app = Client {
        world,
        materials: Some(materials),
        first_planet: view.planet as usize,
        player: Player::new(pose),
        size,
        script,
        seconds: args.seconds,
        screenshot: args.screenshot.clone(),
        window: None,
        error: None,
        held: BTreeSet::new(),
        look: (0.0, 0.0),
        grabbed: false,
        started: Instant::now(),
        launched,
        untold_streaming_s: Some(streaming_s),
        settle_untold: true,
        last_frame: Instant::now(),
        title_at: Instant::now(),
        frames: 0,
        fps: 0.0,
        script_clock: None,
        tool: EditTool::default(),
        tool_held: BTreeSet::new(),
        aim: None,
        rim: Vec::new(),
        edits,
        saves: Saves {
            path: args.save.clone(),
            every_s: args.autosave,
            saved: edits,
            at: Instant::now(),
            writing: None,
        },
    };
    event_loop.run_app(&mut app).map_err(|e| Failure::Failed(format!("the window's event loop failed: {e}")))?;
    errln!("{}", app.title(app.fps));
    match app.error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

struct WindowState {
    window: Arc<Window>,
    surface: render::WindowSurface,
    renderer: Renderer,
    depth: DepthTarget,
}

struct Client {
    world: World,
    /// The material textures being made, until the renderer takes them.
    materials: Option<std::thread::JoinHandle<render::MaterialSet>>,
    /// The planet the client starts on: its proxy, made while the window
    /// opens, is waited for before the first frame.
    first_planet: usize,
    player: Player,
    size: (u32, u32),
    script: Option<Vec<ScriptStep>>,
    seconds: Option<f64>,
    screenshot: Option<PathBuf>,
    window: Option<WindowState>,
    error: Option<Failure>,
    held: BTreeSet<&'static str>,
    look: (f64, f64),
    grabbed: bool,
    started: Instant,
    /// When the client was launched (before the system was loaded).
    launched: Instant,
    /// When streaming began (seconds after launch), until the first frame
    /// has been told.
    untold_streaming_s: Option<f64>,
    /// Whether the view's first settling is still to be told.
    settle_untold: bool,
    last_frame: Instant,
    title_at: Instant,
    frames: u32,
    fps: f64,
    /// The script's simulated clock, seconds: it starts once the view has
    /// streamed in and then advances by `SCRIPT_DT` a frame, whatever the
    /// frame took (`None` before it starts).
    script_clock: Option<f64>,
    /// The edit brush.
    tool: EditTool,
    /// Keys held last frame (edits and brush steps happen when first held).
    tool_held: BTreeSet<&'static str>,
    /// Where the crosshair meets the ground, if within reach.
    aim: Option<Aim>,
    /// The brush's rim on the ground there (`Ground::rim`), for the marker.
    rim: Vec<glam::DVec3>,
    /// Edits made (loaded ones included).
    edits: usize,
    saves: Saves,
}

/// Saving the edits: where, how often, and the write in flight.
struct Saves {
    path: Option<PathBuf>,
    every_s: f64,
    /// Edits in the last save written.
    saved: usize,
    at: Instant,
    writing: Option<std::thread::JoinHandle<Result<(), engine::savefile::SaveFileError>>>,
}

impl Saves {
    /// Writes `world`'s edits when there are new ones and `due` (on a
    /// thread, so the frame goes on), after the write before has finished.
    fn save(&mut self, world: &World, edits: usize, due: bool) -> Result<(), Failure> {
        let Some(path) = self.path.clone() else { return Ok(()) };
        if due || self.writing.as_ref().is_some_and(std::thread::JoinHandle::is_finished) {
            self.finish()?;
        }
        if self.writing.is_none() && edits != self.saved && (due || self.at.elapsed().as_secs_f64() >= self.every_s) {
            let save = world.save();
            self.saved = edits;
            self.at = Instant::now();
            self.writing = Some(std::thread::spawn(move || engine::savefile::write_save(&path, &save)));
        }
        Ok(())
    }

    /// Finishes the write in flight.
    fn finish(&mut self) -> Result<(), Failure> {
        let Some(writing) = self.writing.take() else { return Ok(()) };
        writing
            .join()
            .map_err(|_| Failure::Failed("the save thread failed".into()))?
            .map_err(|e| Failure::Failed(e.to_string()))
    }
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("player", &self.player).finish_non_exhaustive()
    }
}

fn key_name(code: KeyCode) -> Option<&'static str> {
    Some(match code {
        KeyCode::KeyW | KeyCode::ArrowUp => "w",
        KeyCode::KeyA | KeyCode::ArrowLeft => "a",
        KeyCode::KeyS | KeyCode::ArrowDown => "s",
        KeyCode::KeyD | KeyCode::ArrowRight => "d",
        KeyCode::Space | KeyCode::KeyE => "up",
        KeyCode::KeyQ | KeyCode::KeyC | KeyCode::ControlLeft => "down",
        KeyCode::ShiftLeft | KeyCode::ShiftRight => "boost",
        KeyCode::KeyG => "walk",
        KeyCode::KeyF => "dig",
        KeyCode::KeyR => "fill",
        KeyCode::KeyT => "flatten",
        KeyCode::KeyV => "smooth",
        KeyCode::BracketLeft => "smaller",
        KeyCode::BracketRight => "larger",
        KeyCode::KeyB => "shape",
        KeyCode::KeyP => "time",
        _ => return None,
    })
}

impl Client {
    fn fail(&mut self, event_loop: &ActiveEventLoop, failure: Failure) {
        self.error = Some(failure);
        event_loop.exit();
    }

    /// Moves the player by one frame of input (`clock`: the script's time,
    /// negative while it waits for the view to stream in).
    fn step(&mut self, dt: f64, clock: f64) {
        let (held, look): (BTreeSet<&str>, (f64, f64)) = match &self.script {
            Some(_) if clock < 0.0 => (BTreeSet::new(), (0.0, 0.0)),
            Some(steps) => {
                let step = steps.iter().find(|s| clock < s.until).unwrap_or(&steps[steps.len() - 1]);
                let keys = step.keys.iter().filter_map(|k| key_str(k)).collect();
                (keys, (step.look[0] * dt, step.look[1] * dt))
            }
            None => (self.held.clone(), std::mem::take(&mut self.look)),
        };
        let axis = |plus: &str, minus: &str| {
            f64::from(u8::from(held.contains(plus))) - f64::from(u8::from(held.contains(minus)))
        };
        let input = PlayerInput {
            forward: axis("w", "s"),
            right: axis("d", "a"),
            up: axis("up", "down"),
            boost: held.contains("boost"),
            walk: held.contains("walk"),
            jump: held.contains("jump"),
            look_deg: look,
        };
        self.player.step(&self.world, &input, dt);
        if self.player.walking() {
            // Animals shy from a walker within 4 m (they run, then walk back to their paths).
            self.world.scare_creatures(self.player.pose.position, engine::creatures::SCARE_M);
        }
        self.use_tool(&held);
    }

    /// The edit keys: an edit or a brush step when first held.
    fn use_tool(&mut self, held: &BTreeSet<&'static str>) {
        let ground = Ground::of(&self.world);
        self.aim = ground.as_ref().and_then(|g| g.aim(&self.player.pose));
        let pressed: Vec<&str> = held.difference(&self.tool_held).copied().collect();
        self.tool_held = held.clone();
        for key in pressed {
            let op = match key {
                "smaller" => {
                    self.tool.resize(-1);
                    continue;
                }
                "larger" => {
                    self.tool.resize(1);
                    continue;
                }
                "shape" => {
                    self.tool.cube = !self.tool.cube;
                    continue;
                }
                "time" => {
                    let scale = self.world.cycle_time_scale();
                    errln!("time scale {}", time_scale(scale));
                    continue;
                }
                "dig" => Operation::Dig,
                "fill" => Operation::Fill,
                "flatten" => Operation::Flatten,
                "smooth" => Operation::Smooth(Surface::FLAT),
                _ => continue,
            };
            let Some(aim) = self.aim else { continue };
            self.tool.op = op;
            // Fills are of the planet's rock.
            self.tool.material = self.world.planets[aim.planet as usize].terrain().recipe.surface.rock as u8;
            match self.world.edit(aim.planet, self.tool.edit(op, &aim)) {
                Ok(_) => self.edits += 1,
                Err(e) => errln!("cannot {}: {e}", op.name()),
            }
        }
        // The marker's rim, on the same ground the aim was found on.
        self.rim = match (&ground, &self.aim) {
            (Some(g), Some(a)) => g.rim(a, self.tool.radius_m(), 24),
            _ => Vec::new(),
        };
    }

    /// The nearest planet's nearest settlement, 60 m over its plot
    /// (planet, planet-local metres): the beacon the client marks it with.
    fn nearest_town(&self) -> Option<(u32, glam::DVec3)> {
        let (planet, _) = self.world.nearest(self.player.pose.position);
        let here = planet.to_local(self.player.pose.position).normalize_or(glam::DVec3::Y).as_vec3();
        let (s, _) = planet.terrain().settlements.nearest(here)?;
        let lift = f64::from(planet.terrain().recipe.radius_m + s.height_m) + 60.0;
        Some((planet.index, s.centre.as_dvec3() * lift))
    }

    fn title(&self, fps: f64) -> String {
        let (planet, _) = self.world.nearest(self.player.pose.position);
        let name = &self.world.system.planets[planet.index as usize].name;
        // The nearest settlement of that planet: its name, distance and bearing.
        let here = planet.to_local(self.player.pose.position).normalize_or(glam::DVec3::Y).as_vec3();
        let clock = format!(
            "{} {}",
            engine::clock::clock_text(planet.solar_hours(here.as_dvec3())),
            time_scale(self.world.clock().scale())
        );
        let town = planet.terrain().settlements.nearest(here).map_or_else(
            || "no towns".to_owned(),
            |(s, d)| {
                let bearing = super::nearest::bearing_deg(here, s.centre);
                format!("town {} {} at {bearing:.0} deg", s.name, metres(f64::from(d)))
            },
        );
        let (ready, queued) =
            self.world.attached().map_or((0, 0), |a| (a.report.ready, a.report.wanted - a.report.ready));
        // Walking, the altitude is over the ground under the feet, and a
        // walker under the outer surface (in a cave) is told how deep.
        let altitude = match self.player.altitude(&self.world) {
            (h, Some(depth)) => format!("{} ({} underground)", metres(h), metres(depth)),
            (h, None) => metres(h),
        };
        let aim = self.aim.map_or_else(|| "nothing in reach".to_owned(), |a| format!("at {}", metres(a.distance)));
        format!(
            "planet: {fps:.0} fps | alt {altitude} | {} | {} | near {name} {clock} | {town} | regions {ready} ready, {queued} queued | {} {} m {}, {aim} | {} edits",
            speed(self.player.speed),
            self.player.mode_name(),
            self.tool.op.name(),
            self.tool.radius_m(),
            self.tool.shape(),
            self.edits
        )
    }
}

/// Longest a script waits for the view to stream in before it starts, seconds.
const SCRIPT_WAIT_S: f64 = 60.0;

/// A scripted frame's step of the simulated clock, seconds.
const SCRIPT_DT: f64 = 1.0 / 30.0;

/// Keys an input script may hold.
const KEYS: [&str; 17] = [
    "w", "a", "s", "d", "up", "down", "boost", "walk", "jump", "dig", "fill", "flatten", "smooth", "smaller", "larger",
    "shape", "time",
];

fn key_str(k: &str) -> Option<&'static str> {
    KEYS.into_iter().find(|&n| n == k)
}

/// A time scale as the title and the console say it: `paused`, `x100`.
fn time_scale(scale: f64) -> String {
    if scale == 0.0 { "paused".to_owned() } else { format!("x{scale}") }
}

fn metres(m: f64) -> String {
    let m = if m.abs() < 0.5 { 0.0 } else { m }; // never "-0 m"
    if m.abs() >= 10_000.0 { format!("{:.1} km", m / 1000.0) } else { format!("{m:.0} m") }
}

fn speed(v: f64) -> String {
    if v >= 1000.0 { format!("{:.1} km/s", v / 1000.0) } else { format!("{v:.1} m/s") }
}

impl ApplicationHandler for Client {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_some() {
            return;
        }
        let attributes = Window::default_attributes()
            .with_title("planet")
            .with_inner_size(winit::dpi::PhysicalSize::new(self.size.0, self.size.1));
        let window = match event_loop.create_window(attributes) {
            Ok(w) => Arc::new(w),
            Err(e) => return self.fail(event_loop, Failure::Failed(format!("cannot open a window: {e}"))),
        };
        let instance = render::instance_for_display(event_loop.owned_display_handle());
        let surface = match render::WindowSurface::new(instance, Arc::clone(&window), self.size) {
            Ok(s) => s,
            Err(e) => return self.fail(event_loop, Failure::Failed(e.to_string())),
        };
        let gpu: Arc<Gpu> = Arc::clone(surface.gpu());
        errln!("device: {}", gpu.describe());
        let materials = self.materials.take().and_then(|h| h.join().ok());
        let materials = materials.unwrap_or_else(|| render::MaterialSet::generate(&self.world.system));
        let _ = self.world.planets[self.first_planet].proxy();
        let renderer = Renderer::with_materials(Arc::clone(&gpu), surface.format(), &self.world, &materials);
        let depth = DepthTarget::new(&gpu.device, surface.size());
        self.window = Some(WindowState { window, surface, renderer, depth });
        self.started = Instant::now();
        self.last_frame = Instant::now();
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                if let Some(w) = &mut self.window {
                    w.surface.resize((size.width, size.height));
                    w.depth = DepthTarget::new(&w.renderer.gpu().device, w.surface.size());
                }
            }
            WindowEvent::KeyboardInput { event, .. } => {
                if let PhysicalKey::Code(code) = event.physical_key {
                    if code == KeyCode::Escape && event.state == ElementState::Pressed {
                        if self.grabbed {
                            self.release_cursor();
                        } else {
                            event_loop.exit();
                        }
                    }
                    if let Some(name) = key_name(code) {
                        if event.state == ElementState::Pressed {
                            self.held.insert(name);
                        } else {
                            self.held.remove(name);
                        }
                    }
                }
            }
            WindowEvent::MouseInput { state, button, .. } if self.grabbed => {
                let name = match button {
                    MouseButton::Left => "dig",
                    MouseButton::Right => "fill",
                    _ => return,
                };
                if state == ElementState::Pressed {
                    self.held.insert(name);
                } else {
                    self.held.remove(name);
                }
            }
            WindowEvent::MouseInput { state: ElementState::Pressed, button: MouseButton::Left, .. } => {
                self.grab_cursor();
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let up = match delta {
                    winit::event::MouseScrollDelta::LineDelta(_, y) => y > 0.0,
                    winit::event::MouseScrollDelta::PixelDelta(p) => p.y > 0.0,
                };
                self.tool.resize(if up { 1 } else { -1 });
            }
            WindowEvent::Focused(false) => {
                self.held.clear();
                self.release_cursor();
            }
            WindowEvent::RedrawRequested => self.frame(event_loop),
            _ => {}
        }
    }

    fn device_event(&mut self, _event_loop: &ActiveEventLoop, _id: DeviceId, event: DeviceEvent) {
        if let DeviceEvent::MouseMotion { delta } = event
            && self.grabbed
        {
            // Degrees per count of mouse motion.
            self.look.0 += delta.0 * 0.15;
            self.look.1 -= delta.1 * 0.15;
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(w) = &self.window {
            w.window.request_redraw();
        }
    }

    fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
        // The edits are saved on quitting, whatever else fails.
        let saved = self.saves.save(&self.world, self.edits, true).and_then(|()| self.saves.finish());
        if let Err(e) = saved {
            self.error = Some(e);
        }
        let (Some(path), Some(w)) = (self.screenshot.clone(), &mut self.window) else { return };
        match w.surface.last_frame() {
            Some(image) => {
                let saved = crate::save::png(&path, &image)
                    .and_then(|()| crate::output::stdout(format_args!("{}\n", path.display())));
                if let Err(e) = saved {
                    self.error = Some(e);
                }
            }
            None => self.error = Some(Failure::Failed("no frame was drawn to take a screenshot of".into())),
        }
    }
}

impl Client {
    fn grab_cursor(&mut self) {
        if let Some(w) = &self.window {
            let grabbed = w
                .window
                .set_cursor_grab(CursorGrabMode::Locked)
                .or_else(|_| w.window.set_cursor_grab(CursorGrabMode::Confined))
                .is_ok();
            w.window.set_cursor_visible(!grabbed);
            self.grabbed = grabbed;
        }
    }

    fn release_cursor(&mut self) {
        if let Some(w) = &self.window {
            let _ = w.window.set_cursor_grab(CursorGrabMode::None);
            w.window.set_cursor_visible(true);
        }
        self.grabbed = false;
    }

    fn frame(&mut self, event_loop: &ActiveEventLoop) {
        let now = Instant::now();
        let mut dt = (now - self.last_frame).as_secs_f64().min(0.25);
        self.last_frame = now;
        let elapsed = (now - self.started).as_secs_f64();
        // A script's clock, and `--seconds` with it, is simulated: it starts
        // when the view has first streamed in (or a minute has passed) and
        // moves by a fixed step a frame, so a scripted run makes the same
        // moves on a fast machine and on a slow, busy one.
        let clock = match (&self.script, &mut self.script_clock) {
            (None, _) => elapsed,
            (Some(_), Some(clock)) => {
                *clock += SCRIPT_DT;
                dt = SCRIPT_DT;
                *clock
            }
            (Some(_), None) => -1.0,
        };
        // The world clock: by the frame's (or the script's) time at its scale.
        self.world.advance_clock(dt);
        self.step(dt, clock);
        let Some(w) = &self.window else { return };
        let (width, height) = w.surface.size();
        let camera = ViewCamera::new(self.player.pose);
        self.world.update(&camera.engine_camera(f64::from(width) / f64::from(height.max(1))));
        if self.script.is_some() && self.script_clock.is_none() && (self.world.is_settled() || elapsed > SCRIPT_WAIT_S)
        {
            self.script_clock = Some(0.0);
        }
        if let Err(e) = self.saves.save(&self.world, self.edits, false) {
            return self.fail(event_loop, e);
        }
        let capture = self.screenshot.is_some();
        let radius = self.tool.radius_m();
        let marker = self.aim.map(|a| render::Marker {
            planet: a.planet,
            points: std::mem::take(&mut self.rim),
            size_m: (radius * 0.12).max(0.12),
        });
        let beacon = self.nearest_town();
        let Some(w) = &mut self.window else { return };
        w.renderer.set_marker(marker);
        w.renderer.set_beacon(beacon);
        let result = w.surface.draw(capture, |view| {
            w.renderer.render(
                &self.world,
                &camera,
                view,
                &w.depth,
                &RenderOptions { time: elapsed, ..RenderOptions::default() },
            )
        });
        if let Err(e) = result {
            return self.fail(event_loop, Failure::Failed(e.to_string()));
        }
        self.frames += 1;
        if let Some(streaming_s) = self.untold_streaming_s.take() {
            errln!(
                "first frame {:.2} s after launch (streaming from {streaming_s:.2} s; {} of {} planets made)",
                self.launched.elapsed().as_secs_f64(),
                self.world.planets_made(),
                self.world.planets.len()
            );
        }
        if self.settle_untold && self.world.is_settled() {
            errln!("view settled {:.2} s after launch (every planet made)", self.launched.elapsed().as_secs_f64());
            self.settle_untold = false;
        }
        let since = (now - self.title_at).as_secs_f64();
        if since >= 0.5 {
            self.fps = f64::from(self.frames) / since;
            let title = self.title(self.fps);
            if let Some(w) = &self.window {
                w.window.set_title(&title);
            }
            self.frames = 0;
            self.title_at = now;
        }
        if self.seconds.is_some_and(|s| clock >= s) {
            event_loop.exit();
        }
    }
}
