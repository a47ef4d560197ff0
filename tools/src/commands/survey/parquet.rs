//! `survey.parquet`: the survey's table of figures (the columns of
//! `survey.csv`, numbers at full precision) as one Parquet row group, for
//! pandas, DuckDB or Spark. Seeds are INT64 marked unsigned, counts INT64,
//! figures DOUBLE, text UTF-8; no compression, and no time or path in it,
//! so the same figures give the same bytes.

use std::sync::Arc;

use parquet::basic::{ConvertedType, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;

use super::table::{Column, Values};
use crate::failure::Failure;

/// The file's name in a report.
pub const PARQUET: &str = "survey.parquet";

fn failed(e: impl std::fmt::Display) -> Failure {
    Failure::Failed(format!("cannot make {PARQUET}: {e}"))
}

/// The schema field of one column.
fn field(c: &Column) -> Result<Arc<Type>, Failure> {
    let (physical, converted, logical) = match c.values {
        Values::Unsigned(_) => (Physical::INT64, ConvertedType::UINT_64, None),
        Values::Int(_) => (Physical::INT64, ConvertedType::NONE, None),
        Values::Float(..) => (Physical::DOUBLE, ConvertedType::NONE, None),
        Values::Text(_) => (Physical::BYTE_ARRAY, ConvertedType::UTF8, Some(LogicalType::String)),
    };
    let t = Type::primitive_type_builder(&c.name, physical)
        .with_repetition(Repetition::REQUIRED)
        .with_converted_type(converted)
        .with_logical_type(logical)
        .build()
        .map_err(failed)?;
    Ok(Arc::new(t))
}

/// `columns` as the bytes of a Parquet file.
pub fn bytes(columns: &[Column]) -> Result<Vec<u8>, Failure> {
    let fields = columns.iter().map(field).collect::<Result<Vec<_>, _>>()?;
    let schema = Type::group_type_builder("survey").with_fields(fields).build().map_err(failed)?;
    let props = WriterProperties::builder().set_created_by("planet survey".into()).build();
    let mut writer = SerializedFileWriter::new(Vec::new(), Arc::new(schema), Arc::new(props)).map_err(failed)?;
    let mut group = writer.next_row_group().map_err(failed)?;
    for c in columns {
        let Some(mut w) = group.next_column().map_err(failed)? else {
            return Err(failed("the schema has fewer columns than the table"));
        };
        match &c.values {
            Values::Unsigned(v) => {
                let v: Vec<i64> = v.iter().map(|&x| x.cast_signed()).collect();
                w.typed::<Int64Type>().write_batch(&v, None, None)
            }
            Values::Int(v) => w.typed::<Int64Type>().write_batch(v, None, None),
            Values::Float(v, _) => w.typed::<DoubleType>().write_batch(v, None, None),
            Values::Text(v) => {
                let v: Vec<ByteArray> = v.iter().map(|s| ByteArray::from(s.as_str())).collect();
                w.typed::<ByteArrayType>().write_batch(&v, None, None)
            }
        }
        .map_err(failed)?;
        w.close().map_err(failed)?;
    }
    group.close().map_err(failed)?;
    writer.into_inner().map_err(failed)
}

#[cfg(test)]
mod tests {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    use parquet::record::RowAccessor;

    use super::*;

    #[test]
    fn a_table_reads_back_column_for_column() {
        let columns = vec![
            Column { name: "system".into(), values: Values::Unsigned(vec![3, u64::MAX]) },
            Column { name: "planet".into(), values: Values::Int(vec![0, 7]) },
            Column { name: "land_share".into(), values: Values::Float(vec![0.125, 1.0 / 3.0], 4) },
            Column { name: "elev_-500_-200".into(), values: Values::Float(vec![0.5, 0.25], 4) },
            Column { name: "name".into(), values: Values::Text(vec!["Voruon".into(), "a, \"b\"".into()]) },
        ];
        let file = bytes(&columns).unwrap();
        assert_eq!(file, bytes(&columns).unwrap(), "the same table, the same bytes");
        let path = std::env::temp_dir().join(format!("planet-parquet-test-{}.parquet", std::process::id()));
        std::fs::write(&path, &file).unwrap();
        let reader = SerializedFileReader::new(std::fs::File::open(&path).unwrap()).unwrap();
        let _ = std::fs::remove_file(&path);
        let fields: Vec<String> =
            reader.metadata().file_metadata().schema().get_fields().iter().map(|f| f.name().to_owned()).collect();
        assert_eq!(fields, ["system", "planet", "land_share", "elev_-500_-200", "name"]);
        let rows: Vec<_> = reader.get_row_iter(None).unwrap().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].get_ulong(0).unwrap(), u64::MAX);
        assert_eq!(rows[1].get_long(1).unwrap(), 7);
        assert_eq!(rows[1].get_double(2).unwrap(), 1.0 / 3.0);
        assert_eq!(rows[1].get_string(4).unwrap(), "a, \"b\"");
    }
}
