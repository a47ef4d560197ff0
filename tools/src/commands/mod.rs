//! One file per `planet` subcommand.

pub mod capture;
pub mod creatures;
pub mod dump;
pub mod edit;
pub mod fly;
pub mod inspect;
pub mod map;
pub mod mesh;
pub mod nearest;
pub mod path;
pub mod plan;
pub mod region;
pub mod replay;
pub mod scatter;
pub mod settlements;
pub mod signature;
pub mod slice;
pub mod stream;
pub mod survey;
pub mod system;
pub mod tour;
pub mod validate;
