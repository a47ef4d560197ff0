//! The numeric flags of the `planet` binary and the smoke tests, as parsers
//! clap calls (`value_parser = engine::flags::threads`): one definition and
//! one range per flag that several commands share (`--threads`,
//! `--timeout`, `--repeat`, `--fps`, `--index`, `--scale`, `--size`), and
//! messages that give the real allowed range, for negative numbers,
//! fractions and numbers past the type's range too: `invalid value '-1' for
//! '--threads <N>': must be a whole number in 1..=256`. They run before
//! anything else does.

use std::fmt::Display;

/// `--threads`: worker threads, for every command that takes it.
pub fn threads(s: &str) -> Result<usize, String> {
    whole(s, 1, 256)
}

/// `--timeout` (`capture`, `tour`) and `--settle-timeout` (`stream`): seconds.
pub fn timeout(s: &str) -> Result<f64, String> {
    number(s, 0.0, 600.0)
}

/// `--generate-budget-ms` (`survey`): milliseconds.
pub fn budget_ms(s: &str) -> Result<f64, String> {
    number(s, 0.01, 1000.0)
}

/// `--repeat`: runs of a stage or a path.
pub fn repeat(s: &str) -> Result<u32, String> {
    whole(s, 1, 1000)
}

/// `--fps`: frames per second of a flown or streamed path.
pub fn fps(s: &str) -> Result<f64, String> {
    number(s, 1.0, 1000.0)
}

/// `--index`: a slice's sample index (2..=33 are the region's own cells).
pub fn index(s: &str) -> Result<usize, String> {
    whole(s, 0, 35)
}

/// `--scale`: pixels per sample of a slice.
pub fn scale(s: &str) -> Result<u32, String> {
    whole(s, 1, 64)
}

/// `--planet`: a planet's index; the system's own count is checked once it
/// is loaded (`pick::PlanetArgs::load`).
pub fn planet(s: &str) -> Result<u32, String> {
    whole(s, 0, i64::from(planet::recipe::MAX_PLANETS) - 1)
}

/// `--lod`: a level of detail; the planet's own deepest is checked once it
/// is loaded.
pub fn lod(s: &str) -> Result<u8, String> {
    whole(s, 0, 31)
}

/// `--width` of `planet map`, pixels (its height is half).
pub fn map_width(s: &str) -> Result<u32, String> {
    let w: u32 = whole(s, 16, 8192)?;
    if w.is_multiple_of(2) { Ok(w) } else { Err("must be an even number in 16..=8192".to_owned()) }
}

/// `--margin` of `planet path`, metres.
pub fn margin(s: &str) -> Result<f64, String> {
    number(s, 0.0, 100_000.0)
}

/// `--cache-mib` of `planet stream`.
pub fn cache_mib(s: &str) -> Result<usize, String> {
    whole(s, 16, 65536)
}

/// `--split` of `planet stream`, column widths.
pub fn split(s: &str) -> Result<f64, String> {
    number(s, 0.5, 8.0)
}

/// `--look-ahead` of `planet stream`: seconds the region tree looks ahead.
pub fn look_ahead(s: &str) -> Result<f64, String> {
    number(s, 0.0, 10.0)
}

/// `--min-dwell` of `planet stream`: the least time to pass a wanted column, seconds.
pub fn min_dwell(s: &str) -> Result<f64, String> {
    number(s, 0.0, 10.0)
}

/// `--seconds` of `planet fly`: how long to fly before closing.
pub fn seconds(s: &str) -> Result<f64, String> {
    number(s, 0.1, 86_400.0)
}

/// `--time` (`capture`, `fly`, `tour`): the world clock, seconds since the
/// world began (planets stand as generated at 0 and turn from there).
pub fn time(s: &str) -> Result<f64, String> {
    number(s, 0.0, crate::clock::MAX_TIME_S)
}

/// `--time-scale` of `planet fly`: simulated seconds per real second (0: paused).
pub fn time_scale(s: &str) -> Result<f64, String> {
    number(s, 0.0, crate::clock::SCALES[crate::clock::SCALES.len() - 1])
}

/// `--size WxH` (`capture`, `fly`, `tour`): an image's width and height in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size(pub u32, pub u32);

impl std::str::FromStr for Size {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || "must be WIDTHxHEIGHT, each in 16..=8192".to_owned();
        let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
        let side = |t: &str| whole::<u32>(t, 16, 8192).map_err(|_| bad());
        Ok(Size(side(w)?, side(h)?))
    }
}

impl Size {
    /// As (width, height).
    #[must_use]
    pub fn pair(self) -> (u32, u32) {
        (self.0, self.1)
    }
}

/// A whole number in `lo..=hi`, as a `T` that holds that range.
fn whole<T: TryFrom<i64>>(s: &str, lo: i64, hi: i64) -> Result<T, String> {
    let bad = || format!("must be a whole number in {lo}..={hi}");
    let v: i64 = s.trim().parse().map_err(|_| bad())?;
    if !(lo..=hi).contains(&v) {
        return Err(bad());
    }
    T::try_from(v).map_err(|_| bad())
}

/// A finite number in `lo..=hi`.
fn number(s: &str, lo: impl Into<f64> + Display + Copy, hi: impl Into<f64> + Display + Copy) -> Result<f64, String> {
    let bad = || format!("must be a number in {lo}..={hi}");
    let v: f64 = s.trim().parse().map_err(|_| bad())?;
    if !v.is_finite() || v < lo.into() || v > hi.into() {
        return Err(bad());
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_hold_for_negatives_fractions_and_huge_numbers() {
        assert_eq!(threads("4"), Ok(4));
        for bad in ["0", "-1", "257", "1.5", "99999999999999999999", "x", ""] {
            assert_eq!(threads(bad), Err("must be a whole number in 1..=256".to_owned()), "{bad}");
        }
        assert_eq!(timeout("2.5"), Ok(2.5));
        for bad in ["-1", "601", "nan", "inf", "1e400"] {
            assert_eq!(timeout(bad), Err("must be a number in 0..=600".to_owned()), "{bad}");
        }
        assert_eq!(map_width("17"), Err("must be an even number in 16..=8192".to_owned()));
        assert_eq!(planet("15"), Ok(15));
        assert!(planet("16").is_err());
        assert_eq!(lod("-3"), Err("must be a whole number in 0..=31".to_owned()));
        assert_eq!("640x360".parse::<Size>(), Ok(Size(640, 360)));
        for bad in ["640", "8x8", "640x-1", "1e3x100", "x", "640x360x2"] {
            assert!(bad.parse::<Size>().is_err(), "{bad}");
        }
    }
}
