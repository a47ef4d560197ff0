//! Comparing a run with its baseline. Images: a perceptual difference per
//! pixel (distance in Oklab, x100, about one "just noticeable" step per
//! unit); a keyframe fails when more than `MAX_CHANGED` of its pixels differ
//! by more than `PIXEL_DELTA`. Performance: each figure as a ratio against
//! the baseline, times first divided by each run's calibration so machines of
//! different speeds compare; a figure more than `ALLOWANCE` worse (and worse
//! by more than its noise floor) fails. A figure that fails is measured
//! again in a second run and counts only if it fails there too
//! (`Comparison::confirmed_by`): one busy moment of a shared machine is not
//! a regression, and a real one shows in both.

use crate::error::SmokeError;
use std::path::Path;

use image::{Rgba, RgbaImage};
use serde::{Deserialize, Serialize};

use crate::run::ScenarioResult;

/// A pixel differs when its Oklab distance (x100) is above this.
pub const PIXEL_DELTA: f32 = 6.0;
/// A keyframe fails when more than this share of its pixels differ.
pub const MAX_CHANGED: f64 = 0.005;
/// A performance figure fails when this much worse than the baseline.
pub const ALLOWANCE: f64 = 0.25;
/// A bless is refused when its calibration is this much slower than the
/// median of the backend's other baselines: the machine was busy, and a
/// baseline timed on a busy machine scales every later run wrongly (home's
/// 27.8 ms against the others' 21.5 made an unchanged build read 29% slower).
pub const BLESS_CALIBRATION_SPREAD: f64 = 0.12;

/// One keyframe's image against its baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImageCheck {
    /// Keyframe.
    pub keyframe: String,
    /// Whether there was a baseline image.
    pub has_baseline: bool,
    /// Share of pixels that differ.
    pub changed: f64,
    /// Mean difference over all pixels.
    pub mean_delta: f64,
    /// Within tolerance (true when there is no baseline to compare with).
    pub pass: bool,
}

/// One performance figure against its baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MetricCheck {
    /// What it is.
    pub name: String,
    /// This run's figure (raw units).
    pub current: f64,
    /// The baseline's figure (raw units).
    pub baseline: f64,
    /// Calibrated ratio, current over baseline (above 1 is worse).
    pub ratio: f64,
    /// Within the allowance.
    pub pass: bool,
}

/// A scenario's comparison.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// Per keyframe.
    pub images: Vec<ImageCheck>,
    /// Per figure.
    pub metrics: Vec<MetricCheck>,
    /// One line per failure.
    pub failures: Vec<String>,
    /// Whether a baseline existed.
    pub has_baseline: bool,
    /// Whether the figures were measured again because a first run's failed.
    #[serde(default)]
    pub rerun: bool,
}

impl Comparison {
    /// Whether a performance figure failed.
    #[must_use]
    pub fn slow(&self) -> bool {
        self.metrics.iter().any(|m| !m.pass)
    }

    /// This comparison (of a second run) with a figure failing only where it
    /// failed in `first` as well; image failures stand as they are.
    #[must_use]
    pub fn confirmed_by(mut self, first: &Comparison, scenario: &str) -> Comparison {
        let failed_first = |name: &str| first.metrics.iter().any(|m| m.name == name && !m.pass);
        let unconfirmed: Vec<String> =
            self.metrics.iter().filter(|m| !m.pass && !failed_first(&m.name)).map(|m| m.failure(scenario)).collect();
        self.failures.retain(|f| !unconfirmed.contains(f));
        for m in &mut self.metrics {
            m.pass = m.pass || !failed_first(&m.name);
        }
        self.rerun = true;
        self
    }
}

impl MetricCheck {
    /// The failure line of this figure in `scenario`.
    fn failure(&self, scenario: &str) -> String {
        format!(
            "{scenario}: {} is {:.0}% worse than the baseline ({:.3} now, {:.3} then, calibrated ratio {:.2})",
            self.name,
            (self.ratio - 1.0) * 100.0,
            self.current,
            self.baseline,
            self.ratio
        )
    }
}

/// The figures compared: name, value, whether it is a time (calibrated), and
/// its noise floor (a difference smaller than this never fails).
#[must_use]
pub fn figures(r: &ScenarioResult) -> Vec<(String, f64, bool, f64)> {
    let stage = |name: &str| r.stages.get(name).map_or(0.0, |p| p.p50);
    let settle: f64 = r.keyframes.iter().map(|k| k.settle_s).sum();
    vec![
        ("engine ms/frame p50".into(), r.frame_percentiles(|f| f.engine_ms).p50, true, 0.5),
        // Render CPU time includes the uploads, which follow streaming's pace.
        ("render ms/frame p50".into(), r.frame_percentiles(|f| f.render_ms).p50, true, 1.5),
        ("apply ms/frame p50".into(), r.frame_percentiles(|f| f.apply_ms).p50, true, 0.3),
        ("generate ms p50".into(), stage("generate"), true, 0.3),
        ("polygonize ms p50".into(), stage("polygonize"), true, 0.3),
        ("spherify ms p50".into(), stage("spherify"), true, 0.3),
        // Whole jobs share the cores with the device (lavapipe renders on the
        // CPU), and settling depends on how far streaming got along the path:
        // both swing by several milliseconds and a second from run to run.
        ("region job ms p50".into(), stage("region job"), true, 5.0),
        ("settle s (all keyframes)".into(), settle, true, 1.0),
        ("s per 1000 regions".into(), 1000.0 / r.regions_per_s.max(1e-9), true, 10.0),
        // Peak memory follows how full the region cache got, which follows timing.
        ("peak resident MiB".into(), r.peak_rss_mib, false, 256.0),
    ]
}

/// Compares `current` (its PNGs in `current_dir`) with `baseline` (PNGs in
/// `baseline_dir`), writing a diff PNG per keyframe into `current_dir`.
pub fn compare(
    current: &ScenarioResult,
    current_dir: &Path,
    baseline: Option<&ScenarioResult>,
    baseline_dir: &Path,
) -> Result<Comparison, SmokeError> {
    let Some(baseline) = baseline else { return Ok(Comparison::default()) };
    let mut out = Comparison { has_baseline: true, ..Comparison::default() };
    let name = &current.name;
    for k in &current.keyframes {
        let now = open(&current_dir.join(&k.image))?;
        let base_path = baseline_dir.join(&k.image);
        if !base_path.exists() {
            out.images.push(ImageCheck {
                keyframe: k.name.clone(),
                has_baseline: false,
                changed: 0.0,
                mean_delta: 0.0,
                pass: true,
            });
            continue;
        }
        let base = open(&base_path)?;
        if base.dimensions() != now.dimensions() {
            out.failures.push(format!(
                "{name}/{}: image is {:?}, baseline {:?} (re-bless after changing the size)",
                k.name,
                now.dimensions(),
                base.dimensions()
            ));
            continue;
        }
        let (diff, changed, mean_delta) = difference(&now, &base);
        let diff_path = current_dir.join(format!("{}.diff.png", k.name));
        crate::write_png(&diff_path, &diff)?;
        let pass = changed <= MAX_CHANGED;
        if !pass {
            out.failures.push(format!(
                "{name}/{}: image changed: {:.2}% of pixels differ (allowed {:.2}%), mean difference {mean_delta:.2}",
                k.name,
                changed * 100.0,
                MAX_CHANGED * 100.0
            ));
        }
        out.images.push(ImageCheck { keyframe: k.name.clone(), has_baseline: true, changed, mean_delta, pass });
    }
    for k in &baseline.keyframes {
        if !current.keyframes.iter().any(|c| c.name == k.name) {
            out.failures.push(format!("{name}/{}: keyframe is in the baseline but was not captured", k.name));
        }
    }
    let base_figures = figures(baseline);
    for (metric, value, is_time, floor) in figures(current) {
        let Some(&(_, base, _, _)) = base_figures.iter().find(|b| b.0 == metric) else { continue };
        let scale = if is_time { baseline.calibration_ms / current.calibration_ms.max(1e-9) } else { 1.0 };
        let scaled = value * scale;
        let ratio = if base > 0.0 { scaled / base } else { 1.0 };
        let pass = ratio <= 1.0 + ALLOWANCE || scaled - base <= floor;
        let check = MetricCheck { name: metric, current: value, baseline: base, ratio, pass };
        if !pass {
            out.failures.push(check.failure(name));
        }
        out.metrics.push(check);
    }
    Ok(out)
}

/// Why `calibration_ms` is no calibration to bless with, given the other
/// baselines' calibrations (`None`: it is in line with them, or there are
/// fewer than two to judge by).
#[must_use]
pub fn busy_calibration(calibration_ms: f64, others: &[f64]) -> Option<String> {
    if others.len() < 2 {
        return None;
    }
    let mut sorted = others.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    (calibration_ms > median * (1.0 + BLESS_CALIBRATION_SPREAD)).then(|| {
        format!(
            "calibration {calibration_ms:.1} ms is {:.0}% slower than the median of the other {} baselines ({median:.1} ms, \
             allowed {:.0}%): the machine is busy; bless again when it is quiet, or pass --new-machine to bless \
             every scenario on a machine of another speed",
            (calibration_ms / median - 1.0) * 100.0,
            others.len(),
            BLESS_CALIBRATION_SPREAD * 100.0
        )
    })
}

fn open(path: &Path) -> Result<RgbaImage, SmokeError> {
    Ok(image::open(path).map_err(|e| SmokeError::io("read", path, e))?.to_rgba8())
}

/// Oklab of an sRGB8 pixel, x100.
fn oklab(p: Rgba<u8>) -> [f32; 3] {
    let lin = |c: u8| {
        let s = f32::from(c) / 255.0;
        if s <= 0.040_45 { s / 12.92 } else { libm::powf((s + 0.055) / 1.055, 2.4) }
    };
    let (r, g, b) = (lin(p.0[0]), lin(p.0[1]), lin(p.0[2]));
    let l = libm::cbrtf(0.412_221_46 * r + 0.536_332_55 * g + 0.051_445_995 * b);
    let m = libm::cbrtf(0.211_903_5 * r + 0.680_699_5 * g + 0.107_396_96 * b);
    let s = libm::cbrtf(0.088_302_46 * r + 0.281_718_85 * g + 0.629_978_7 * b);
    [
        100.0 * (0.210_454_26 * l + 0.793_617_8 * m - 0.004_072_047 * s),
        100.0 * (1.977_998_5 * l - 2.428_592_2 * m + 0.450_593_7 * s),
        100.0 * (0.025_904_037 * l + 0.782_771_77 * m - 0.808_675_77 * s),
    ]
}

/// The diff image (the current frame dimmed to grey, differing pixels red
/// by how much), the share of differing pixels and the mean difference.
#[must_use]
pub fn difference(now: &RgbaImage, base: &RgbaImage) -> (RgbaImage, f64, f64) {
    let mut diff = RgbaImage::new(now.width(), now.height());
    let (mut changed, mut total) = (0u64, 0f64);
    for (x, y, p) in now.enumerate_pixels() {
        let (a, b) = (oklab(*p), oklab(*base.get_pixel(x, y)));
        let d = {
            let (x, y, z) = (a[0] - b[0], a[1] - b[1], a[2] - b[2]);
            libm::sqrtf(x * x + y * y + z * z)
        };
        total += f64::from(d);
        let grey = (a[0].clamp(0.0, 100.0) * 0.6) as u8;
        let pixel = if d > PIXEL_DELTA {
            changed += 1;
            Rgba([255, (255.0 - (d * 4.0).min(255.0)) as u8 / 3, 0, 255])
        } else {
            Rgba([grey, grey, grey, 255])
        };
        diff.put_pixel(x, y, pixel);
    }
    let n = f64::from(now.width() * now.height()).max(1.0);
    (diff, changed as f64 / n, total / n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::{FrameSample, Percentiles};

    #[test]
    fn differences_count_what_a_person_would_see() {
        let a = RgbaImage::from_pixel(10, 10, Rgba([100, 150, 200, 255]));
        let mut b = a.clone();
        let (_, changed, mean) = difference(&a, &b);
        assert_eq!((changed, mean), (0.0, 0.0));
        // One level of one channel: invisible.
        b.put_pixel(0, 0, Rgba([101, 150, 200, 255]));
        assert_eq!(difference(&a, &b).1, 0.0);
        // A different colour: counted.
        b.put_pixel(1, 1, Rgba([200, 50, 20, 255]));
        let (diff, changed, _) = difference(&a, &b);
        assert!((changed - 0.01).abs() < 1e-12);
        assert_eq!(diff.get_pixel(1, 1).0[0], 255);
    }

    /// A run with the given calibration and every time scaled by `slower`.
    fn run(calibration_ms: f64, slower: f64) -> ScenarioResult {
        let frame = FrameSample {
            t: 0.0,
            engine_ms: 2.0 * slower,
            render_ms: 8.0 * slower,
            apply_ms: 1.0 * slower,
            ready: 1,
            wanted: 1,
        };
        let stage = |ms: f64| Percentiles { p50: ms * slower, p95: ms * slower, p99: ms * slower };
        ScenarioResult {
            name: "tiny".into(),
            calibration_ms,
            frames: vec![frame; 5],
            stages: [("generate", 4.0), ("polygonize", 3.0), ("spherify", 2.0), ("region job", 30.0)]
                .into_iter()
                .map(|(k, ms)| (k.to_string(), stage(ms)))
                .collect(),
            regions_per_s: 20.0 / slower,
            peak_rss_mib: 300.0,
            ..ScenarioResult::default()
        }
    }

    fn failing(current: &ScenarioResult, baseline: &ScenarioResult) -> Vec<String> {
        let dir = Path::new("/nonexistent");
        let out = compare(current, dir, Some(baseline), dir).unwrap();
        assert_eq!(out.metrics.len(), figures(baseline).len());
        out.metrics.iter().filter(|m| !m.pass).map(|m| m.name.clone()).collect()
    }

    #[test]
    fn timings_compare_through_the_calibration() {
        let baseline = run(30.0, 1.0);
        // The same run passes; so does a machine twice as slow at everything.
        assert!(failing(&run(30.0, 1.0), &baseline).is_empty());
        assert!(failing(&run(60.0, 2.0), &baseline).is_empty());
        // Twice as slow on an equally fast machine: every time fails (but
        // settling, which needs keyframes and their images).
        let slow = failing(&run(30.0, 2.0), &baseline);
        assert_eq!(slow.len(), 8, "{slow:?}");
        assert!(slow.contains(&"generate ms p50".to_string()));
        // Within the allowance, or within a figure's noise floor: passes.
        assert!(failing(&run(30.0, 1.2), &baseline).is_empty());
        let mut small = run(30.0, 1.0);
        small.frames[0..3].iter_mut().for_each(|f| f.apply_ms = 1.28);
        assert!(failing(&small, &baseline).is_empty());
        small.frames[0..3].iter_mut().for_each(|f| f.apply_ms = 1.4);
        assert_eq!(failing(&small, &baseline), ["apply ms/frame p50"]);
        // Memory is not scaled by the calibration.
        let mut heavy = run(60.0, 2.0);
        heavy.peak_rss_mib = 600.0;
        assert_eq!(failing(&heavy, &baseline), ["peak resident MiB"]);
    }

    #[test]
    fn a_slow_figure_counts_only_when_a_second_run_confirms_it() {
        let baseline = run(30.0, 1.0);
        let dir = Path::new("/nonexistent");
        let slowed = |generate: f64, memory: f64| {
            let mut r = run(30.0, 1.0);
            r.stages.get_mut("generate").unwrap().p50 = generate;
            r.peak_rss_mib = memory;
            compare(&r, dir, Some(&baseline), dir).unwrap()
        };
        // First run: generate slow and memory high; second: generate slow
        // again, memory back, polygonize slow for the first time.
        let first = slowed(8.0, 600.0);
        assert!(first.slow() && first.failures.len() == 2, "{:?}", first.failures);
        let mut second = slowed(8.0, 300.0);
        second.metrics.iter_mut().find(|m| m.name == "polygonize ms p50").unwrap().pass = false;
        second.failures.push(second.metrics.iter().find(|m| m.name == "polygonize ms p50").unwrap().failure("tiny"));
        second.failures.push("tiny/low: image changed".into());
        let confirmed = second.confirmed_by(&first, "tiny");
        assert!(confirmed.rerun);
        assert_eq!(confirmed.failures.len(), 2, "{:?}", confirmed.failures);
        assert!(confirmed.failures[0].starts_with("tiny: generate ms p50 is 100% worse"), "{:?}", confirmed.failures);
        assert_eq!(confirmed.failures[1], "tiny/low: image changed");
        let failing: Vec<_> = confirmed.metrics.iter().filter(|m| !m.pass).map(|m| m.name.as_str()).collect();
        assert_eq!(failing, ["generate ms p50"]);
        // Both runs within the allowance: nothing to confirm.
        assert!(!slowed(4.0, 300.0).slow());
    }

    #[test]
    fn a_bless_on_a_busy_machine_is_refused() {
        let others = [21.4, 21.6, 20.0, 21.9, 21.3];
        assert_eq!(busy_calibration(21.0, &others), None);
        assert_eq!(busy_calibration(23.9, &others), None, "11% over the median 21.4 is allowed");
        let refusal = busy_calibration(27.8, &others).expect("30% over the median is refused");
        assert!(refusal.contains("27.8 ms") && refusal.contains("21.4 ms") && refusal.contains("--new-machine"));
        // A faster machine is no reason to refuse; too few baselines to judge by neither.
        assert_eq!(busy_calibration(12.0, &others), None);
        assert_eq!(busy_calibration(40.0, &[21.0]), None);
    }
}
