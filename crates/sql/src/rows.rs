//! Building a table's Arrow batch row by row, checked against the schema.

use crate::schema::{Kind, Table};
use datafusion::arrow::array::{ArrayRef, BooleanBuilder, Float64Builder, Int32Builder, Int64Builder, StringBuilder};
use datafusion::arrow::record_batch::RecordBatch;
use std::sync::Arc;

/// One cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    /// NULL.
    Null,
    /// An `INT`.
    Int(i32),
    /// A `BIGINT`.
    Long(i64),
    /// A `DOUBLE`.
    Double(f64),
    /// A `STRING`.
    Text(&'a str),
    /// A `BOOLEAN`.
    Bool(bool),
}

impl<'a, T: Into<Value<'a>>> From<Option<T>> for Value<'a> {
    fn from(v: Option<T>) -> Value<'a> {
        v.map_or(Value::Null, Into::into)
    }
}

impl From<i32> for Value<'_> {
    fn from(v: i32) -> Self {
        Value::Int(v)
    }
}

impl From<u32> for Value<'_> {
    /// Ids and pids past `i32::MAX` keep their bits.
    fn from(v: u32) -> Self {
        Value::Int(v as i32)
    }
}

impl From<i64> for Value<'_> {
    fn from(v: i64) -> Self {
        Value::Long(v)
    }
}

impl From<u64> for Value<'_> {
    /// Times and counts past `i64::MAX` keep their bits.
    fn from(v: u64) -> Self {
        Value::Long(v as i64)
    }
}

impl From<f64> for Value<'_> {
    fn from(v: f64) -> Self {
        Value::Double(v)
    }
}

impl From<bool> for Value<'_> {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

impl<'a> From<&'a str> for Value<'a> {
    fn from(v: &'a str) -> Self {
        Value::Text(v)
    }
}

impl<'a> From<&'a String> for Value<'a> {
    fn from(v: &'a String) -> Self {
        Value::Text(v)
    }
}

enum Builder {
    Int(Int32Builder),
    Long(Int64Builder),
    Double(Float64Builder),
    Text(StringBuilder),
    Bool(BooleanBuilder),
}

impl Builder {
    fn new(kind: Kind) -> Builder {
        match kind {
            Kind::Int => Builder::Int(Int32Builder::new()),
            Kind::Long => Builder::Long(Int64Builder::new()),
            Kind::Double => Builder::Double(Float64Builder::new()),
            Kind::Text => Builder::Text(StringBuilder::new()),
            Kind::Bool => Builder::Bool(BooleanBuilder::new()),
        }
    }

    fn push(&mut self, v: &Value<'_>) {
        match (self, v) {
            (Builder::Int(b), Value::Int(x)) => b.append_value(*x),
            (Builder::Long(b), Value::Long(x)) => b.append_value(*x),
            (Builder::Long(b), Value::Int(x)) => b.append_value(*x as i64),
            (Builder::Double(b), Value::Double(x)) => b.append_value(*x),
            (Builder::Text(b), Value::Text(x)) => b.append_value(x),
            (Builder::Bool(b), Value::Bool(x)) => b.append_value(*x),
            (Builder::Int(b), Value::Null) => b.append_null(),
            (Builder::Long(b), Value::Null) => b.append_null(),
            (Builder::Double(b), Value::Null) => b.append_null(),
            (Builder::Text(b), Value::Null) => b.append_null(),
            (Builder::Bool(b), Value::Null) => b.append_null(),
            (_, v) => panic!("a {v:?} in a column of another type"),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Int(b) => Arc::new(b.finish()),
            Builder::Long(b) => Arc::new(b.finish()),
            Builder::Double(b) => Arc::new(b.finish()),
            Builder::Text(b) => Arc::new(b.finish()),
            Builder::Bool(b) => Arc::new(b.finish()),
        }
    }
}

/// A batch of one table for one session, filled a row at a time (every
/// column but the trailing `session`, which [`Rows::finish`] adds).
pub struct Rows {
    table: &'static Table,
    builders: Vec<Builder>,
    len: usize,
}

impl Rows {
    /// An empty batch of `table`.
    pub fn new(table: &'static Table) -> Rows {
        let n = table.columns.len() - 1;
        Rows {
            table,
            builders: table.columns[..n].iter().map(|c| Builder::new(c.kind)).collect(),
            len: 0,
        }
    }

    /// Appends a row: one value per column, `session` left out.
    ///
    /// # Panics
    /// On a wrong number of values or a value of another type than its
    /// column's: both are bugs in the table's builder, caught by its tests.
    pub fn push(&mut self, row: &[Value<'_>]) {
        assert_eq!(row.len(), self.builders.len(), "row of table {}", self.table.name);
        for (b, v) in self.builders.iter_mut().zip(row) {
            b.push(v);
        }
        self.len += 1;
    }

    /// The batch, with `session` = `session_id` in every row; `with_session`
    /// false leaves the column out (a Parquet file of one session).
    pub fn finish(mut self, session_id: &str, with_session: bool) -> RecordBatch {
        let mut arrays: Vec<ArrayRef> = self.builders.iter_mut().map(Builder::finish).collect();
        let schema = if with_session {
            let mut s = StringBuilder::with_capacity(self.len, self.len * session_id.len());
            for _ in 0..self.len {
                s.append_value(session_id);
            }
            arrays.push(Arc::new(s.finish()));
            self.table.schema()
        } else {
            self.table.file_schema()
        };
        RecordBatch::try_new(schema, arrays).expect("columns built from the table's own schema")
    }
}
