//! Writing to stdout and stderr without ever panicking (`println!` panics
//! when stdout is a closed pipe or a full disk). Stdout goes through
//! [`out!`] and [`outln!`], which return a [`Failure`] from the command: a
//! closed pipe ends the program quietly with status 141 (what a shell
//! reports for a program killed by SIGPIPE, as `planet inspect DIR | head`
//! expects), any other error (`> /dev/full`) is an error naming stdout.
//! Stderr goes through [`errln!`]: a write that fails there has nowhere to be
//! reported, and is dropped.

use std::fmt;
use std::io::{self, Write};

use crate::failure::Failure;

/// Writes to stdout and flushes, or says why it could not.
pub fn stdout(args: fmt::Arguments<'_>) -> Result<(), Failure> {
    let mut out = io::stdout().lock();
    out.write_fmt(args).and_then(|()| out.flush()).map_err(|e| {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Failure::Closed
        } else {
            Failure::Failed(format!("cannot write to stdout: {e}"))
        }
    })
}

/// Writes to stderr, dropping a failure (there is nowhere left to report it).
pub fn stderr(args: fmt::Arguments<'_>) {
    let mut err = io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.flush());
}

/// `print!` that returns a [`Failure`] from the enclosing function instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::stdout(format_args!($($arg)*))?
    };
}

/// `println!` that returns a [`Failure`] from the enclosing function instead of panicking.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::output::stdout(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

/// `eprint!` that never panics.
macro_rules! err {
    ($($arg:tt)*) => {
        $crate::output::stderr(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics.
macro_rules! errln {
    () => {
        $crate::output::stderr(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::stderr(format_args!("{}\n", format_args!($($arg)*)))
    };
}

pub(crate) use {err, errln, out, outln};
