//! One SVG plot per figure of a survey: a histogram of its values over the
//! planets with a rug of every value under it, the median marked, and the
//! outliers (beyond Tukey's fences, 1.5 interquartile ranges past the
//! quartiles) drawn red, so a person sees at a glance which planets stand
//! apart. Plots of figures are the same bytes for the same figures; plots
//! of measured times are marked as measured.

use std::fmt::Write;
use std::path::Path;

use engine::survey::{PlanetFigures, PlanetTimings, SurveyPlanet};

use crate::failure::Failure;

/// The plots' folder in a report.
pub const PLOTS: &str = "plots";

const WIDTH: f64 = 360.0;
const HEIGHT: f64 = 170.0;
const BINS: usize = 24;
const LEFT: f64 = 10.0;
const PLOT_W: f64 = WIDTH - 2.0 * LEFT;
const BARS_TOP: f64 = 28.0;
const BARS_H: f64 = 90.0;
const RUG_Y: f64 = BARS_TOP + BARS_H + 6.0;

/// One written plot.
#[derive(Clone, Debug)]
pub struct Plotted {
    /// Path in the report, `plots/NAME.svg`.
    pub file: String,
    /// What it shows.
    pub title: String,
    /// Whether it plots measured times (not the same from run to run).
    pub measured: bool,
    /// The planets beyond the fences, with their values.
    pub outliers: Vec<(SurveyPlanet, f64)>,
}

type FigureOf = fn(&PlanetFigures) -> f64;
type TimeOf = fn(&PlanetTimings) -> f64;

const FIGURES: [(&str, &str, FigureOf); 15] = [
    ("land_share", "land share", |f| f.land_share),
    ("sea_share", "sea share", |f| f.sea_share),
    ("relief_m", "relief, p5 to p95 (m)", |f| f.elevation_p5_p95_m[1] - f.elevation_p5_p95_m[0]),
    ("top_biome_share", "largest biome's share of the land", PlanetFigures::top_biome_share),
    ("biome_count", "biomes", |f| f.biomes.len() as f64),
    ("cave_share", "cave share of the ground", |f| f.cave_share),
    ("rivers", "rivers", |f| f.rivers as f64),
    ("river_km", "river length (km)", |f| f.river_km),
    ("lakes", "lakes", |f| f.lakes as f64),
    ("stamps", "mountain stamps", |f| f.stamps as f64),
    ("plots", "buildable plots", |f| f.plots as f64),
    ("settlements", "settlements", |f| f.settlements as f64),
    ("scatter_per_region", "scatter per surface region", |f| f.scatter_per_region),
    ("triangles_per_region", "triangles per surface region", |f| f.triangles_per_region),
    ("radius_m", "radius (m)", |f| f.radius_m),
];

const TIMES: [(&str, &str, TimeOf); 5] = [
    ("plan_ms", "plan and settlements (ms, measured)", |t| t.plan_ms),
    ("region_ms_p50", "region build, median (ms, measured)", |t| t.region_ms[0]),
    ("region_ms_p95", "region build, p95 (ms, measured)", |t| t.region_ms[1]),
    ("generate_ms_p50", "generate stages, median (ms, measured)", |t| t.generate_ms),
    ("views_s", "pictures (s, measured)", |t| t.views_s),
];

/// Writes every plot into `dir` (made here).
pub fn write(dir: &Path, figures: &[PlanetFigures], timings: &[PlanetTimings]) -> Result<Vec<Plotted>, Failure> {
    std::fs::create_dir_all(dir).map_err(|e| Failure::Failed(format!("cannot write {}: {e}", dir.display())))?;
    let mut out = Vec::new();
    let mut plot = |name: &str, title: &str, measured: bool, values: Vec<(SurveyPlanet, f64)>| {
        let file = format!("{PLOTS}/{name}.svg");
        let (svg, outliers) = histogram(title, &values);
        crate::save::replace(&dir.join(format!("{name}.svg")), &svg)?;
        out.push(Plotted { file, title: title.to_owned(), measured, outliers });
        Ok::<(), Failure>(())
    };
    for (name, title, of) in FIGURES {
        plot(name, title, false, figures.iter().map(|f| (f.id, of(f))).collect())?;
    }
    for (name, title, of) in TIMES {
        plot(name, title, true, timings.iter().map(|t| (t.id, of(t))).collect())?;
    }
    Ok(out)
}

/// The first and third quartiles and the median of sorted `v` (nearest rank).
fn quartiles(v: &[f64]) -> [f64; 3] {
    let at = |q: f64| v[((q * (v.len() - 1) as f64).round() as usize).min(v.len() - 1)];
    [at(0.25), at(0.5), at(0.75)]
}

/// The SVG of one figure's histogram, and its outliers.
fn histogram(title: &str, values: &[(SurveyPlanet, f64)]) -> (String, Vec<(SurveyPlanet, f64)>) {
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
    );
    let mut sorted: Vec<f64> = values.iter().map(|v| v.1).filter(|v| v.is_finite()).collect();
    sorted.sort_by(f64::total_cmp);
    if sorted.is_empty() {
        let _ = writeln!(svg, "<text x=\"{LEFT}\" y=\"16\">{} (no planets)</text>\n</svg>", escape(title));
        return (svg, Vec::new());
    }
    let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
    let [q1, median, q3] = quartiles(&sorted);
    let fences = [q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)];
    let outliers: Vec<(SurveyPlanet, f64)> =
        values.iter().filter(|(_, v)| *v < fences[0] || *v > fences[1]).copied().collect();
    let span = if hi > lo { hi - lo } else { 1.0 };
    let x = |v: f64| LEFT + (v - lo) / span * PLOT_W;
    let mut counts = [0u32; BINS];
    for v in &sorted {
        counts[(((v - lo) / span * BINS as f64) as usize).min(BINS - 1)] += 1;
    }
    let most = f64::from(counts.iter().copied().max().unwrap_or(1).max(1));
    let _ = writeln!(
        svg,
        "<text x=\"{LEFT}\" y=\"16\">{} — {} planets, {} outliers</text>",
        escape(title),
        sorted.len(),
        outliers.len()
    );
    let bar_w = PLOT_W / BINS as f64;
    for (i, c) in counts.iter().enumerate() {
        let h = f64::from(*c) / most * BARS_H;
        let _ = writeln!(
            svg,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"#5b7fa6\"/>",
            LEFT + i as f64 * bar_w + 0.5,
            BARS_TOP + BARS_H - h,
            bar_w - 1.0
        );
    }
    let _ = writeln!(
        svg,
        "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{BARS_TOP}\" y2=\"{1:.1}\" stroke=\"#222\" stroke-dasharray=\"3,2\"/>",
        x(median),
        BARS_TOP + BARS_H
    );
    for (_, v) in values {
        let colour = if *v < fences[0] || *v > fences[1] { "#d62728" } else { "#888" };
        let _ = writeln!(
            svg,
            "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{RUG_Y}\" y2=\"{1}\" stroke=\"{colour}\"/>",
            x(*v),
            RUG_Y + 10.0
        );
    }
    let label_y = RUG_Y + 26.0;
    let _ = writeln!(svg, "<text x=\"{LEFT}\" y=\"{label_y}\">{}</text>", number(lo));
    let _ = writeln!(
        svg,
        "<text x=\"{:.1}\" y=\"{label_y}\" text-anchor=\"middle\">median {}</text>",
        WIDTH / 2.0,
        number(median)
    );
    let _ = writeln!(svg, "<text x=\"{:.1}\" y=\"{label_y}\" text-anchor=\"end\">{}</text>", WIDTH - LEFT, number(hi));
    svg.push_str("</svg>\n");
    (svg, outliers)
}

/// A value in a few significant digits.
#[must_use]
pub fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else if v.abs() < 0.01 {
        format!("{v:.4}")
    } else if v.abs() < 10.0 {
        format!("{v:.3}")
    } else if v.abs() < 1000.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

/// Text safe inside HTML and SVG.
#[must_use]
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_planet_far_from_the_rest_is_the_outlier() {
        let id = |planet| SurveyPlanet { system: 1, planet };
        let mut values: Vec<(SurveyPlanet, f64)> = (0..20).map(|i| (id(i), 0.5 + f64::from(i % 5) * 0.01)).collect();
        values.push((id(99), 0.0));
        let (svg, outliers) = histogram("land share", &values);
        assert_eq!(outliers, vec![(id(99), 0.0)]);
        assert!(svg.contains("21 planets, 1 outliers") && svg.ends_with("</svg>\n"));
        let (same, none) = histogram("one value", &[(id(0), 3.0), (id(1), 3.0)]);
        assert!(none.is_empty() && same.contains("2 planets"));
        assert!(histogram("x", &[]).0.contains("no planets"));
    }
}
