//! The survey's contact sheet, `index.html`: one self-contained page with
//! the plots of every figure (outliers named under each, linked to their
//! rows) and a table of every planet, its thumbnails beside its figures.
//! Flagged planets come first, marked red; a click on a column's heading
//! sorts the table by it (a little script; without it the page still reads
//! in its first order).

use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

use engine::survey::{PlanetFigures, PlanetTimings};

use super::manifest::Settings;
use super::plots::{Plotted, escape, number};
use super::shard::thumb;
use super::table::flags_text;
use crate::failure::Failure;

/// The contact sheet's file name.
pub const SHEET: &str = "index.html";

const STYLE: &str = "body{font-family:sans-serif;margin:16px;background:#f4f4f4;color:#222}
h1{font-size:20px}.plots{display:flex;flex-wrap:wrap;gap:8px}
figure{margin:0;background:#fff;padding:4px;border:1px solid #ddd;width:288px}figure img{width:288px}
figcaption{font-size:11px;color:#a00;min-height:14px}table{border-collapse:collapse;background:#fff;font-size:12px}
th,td{border:1px solid #ddd;padding:3px 5px;text-align:right;vertical-align:middle}
th{background:#eee;cursor:pointer;position:sticky;top:0}td.t{text-align:left}
tr.flagged td{background:#fde8e8}.flags{color:#b00;font-weight:bold}img.thumb{display:block;width:160px}
td.pics{display:flex;gap:2px}";

const SCRIPT: &str = "const t=document.getElementById('planets'),b=t.tBodies[0];let key=-1,dir=1;
function sort(k,keep){if(!keep)dir=(k===key)?-dir:1;key=k;const first=document.getElementById('flaggedfirst').checked;
const rows=[...b.rows];rows.sort((x,y)=>{if(first){const f=y.classList.contains('flagged')-x.classList.contains('flagged');if(f)return f;}
const a=x.cells[k].dataset.v,c=y.cells[k].dataset.v;const n=parseFloat(a),m=parseFloat(c);
const r=(isNaN(n)||isNaN(m))?a.localeCompare(c):n-m;return r*dir||x.dataset.i-y.dataset.i;});rows.forEach(r=>b.appendChild(r));}
t.tHead.querySelectorAll('th').forEach((h,i)=>{if(h.dataset.sort)h.onclick=()=>sort(i,false);});
document.getElementById('flaggedfirst').onchange=()=>sort(key<0?1:key,key>=0);";

/// One column of the table: its heading, and each planet's shown text and sort value.
struct Column {
    heading: &'static str,
    text: bool,
    of: fn(&PlanetFigures, &PlanetTimings) -> (String, String),
}

fn num(v: f64) -> (String, String) {
    (number(v), format!("{v}"))
}

const COLUMNS: [Column; 19] = [
    Column {
        heading: "planet",
        text: true,
        of: |f, _| (f.id.to_string(), format!("{:020}{:04}", f.id.system, f.id.planet)),
    },
    Column { heading: "name", text: true, of: |f, _| (f.name.clone(), f.name.clone()) },
    Column { heading: "kind", text: true, of: |f, _| (f.kind.clone(), f.kind.clone()) },
    Column {
        heading: "flags",
        text: true,
        of: |f, t| {
            let all = [flags_text(&f.flags), flags_text(&t.flags)]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(";");
            (all.clone(), format!("{:02}{all}", 99 - all.split(';').filter(|s| !s.is_empty()).count()))
        },
    },
    Column { heading: "land", text: false, of: |f, _| num(f.land_share) },
    Column { heading: "sea", text: false, of: |f, _| num(f.sea_share) },
    Column { heading: "relief m", text: false, of: |f, _| num(f.elevation_p5_p95_m[1] - f.elevation_p5_p95_m[0]) },
    Column {
        heading: "top biome",
        text: true,
        of: |f, _| {
            let top = f.biomes.first().map(|b| format!("{} {:.0}%", b.0, b.1 * 100.0)).unwrap_or_default();
            (top, format!("{}", f.top_biome_share()))
        },
    },
    Column { heading: "biomes", text: false, of: |f, _| num(f.biomes.len() as f64) },
    Column { heading: "caves", text: false, of: |f, _| num(f.cave_share) },
    Column { heading: "rivers", text: false, of: |f, _| num(f.rivers as f64) },
    Column { heading: "river km", text: false, of: |f, _| num(f.river_km) },
    Column { heading: "lakes", text: false, of: |f, _| num(f.lakes as f64) },
    Column { heading: "plots", text: false, of: |f, _| num(f.plots as f64) },
    Column { heading: "towns", text: false, of: |f, _| num(f.settlements as f64) },
    Column { heading: "scatter/region", text: false, of: |f, _| num(f.scatter_per_region) },
    Column { heading: "tris/region", text: false, of: |f, _| num(f.triangles_per_region) },
    Column {
        heading: "region ms p50/p95",
        text: false,
        of: |_, t| (format!("{} / {}", number(t.region_ms[0]), number(t.region_ms[1])), format!("{}", t.region_ms[0])),
    },
    Column { heading: "generate ms", text: false, of: |_, t| num(t.generate_ms) },
];

/// Writes `index.html` into `out`.
pub fn write(
    out: &Path,
    settings: &Settings,
    figures: &[PlanetFigures],
    timings: &[PlanetTimings],
    plotted: &[Plotted],
    thumbs: &BTreeSet<String>,
) -> Result<(), Failure> {
    let flagged = |i: usize| !figures[i].flags.is_empty() || !timings[i].flags.is_empty();
    let count = (0..figures.len()).filter(|&i| flagged(i)).count();
    let mut html = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    let _ = writeln!(html, "<title>Survey of {} planets</title>\n<style>{STYLE}</style></head><body>", figures.len());
    let _ = writeln!(
        html,
        "<h1>Survey of {} planets (systems {}{}), {count} flagged</h1>",
        figures.len(),
        escape(&settings.systems),
        settings.template_name.as_ref().map(|n| format!(", from {}", escape(n))).unwrap_or_default()
    );
    let cpu_s: f64 = timings.iter().map(|t| t.figures_s + t.views_s).sum();
    let _ = writeln!(
        html,
        "<p>Pictures: {}. Generator version {}. Figures and pictures took {:.0} s of thread time in all \
         ({:.2} s a planet). Flags: no-land, no-sea, one-biome, flat, empty-regions, hole:VIEW, unsettled:VIEW, \
         slow-generate (generate median over {} ms).</p>",
        match settings.size {
            Some((w, h)) if !settings.views.is_empty() => format!("{} at {w}x{h}", settings.views.join(", ")),
            _ => "none".to_owned(),
        },
        settings.generator_version,
        cpu_s,
        cpu_s / figures.len().max(1) as f64,
        settings.generate_budget_ms
    );
    html.push_str(
        "<p>Tables: <a href=\"survey.csv\">survey.csv</a>, <a href=\"survey.parquet\">survey.parquet</a>, \
         <a href=\"timings.csv\">timings.csv</a> (measured), <a href=\"manifest.json\">manifest.json</a>.</p>\n",
    );
    plots_section(&mut html, plotted);
    table_section(&mut html, settings, figures, timings, thumbs, flagged);
    let _ = writeln!(html, "<script>{SCRIPT}</script>\n</body></html>");
    crate::save::replace(&out.join(SHEET), &html)
}

fn plots_section(html: &mut String, plotted: &[Plotted]) {
    html.push_str("<h2>Distributions</h2><div class=\"plots\">\n");
    for p in plotted {
        let named: Vec<String> =
            p.outliers.iter().take(12).map(|(id, v)| format!("<a href=\"#{id}\">{id}</a> {}", number(*v))).collect();
        let more = if p.outliers.len() > 12 { format!(" and {} more", p.outliers.len() - 12) } else { String::new() };
        let _ = writeln!(
            html,
            "<figure><img src=\"{}\" alt=\"{}\"><figcaption>{}{more}</figcaption></figure>",
            p.file,
            escape(&p.title),
            named.join(", ")
        );
    }
    html.push_str("</div>\n");
}

fn table_section(
    html: &mut String,
    settings: &Settings,
    figures: &[PlanetFigures],
    timings: &[PlanetTimings],
    thumbs: &BTreeSet<String>,
    flagged: impl Fn(usize) -> bool,
) {
    html.push_str(
        "<h2>Planets</h2><p><label><input type=\"checkbox\" id=\"flaggedfirst\" checked> flagged first</label> \
         (click a heading to sort)</p>\n<table id=\"planets\"><thead><tr><th>pictures</th>",
    );
    for c in &COLUMNS {
        let _ = write!(html, "<th data-sort=\"1\">{}</th>", c.heading);
    }
    html.push_str("</tr></thead><tbody>\n");
    // Flagged planets first, each group in survey order.
    let order = (0..figures.len()).filter(|&i| flagged(i)).chain((0..figures.len()).filter(|&i| !flagged(i)));
    for i in order {
        let (f, t) = (&figures[i], &timings[i]);
        let class = if flagged(i) { " class=\"flagged\"" } else { "" };
        let _ = write!(html, "<tr id=\"{}\" data-i=\"{i}\"{class}><td class=\"pics\" data-v=\"\">", f.id);
        // A planet whose pictures crashed may lack some.
        for (v, file) in settings.views.iter().map(|v| (v, thumb(f.id, v))).filter(|(_, t)| thumbs.contains(t)) {
            let _ = write!(html, "<img class=\"thumb\" loading=\"lazy\" src=\"{file}\" alt=\"{} {v}\">", f.id);
        }
        html.push_str("</td>");
        for c in &COLUMNS {
            let (shown, value) = (c.of)(f, t);
            let class = match (c.text, c.heading) {
                (_, "flags") => " class=\"t flags\"",
                (true, _) => " class=\"t\"",
                _ => "",
            };
            let _ = write!(html, "<td{class} data-v=\"{}\">{}</td>", escape(&value), escape(&shown));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody></table>\n");
}
