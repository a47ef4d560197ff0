//! The survey's tables as CSV (RFC 4180: a header row, fields quoted where
//! they hold a comma, quote or line break): `survey.csv`, a planet a row
//! with every figure and its flags, and `timings.csv`, what was measured
//! beside them. Numbers are written with fixed decimals, so a table is the
//! same bytes wherever the same figures were made.

use std::fmt::Write;

use engine::survey::{ELEVATION_EDGES_M, Flag, PlanetFigures, PlanetTimings};

/// The elevation histogram's column names: `elev_lt_-500`, `elev_-500_-200`, ... `elev_ge_500`.
#[must_use]
pub fn elevation_columns() -> Vec<String> {
    let e = ELEVATION_EDGES_M;
    let mut out = vec![format!("elev_lt_{}", e[0])];
    out.extend(e.windows(2).map(|w| format!("elev_{}_{}", w[0], w[1])));
    out.push(format!("elev_ge_{}", e[e.len() - 1]));
    out
}

/// A field quoted where CSV needs it.
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_owned() }
}

/// Flags as one field: `no-land;hole:ground`.
#[must_use]
pub fn flags_text(flags: &[Flag]) -> String {
    flags.iter().map(Flag::name).collect::<Vec<_>>().join(";")
}

/// `survey.csv`.
#[must_use]
pub fn figures_csv(figures: &[PlanetFigures]) -> String {
    let mut header: Vec<String> = [
        "system",
        "planet",
        "name",
        "kind",
        "signature",
        "radius_m",
        "land_share",
        "sea_share",
        "elev_p5_m",
        "elev_p95_m",
    ]
    .map(String::from)
    .to_vec();
    header.extend(elevation_columns());
    header.extend(
        [
            "top_biome",
            "top_biome_share",
            "biome_count",
            "biomes",
            "cave_share",
            "rivers",
            "river_km",
            "lakes",
            "stamps",
            "plots",
            "settlements",
            "scatter_per_region",
            "triangles_per_region",
            "empty_region_share",
            "flags",
        ]
        .map(String::from),
    );
    let mut out = header.join(",") + "\n";
    for f in figures {
        let mut row = vec![
            f.id.system.to_string(),
            f.id.planet.to_string(),
            field(&f.name),
            field(&f.kind),
            f.signature.clone(),
            format!("{:.0}", f.radius_m),
            format!("{:.4}", f.land_share),
            format!("{:.4}", f.sea_share),
            format!("{:.1}", f.elevation_p5_p95_m[0]),
            format!("{:.1}", f.elevation_p5_p95_m[1]),
        ];
        row.extend(f.elevation.iter().map(|s| format!("{s:.4}")));
        let biomes: Vec<String> = f.biomes.iter().map(|(n, s)| format!("{n}:{s:.4}")).collect();
        row.extend([
            field(f.biomes.first().map_or("", |b| b.0.as_str())),
            format!("{:.4}", f.top_biome_share()),
            f.biomes.len().to_string(),
            field(&biomes.join(";")),
            format!("{:.4}", f.cave_share),
            f.rivers.to_string(),
            format!("{:.2}", f.river_km),
            f.lakes.to_string(),
            f.stamps.to_string(),
            f.plots.to_string(),
            f.settlements.to_string(),
            format!("{:.2}", f.scatter_per_region),
            format!("{:.1}", f.triangles_per_region),
            format!("{:.4}", f.empty_region_share),
            field(&flags_text(&f.flags)),
        ]);
        let _ = writeln!(out, "{}", row.join(","));
    }
    out
}

/// `timings.csv`.
#[must_use]
pub fn timings_csv(timings: &[PlanetTimings]) -> String {
    let mut out = String::from(
        "system,planet,plan_ms,region_ms_p50,region_ms_p95,generate_ms_p50,figures_s,views_s,unsettled,flags\n",
    );
    for t in timings {
        let _ = writeln!(
            out,
            "{},{},{:.1},{:.3},{:.3},{:.3},{:.3},{:.3},{},{}",
            t.id.system,
            t.id.planet,
            t.plan_ms,
            t.region_ms[0],
            t.region_ms[1],
            t.generate_ms,
            t.figures_s,
            t.views_s,
            field(&t.unsettled.join(";")),
            field(&flags_text(&t.flags)),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_only_where_csv_needs_it() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(elevation_columns().len(), ELEVATION_EDGES_M.len() + 1);
    }
}
