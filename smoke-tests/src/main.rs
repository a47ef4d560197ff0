//! The smoke-test runner (issue 7): streams and renders fixed scenarios,
//! saves screenshots and performance figures, compares them with baselines
//! and writes a report. Not built yet; until then it says so and exits 2.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!("smoke-tests: no scenarios yet; the runner arrives with rendering (issues 6 and 7)");
    ExitCode::from(2)
}
