//! The report: `report.json` (every figure, comparison and failure) and
//! `report.html`, a page a person reads at a glance: per scenario, each
//! keyframe's screenshot beside its baseline and the difference, the figures
//! against the baseline with the failing ones in red, and SVG plots of the
//! frame times and streaming along the path (the baseline's dashed).

use crate::error::SmokeError;
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::compare::Comparison;
use crate::run::{FrameSample, ScenarioResult};

/// One scenario in the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScenarioReport {
    /// What was measured.
    pub result: ScenarioResult,
    /// Against the baseline.
    pub comparison: Comparison,
    /// The baseline, if there was one.
    pub baseline: Option<ScenarioResult>,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Whether every scenario passed.
    pub passed: bool,
    /// One line per failure.
    pub failures: Vec<String>,
    /// Whether the baselines were rewritten in this run.
    pub blessed: bool,
    /// Per scenario.
    pub scenarios: Vec<ScenarioReport>,
}

/// Writes `report.json` and `report.html` into `dir` (screenshots are in
/// `dir/<scenario>/`, baselines copied beside them as `*.baseline.png`).
pub fn write(report: &Report, dir: &Path) -> Result<(), SmokeError> {
    let json = serde_json::to_string_pretty(report).map_err(|e| SmokeError::invalid(&dir.join("report.json"), e))?;
    let write = |name: &str, text: &str| crate::write_file(&dir.join(name), text.as_bytes());
    write("report.json", &json)?;
    write("report.html", &html(report))
}

fn html(report: &Report) -> String {
    let mut h = String::new();
    let status = if report.blessed {
        "<p class=ok>Baselines rewritten (--bless).</p>".to_string()
    } else if report.passed {
        "<p class=ok>All scenarios match their baselines.</p>".to_string()
    } else {
        let mut s = String::from("<p class=bad>Regressions:</p><ul>");
        for f in &report.failures {
            let _ = write!(s, "<li class=bad>{}</li>", escape(f));
        }
        s + "</ul>"
    };
    let _ = write!(
        h,
        "<!doctype html><html><head><meta charset=utf-8><title>Smoke tests</title><style>\
         body{{font-family:sans-serif;margin:1.5em;background:#fafafa}} table{{border-collapse:collapse}}\
         td,th{{padding:3px 8px;border-bottom:1px solid #ddd;text-align:right}} th{{text-align:left}}\
         .bad{{color:#c00;font-weight:bold}} .ok{{color:#070}} img{{image-rendering:pixelated;border:1px solid #ccc}}\
         .shots td{{text-align:center;vertical-align:top}} h2{{margin-top:2em}}</style></head><body>\
         <h1>Smoke tests</h1>{status}"
    );
    for s in &report.scenarios {
        scenario_html(&mut h, s);
    }
    h.push_str("</body></html>\n");
    h
}

fn scenario_html(h: &mut String, s: &ScenarioReport) {
    let r = &s.result;
    let _ = write!(
        h,
        "<h2>{}</h2><p>{} · backend <code>{}</code> · {:.1} s · {} regions built ({:.0}/s) · peak {:.0} MiB · calibration {:.1} ms</p>",
        escape(&r.name),
        escape(&r.device),
        escape(&r.backend),
        r.wall_s,
        r.regions_built,
        r.regions_per_s,
        r.peak_rss_mib,
        r.calibration_ms
    );
    if !s.comparison.has_baseline {
        h.push_str("<p>No baseline for this backend yet: run with <code>--bless</code> to record one.</p>");
    }
    h.push_str("<table class=shots><tr><th>keyframe</th><th>now</th><th>baseline</th><th>difference</th></tr>");
    for k in &r.keyframes {
        let check = s.comparison.images.iter().find(|c| c.keyframe == k.name);
        let base = if check.is_some_and(|c| c.has_baseline) {
            format!("<img src=\"{0}/{1}.baseline.png\">", r.name, k.name)
        } else {
            "none".into()
        };
        let diff = match check {
            Some(c) if c.has_baseline => format!(
                "<img src=\"{0}/{1}.diff.png\"><br><span class={2}>{3:.2}% changed, mean {4:.2}</span>",
                r.name,
                k.name,
                if c.pass { "ok" } else { "bad" },
                c.changed * 100.0,
                c.mean_delta
            ),
            _ => String::new(),
        };
        let _ = write!(
            h,
            "<tr><th>{0}<br><small>settle {1:.2} s{2}<br>{3} draws, {4} triangles</small></th>\
             <td><img src=\"{5}/{6}\"></td><td>{7}</td><td>{8}</td></tr>",
            escape(&k.name),
            k.settle_s,
            if k.settled { "" } else { " (timed out)" },
            k.draws,
            k.triangles,
            r.name,
            k.image,
            base,
            diff
        );
    }
    h.push_str("</table>");
    h.push_str("<h3>Figures</h3>");
    if s.comparison.rerun {
        h.push_str("<p>Measured twice: a figure of the first run was over the allowance. These are the second run's; a figure fails only if it failed in both.</p>");
    }
    h.push_str("<table><tr><th>figure</th><th>now</th><th>baseline</th><th>ratio (calibrated)</th></tr>");
    if s.comparison.metrics.is_empty() {
        for (name, value, _, _) in crate::compare::figures(r) {
            let _ = write!(h, "<tr><th>{}</th><td>{value:.3}</td><td></td><td></td></tr>", escape(&name));
        }
    }
    for m in &s.comparison.metrics {
        let class = if m.pass { "" } else { " class=bad" };
        let _ = write!(
            h,
            "<tr{class}><th>{}</th><td>{:.3}</td><td>{:.3}</td><td>{:.2}</td></tr>",
            escape(&m.name),
            m.current,
            m.baseline,
            m.ratio
        );
    }
    h.push_str("</table><table><tr><th>stage</th><th>p50 ms</th><th>p95 ms</th><th>p99 ms</th></tr>");
    for (stage, p) in &r.stages {
        let _ = write!(
            h,
            "<tr><th>{}</th><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td></tr>",
            escape(stage),
            p.p50,
            p.p95,
            p.p99
        );
    }
    h.push_str("</table><h3>Along the path</h3>");
    let base = s.baseline.as_ref().map(|b| b.frames.as_slice());
    h.push_str(&plot("engine CPU ms per frame", &r.frames, base, |f| f.engine_ms));
    h.push_str(&plot("render CPU ms per frame", &r.frames, base, |f| f.render_ms));
    h.push_str(&plot("apply ms per frame", &r.frames, base, |f| f.apply_ms));
    h.push_str(&plot("regions ready", &r.frames, base, |f| f.ready as f64));
}

/// An SVG line plot of one figure along the path; the baseline dashed.
fn plot(
    title: &str,
    frames: &[FrameSample],
    base: Option<&[FrameSample]>,
    pick: impl Fn(&FrameSample) -> f64,
) -> String {
    let (w, h) = (560.0, 140.0);
    let all = frames.iter().chain(base.unwrap_or(&[]));
    let t_max = all.clone().map(|f| f.t).fold(1e-9, f64::max);
    let y_max = all.map(&pick).fold(1e-9, f64::max);
    let line = |fs: &[FrameSample]| {
        fs.iter()
            .map(|f| format!("{:.1},{:.1}", 40.0 + f.t / t_max * (w - 50.0), h - 20.0 - pick(f) / y_max * (h - 35.0)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (base_y, right, title) = (h - 20.0, w - 10.0, escape(title));
    let mut svg = format!(
        "<figure><svg width=\"{w}\" height=\"{h}\" xmlns=\"http://www.w3.org/2000/svg\" style=\"background:#fff\">\
         <text x=\"40\" y=\"12\" font-size=\"11\">{title} (max {y_max:.2}; path {t_max:.0} s)</text>\
         <line x1=\"40\" y1=\"{base_y}\" x2=\"{right}\" y2=\"{base_y}\" stroke=\"#999\"/>\
         <line x1=\"40\" y1=\"15\" x2=\"40\" y2=\"{base_y}\" stroke=\"#999\"/>"
    );
    if let Some(b) = base {
        let _ =
            write!(svg, "<polyline fill=\"none\" stroke=\"#888\" stroke-dasharray=\"4 3\" points=\"{}\"/>", line(b));
    }
    let _ = write!(svg, "<polyline fill=\"none\" stroke=\"#06c\" points=\"{}\"/></svg></figure>", line(frames));
    svg
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
