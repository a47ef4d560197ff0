//! What a stage is: the [`RegionStage`] trait a stage's file implements
//! (its name, inputs, run function and dump layout), the type-erased row
//! ([`StageDef`]) the table holds, and [`StageOutput`], one stage's output
//! whatever its type.
//!
//! A stage is written against its own output type; [`StageDef::of`] turns it
//! into a row of plain function pointers, so the table, the runner, dumps
//! and replays handle every stage alike and a new stage touches none of them.

use std::any::{Any, TypeId};
use std::fmt;

use super::chain::{Chain, RegionInput};
use crate::RegionKey;
use crate::dump::{DumpError, Field, Section, binary, diff};

/// A stage's output type: plain data that can be cloned, compared bit for
/// bit and sent between threads. One line per type (`impl StageValue for T {}`).
pub trait StageValue: Clone + PartialEq + fmt::Debug + Send + Sync + 'static {}

/// One stage of the region pipeline, written against its own output type.
/// Binary stages give their sections and layouts and take the default
/// `encode`, `decode` and `difference`; JSON stages override those three.
pub trait RegionStage: 'static {
    /// What the stage makes.
    type Output: StageValue;
    /// Its name in manifests, files and on the command line (`cube_mesh`).
    const NAME: &'static str;
    /// The Rust type of its output (`CubeMesh`).
    const TYPE_NAME: &'static str;
    /// The stages (by name) and other inputs it reads, for messages and docs.
    const INPUTS: &'static [&'static str];
    /// Whether its dump is hand-editable JSON rather than binary.
    const JSON: bool = false;
    /// Whether it runs once per region (`false`: once per planet, as the plans).
    const PER_REGION: bool = true;

    /// Runs the stage on the outputs of the stages before it. What it can
    /// refuse (a key or planet its inputs do not have) is an error, never a panic.
    fn run(input: &RegionInput<'_>, chain: &Chain) -> Result<Self::Output, DumpError>;

    /// The region its output belongs to (plans have none).
    fn key(_out: &Self::Output) -> Option<RegionKey> {
        None
    }

    /// The binary sections of an output.
    fn sections(_out: &Self::Output) -> Vec<Section> {
        Vec::new()
    }

    /// The sections a file must hold, in order, with the layouts each may have.
    fn layout() -> Vec<(String, &'static [&'static [Field]])> {
        Vec::new()
    }

    /// The output from a file's checked sections, with the checks layouts cannot make.
    fn read(_key: RegionKey, _sections: &[Section]) -> Result<Self::Output, DumpError> {
        Err(DumpError::new(format!("{}: has no binary layout", Self::NAME)))
    }

    /// Problems in an output that would make the next stages refuse it or go
    /// wrong (ids outside the palette, an origin not its mesh's), as messages.
    fn check(_out: &Self::Output, _chain: &Chain, _input: &RegionInput<'_>) -> Vec<String> {
        Vec::new()
    }

    /// One or two lines saying what an output holds, for `planet inspect`.
    fn summary(out: &Self::Output) -> String {
        let sections = Self::sections(out);
        let parts: Vec<String> = sections.iter().map(|s| format!("{} {}", s.name, s.count())).collect();
        parts.join(", ")
    }

    /// The file's bytes; `generator_version` is recorded in binary headers.
    fn encode(out: &Self::Output, generator_version: u32) -> Vec<u8> {
        binary::encode(Self::NAME, Self::key(out), &Self::sections(out), generator_version)
    }

    /// Reads a stage file. Errors name the field at fault, not the file.
    fn decode(bytes: &[u8]) -> Result<Self::Output, DumpError> {
        let (_, key, sections) = binary::decode(Self::NAME, &Self::layout(), bytes)?;
        Self::read(key, &sections)
    }

    /// Where two outputs first differ, named down to the element and field.
    fn difference(a: &Self::Output, b: &Self::Output) -> Option<String> {
        diff::sections_difference(Self::key(a), &Self::sections(a), Self::key(b), &Self::sections(b))
    }
}

/// A stage's output behind a type-erased box (see [`StageValue`]).
trait StageData: Any + fmt::Debug + Send + Sync {
    fn clone_box(&self) -> Box<dyn StageData>;
    fn eq_data(&self, other: &dyn StageData) -> bool;
    fn as_any(&self) -> &dyn Any;
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
}

impl<T: StageValue> StageData for T {
    fn clone_box(&self) -> Box<dyn StageData> {
        Box::new(self.clone())
    }

    fn eq_data(&self, other: &dyn StageData) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

/// A stage's output as a row makes it (by running or by reading a file).
type Made = Result<Box<dyn StageData>, DumpError>;

/// One row of the stage table: a [`RegionStage`] as function pointers.
pub struct StageDef {
    /// `RegionStage::NAME`.
    pub name: &'static str,
    /// `RegionStage::TYPE_NAME`.
    pub type_name: &'static str,
    /// `RegionStage::INPUTS`.
    pub inputs: &'static [&'static str],
    /// `RegionStage::JSON`.
    pub json: bool,
    /// `RegionStage::PER_REGION`.
    pub per_region: bool,
    output_type: fn() -> TypeId,
    run: fn(&RegionInput<'_>, &Chain) -> Made,
    key: fn(&dyn StageData) -> Option<RegionKey>,
    check: fn(&dyn StageData, &Chain, &RegionInput<'_>) -> Vec<String>,
    summary: fn(&dyn StageData) -> String,
    encode: fn(&dyn StageData, u32) -> Vec<u8>,
    decode: fn(&[u8]) -> Made,
    difference: fn(&dyn StageData, &dyn StageData) -> Option<String>,
}

/// A stage: a row of the table. Stages compare by name.
pub type Stage = &'static StageDef;

/// The output of stage `S` inside a box that row `S` made.
fn typed<S: RegionStage>(data: &dyn StageData) -> &S::Output {
    data.as_any().downcast_ref::<S::Output>().unwrap_or_else(|| {
        // A `StageOutput` holds its own stage's type: `run`, `decode` and `new` make sure of it.
        unreachable!("stage {} was handed another stage's output", S::NAME)
    })
}

impl StageDef {
    /// The row of stage `S`.
    #[must_use]
    pub const fn of<S: RegionStage>() -> Self {
        Self {
            name: S::NAME,
            type_name: S::TYPE_NAME,
            inputs: S::INPUTS,
            json: S::JSON,
            per_region: S::PER_REGION,
            output_type: TypeId::of::<S::Output>,
            run: |input, chain| S::run(input, chain).map(|o| Box::new(o) as Box<dyn StageData>),
            key: |d| S::key(typed::<S>(d)),
            check: |d, chain, input| S::check(typed::<S>(d), chain, input),
            summary: |d| S::summary(typed::<S>(d)),
            encode: |d, version| S::encode(typed::<S>(d), version),
            decode: |bytes| S::decode(bytes).map(|o| Box::new(o) as Box<dyn StageData>),
            difference: |a, b| S::difference(typed::<S>(a), typed::<S>(b)),
        }
    }

    /// The file its output is dumped to (`cube_mesh.bin`, `planet_plan.json`).
    #[must_use]
    pub fn file(&self) -> String {
        format!("{}.{}", self.name, if self.json { "json" } else { "bin" })
    }

    /// Its inputs, comma separated, for messages.
    #[must_use]
    pub fn inputs_text(&self) -> String {
        self.inputs.join(", ")
    }

    /// Runs the stage on the outputs before it.
    pub fn run(&'static self, input: &RegionInput<'_>, chain: &Chain) -> Result<StageOutput, DumpError> {
        (self.run)(input, chain).map(|data| StageOutput { stage: self, data })
    }
}

impl PartialEq for StageDef {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for StageDef {}

impl fmt::Debug for StageDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Stage({})", self.name)
    }
}

impl fmt::Display for StageDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// One stage's output, whatever its type. Equal is bit for bit where
/// [`StageOutput::difference`] finds no difference.
#[derive(Debug)]
pub struct StageOutput {
    stage: Stage,
    data: Box<dyn StageData>,
}

impl StageOutput {
    /// `value` as the output of `stage`, or `None` when it is not that stage's type.
    #[must_use]
    pub fn new<T: StageValue>(stage: Stage, value: T) -> Option<Self> {
        (TypeId::of::<T>() == (stage.output_type)()).then(|| Self { stage, data: Box::new(value) })
    }

    /// The stage that made it.
    #[must_use]
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// The output as its type, if it is a `T`.
    #[must_use]
    pub fn get<T: StageValue>(&self) -> Option<&T> {
        self.data.as_any().downcast_ref::<T>()
    }

    /// The output as its type, or itself back when it is not a `T`.
    pub fn into_value<T: StageValue>(self) -> Result<T, Self> {
        if self.get::<T>().is_none() {
            return Err(self);
        }
        Ok(*self.data.into_any().downcast::<T>().unwrap_or_else(|_| unreachable!("checked above")))
    }

    /// The region it belongs to (plans have none).
    #[must_use]
    pub fn key(&self) -> Option<RegionKey> {
        (self.stage.key)(self.data.as_ref())
    }

    /// The file's bytes: pretty JSON for plans, the binary format for the rest.
    #[must_use]
    pub fn encode(&self, generator_version: u32) -> Vec<u8> {
        (self.stage.encode)(self.data.as_ref(), generator_version)
    }

    /// Reads `stage`'s file. Errors name the field at fault, not the file.
    pub fn decode(stage: Stage, bytes: &[u8]) -> Result<Self, DumpError> {
        (stage.decode)(bytes).map(|data| Self { stage, data })
    }

    /// What it holds, in a line or two.
    #[must_use]
    pub fn summary(&self) -> String {
        (self.stage.summary)(self.data.as_ref())
    }

    /// Problems that would make the stages after it refuse it (see [`RegionStage::check`]).
    #[must_use]
    pub fn check(&self, chain: &Chain, input: &RegionInput<'_>) -> Vec<String> {
        (self.stage.check)(self.data.as_ref(), chain, input)
    }

    /// Where `self` (dumped) and `other` (replayed) first differ, or `None`
    /// when they are equal (floats by their bits: NaN equals NaN, -0 differs from 0).
    #[must_use]
    pub fn difference(&self, other: &Self) -> Option<String> {
        if self.stage != other.stage {
            return Some(format!("dumped a {}, replayed a {}", self.stage, other.stage));
        }
        (self.stage.difference)(self.data.as_ref(), other.data.as_ref())
    }
}

impl Clone for StageOutput {
    fn clone(&self) -> Self {
        Self { stage: self.stage, data: self.data.clone_box() }
    }
}

impl PartialEq for StageOutput {
    fn eq(&self, other: &Self) -> bool {
        self.stage == other.stage && self.data.eq_data(other.data.as_ref())
    }
}
