//! The survey's tables, as named columns a planet a row: `survey.csv` (and
//! `survey.parquet`, `parquet.rs`) with every figure and its flags, and
//! `timings.csv`, what was measured beside them. CSV as RFC 4180 has it (a
//! heading row, fields quoted where they hold a comma, quote or line
//! break), numbers with fixed decimals, so a table is the same bytes
//! wherever the same figures were made.

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

/// One column's values, a planet each.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Whole numbers that may pass `i64` (seeds).
    Unsigned(Vec<u64>),
    /// Whole numbers.
    Int(Vec<i64>),
    /// Numbers, written in CSV with this many decimals.
    Float(Vec<f64>, usize),
    /// Text.
    Text(Vec<String>),
}

/// A named column of a table.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// Its heading.
    pub name: String,
    /// Its values.
    pub values: Values,
}

impl Column {
    fn new(name: impl Into<String>, values: Values) -> Self {
        Self { name: name.into(), values }
    }

    fn cell(&self, row: usize) -> String {
        match &self.values {
            Values::Unsigned(v) => v[row].to_string(),
            Values::Int(v) => v[row].to_string(),
            Values::Float(v, decimals) => format!("{:.*}", decimals, v[row]),
            Values::Text(v) => field(&v[row]),
        }
    }
}

fn ints<T>(rows: &[T], of: impl Fn(&T) -> usize) -> Values {
    Values::Int(rows.iter().map(|r| of(r) as i64).collect())
}

fn floats<T>(rows: &[T], decimals: usize, of: impl Fn(&T) -> f64) -> Values {
    Values::Float(rows.iter().map(of).collect(), decimals)
}

fn texts<T>(rows: &[T], of: impl Fn(&T) -> String) -> Values {
    Values::Text(rows.iter().map(of).collect())
}

/// The columns of `survey.csv` and `survey.parquet`.
#[must_use]
pub fn figure_columns(f: &[PlanetFigures]) -> Vec<Column> {
    let mut c = vec![
        Column::new("system", Values::Unsigned(f.iter().map(|f| f.id.system).collect())),
        Column::new("planet", ints(f, |f| f.id.planet as usize)),
        Column::new("name", texts(f, |f| f.name.clone())),
        Column::new("kind", texts(f, |f| f.kind.clone())),
        Column::new("signature", texts(f, |f| f.signature.clone())),
        Column::new("radius_m", floats(f, 0, |f| f.radius_m)),
        Column::new("land_share", floats(f, 4, |f| f.land_share)),
        Column::new("sea_share", floats(f, 4, |f| f.sea_share)),
        Column::new("elev_p5_m", floats(f, 1, |f| f.elevation_p5_p95_m[0])),
        Column::new("elev_p95_m", floats(f, 1, |f| f.elevation_p5_p95_m[1])),
    ];
    for (i, name) in elevation_columns().into_iter().enumerate() {
        c.push(Column::new(name, floats(f, 4, |f| f.elevation[i])));
    }
    c.extend([
        Column::new("top_biome", texts(f, |f| f.biomes.first().map(|b| b.0.clone()).unwrap_or_default())),
        Column::new("top_biome_share", floats(f, 4, PlanetFigures::top_biome_share)),
        Column::new("biome_count", ints(f, |f| f.biomes.len())),
        Column::new(
            "biomes",
            texts(f, |f| f.biomes.iter().map(|(n, s)| format!("{n}:{s:.4}")).collect::<Vec<_>>().join(";")),
        ),
        Column::new("cave_share", floats(f, 4, |f| f.cave_share)),
        Column::new("rivers", ints(f, |f| f.rivers)),
        Column::new("river_km", floats(f, 2, |f| f.river_km)),
        Column::new("lakes", ints(f, |f| f.lakes)),
        Column::new("stamps", ints(f, |f| f.stamps)),
        Column::new("plots", ints(f, |f| f.plots)),
        Column::new("settlements", ints(f, |f| f.settlements)),
        Column::new("scatter_per_region", floats(f, 2, |f| f.scatter_per_region)),
        Column::new("triangles_per_region", floats(f, 1, |f| f.triangles_per_region)),
        Column::new("empty_region_share", floats(f, 4, |f| f.empty_region_share)),
        Column::new("flags", texts(f, |f| flags_text(&f.flags))),
    ]);
    c
}

/// The columns of `timings.csv`.
#[must_use]
pub fn timing_columns(t: &[PlanetTimings]) -> Vec<Column> {
    vec![
        Column::new("system", Values::Unsigned(t.iter().map(|t| t.id.system).collect())),
        Column::new("planet", ints(t, |t| t.id.planet as usize)),
        Column::new("plan_ms", floats(t, 1, |t| t.plan_ms)),
        Column::new("region_ms_p50", floats(t, 3, |t| t.region_ms[0])),
        Column::new("region_ms_p95", floats(t, 3, |t| t.region_ms[1])),
        Column::new("generate_ms_p50", floats(t, 3, |t| t.generate_ms)),
        Column::new("figures_s", floats(t, 3, |t| t.figures_s)),
        Column::new("views_s", floats(t, 3, |t| t.views_s)),
        Column::new("unsettled", texts(t, |t| t.unsettled.join(";"))),
        Column::new("flags", texts(t, |t| flags_text(&t.flags))),
    ]
}

/// The rows in a column.
fn rows(column: &Column) -> usize {
    match &column.values {
        Values::Unsigned(v) => v.len(),
        Values::Int(v) => v.len(),
        Values::Float(v, _) => v.len(),
        Values::Text(v) => v.len(),
    }
}

/// `columns` as CSV: a heading row, then a row a planet.
#[must_use]
pub fn csv(columns: &[Column]) -> String {
    let names: Vec<String> = columns.iter().map(|c| field(&c.name)).collect();
    let mut out = names.join(",") + "\n";
    for row in 0..columns.first().map_or(0, rows) {
        let cells: Vec<String> = columns.iter().map(|c| c.cell(row)).collect();
        let _ = writeln!(out, "{}", cells.join(","));
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
