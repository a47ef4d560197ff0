//! One file per `planet` subcommand.

pub mod signature;
pub mod system;
pub mod validate;
