//! The `call` table, generated while a query reads it.
//!
//! A session's calls are held once, in the model's event columns (12–20
//! bytes per event). The table is not a second copy: each scan walks the
//! events with [`CallCursor`] and builds batches of only the columns the
//! query asks for, so the engine's memory for `call` is a batch per
//! partition whatever the number of calls.

use crate::schema::table;
use crate::tables::Source;
use async_trait::async_trait;
use datafusion::arrow::array::{ArrayRef, BooleanBuilder, Int32Builder, Int64Builder, StringBuilder};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::{RecordBatch, RecordBatchOptions};
use datafusion::catalog::{Session as PlannerSession, TableProvider};
use datafusion::datasource::TableType;
use datafusion::error::Result;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::streaming::{PartitionStream, StreamingTableExec};
use datafusion::physical_plan::ExecutionPlan;
use std::fmt;
use std::sync::Arc;
use tracekit_analysis::call_rows::{CallCursor, CallRow};
use tracekit_model::ThreadId;

/// The `call` table over sessions held in memory.
pub struct CallTable {
    sessions: Vec<Arc<Source>>,
    schema: SchemaRef,
}

impl fmt::Debug for CallTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CallTable({} sessions)", self.sessions.len())
    }
}

impl CallTable {
    /// The table over these sessions.
    pub fn new(sessions: Vec<Arc<Source>>) -> CallTable {
        CallTable {
            sessions,
            schema: table("call").expect("call is in the schema").schema(),
        }
    }
}

#[async_trait]
impl TableProvider for CallTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn PlannerSession,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let columns: Vec<usize> = projection
            .cloned()
            .unwrap_or_else(|| (0..self.schema.fields().len()).collect());
        let schema = Arc::new(self.schema.project(&columns)?);
        let config = state.config();
        let parts = partitions(&self.sessions, config.target_partitions().max(1));
        let batch_rows = config.batch_size().max(1);
        let streams: Vec<Arc<dyn PartitionStream>> = parts
            .into_iter()
            .map(|threads| {
                Arc::new(CallPartition {
                    threads,
                    columns: columns.clone(),
                    schema: schema.clone(),
                    batch_rows,
                }) as Arc<dyn PartitionStream>
            })
            .collect();
        Ok(Arc::new(StreamingTableExec::try_new(
            schema,
            streams,
            None,
            Vec::new(),
            false,
            limit,
        )?))
    }
}

/// A thread of a session: what a partition walks.
type ThreadOf = (Arc<Source>, ThreadId);

/// Spreads the threads of every session over `n` partitions, largest first,
/// each to the partition with the fewest events so far.
fn partitions(sessions: &[Arc<Source>], n: usize) -> Vec<Vec<ThreadOf>> {
    let mut work: Vec<(usize, Arc<Source>, ThreadId)> = Vec::new();
    for s in sessions {
        let Some(trace) = s.trace() else { continue };
        for (id, _, calls) in trace.session.thread_calls() {
            if !calls.is_empty() {
                work.push((calls.len(), s.clone(), id));
            }
        }
    }
    work.sort_by_key(|w| std::cmp::Reverse(w.0));
    let n = n.min(work.len()).max(1);
    let mut parts: Vec<(usize, Vec<ThreadOf>)> = (0..n).map(|_| (0, Vec::new())).collect();
    for (len, s, id) in work {
        let p = parts.iter_mut().min_by_key(|p| p.0).expect("at least one partition");
        p.0 += len;
        p.1.push((s, id));
    }
    parts.into_iter().map(|p| p.1).collect()
}

struct CallPartition {
    threads: Vec<ThreadOf>,
    columns: Vec<usize>,
    schema: SchemaRef,
    batch_rows: usize,
}

impl fmt::Debug for CallPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CallPartition({} threads)", self.threads.len())
    }
}

impl PartitionStream for CallPartition {
    fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    fn execute(&self, _ctx: Arc<TaskContext>) -> SendableRecordBatchStream {
        let batches = CallBatches {
            threads: self.threads.clone(),
            next: 0,
            cursor: None,
            columns: self.columns.clone(),
            schema: self.schema.clone(),
            batch_rows: self.batch_rows,
        };
        Box::pin(RecordBatchStreamAdapter::new(
            self.schema.clone(),
            futures::stream::iter(batches),
        ))
    }
}

/// One partition's batches, made as they are asked for.
struct CallBatches {
    threads: Vec<ThreadOf>,
    next: usize,
    cursor: Option<CallCursor>,
    columns: Vec<usize>,
    schema: SchemaRef,
    batch_rows: usize,
}

impl Iterator for CallBatches {
    type Item = Result<RecordBatch>;

    fn next(&mut self) -> Option<Result<RecordBatch>> {
        let mut builders: Vec<ColumnBuilder> = self
            .columns
            .iter()
            .map(|&c| ColumnBuilder::new(c, self.batch_rows))
            .collect();
        let mut rows = 0usize;
        while rows < self.batch_rows && self.next < self.threads.len() {
            let (source, thread) = &self.threads[self.next];
            let trace = source.trace().expect("only traces have call partitions");
            let calls = trace.session.calls(*thread);
            let cursor = self
                .cursor
                .get_or_insert_with(|| CallCursor::new(trace.session.methods.len()));
            let more = cursor.advance(calls, self.batch_rows - rows, &mut |r| {
                rows += 1;
                for b in &mut builders {
                    b.push(r, thread.0, &trace.id);
                }
            });
            if !more {
                self.cursor = None;
                self.next += 1;
            }
        }
        if rows == 0 {
            return None;
        }
        let arrays: Vec<ArrayRef> = builders.iter_mut().map(ColumnBuilder::finish).collect();
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        Some(RecordBatch::try_new_with_options(self.schema.clone(), arrays, &options).map_err(Into::into))
    }
}

/// A builder for one column of `call`, by its index in the schema.
enum ColumnBuilder {
    Long(usize, Int64Builder),
    Int(usize, Int32Builder),
    Bool(BooleanBuilder),
    Session(StringBuilder),
}

impl ColumnBuilder {
    fn new(column: usize, rows: usize) -> ColumnBuilder {
        match column {
            7 | 9 | 10 => ColumnBuilder::Int(column, Int32Builder::with_capacity(rows)),
            11 => ColumnBuilder::Bool(BooleanBuilder::with_capacity(rows)),
            12 => ColumnBuilder::Session(StringBuilder::new()),
            _ => ColumnBuilder::Long(column, Int64Builder::with_capacity(rows)),
        }
    }

    #[inline]
    fn push(&mut self, r: &CallRow, thread: u32, session: &str) {
        match self {
            ColumnBuilder::Long(c, b) => {
                let v = match c {
                    0 => Some(r.id),
                    1 => Some(r.ts),
                    2 => Some(r.dur),
                    3 => r.thread_ts,
                    4 => r.thread_dur,
                    5 => Some(r.self_dur),
                    6 => r.thread_self_dur,
                    _ => r.parent,
                };
                b.append_option(v.map(|v| v as i64));
            }
            ColumnBuilder::Int(c, b) => b.append_value(match c {
                7 => r.depth as i32,
                9 => r.method.0 as i32,
                _ => thread as i32,
            }),
            ColumnBuilder::Bool(b) => b.append_value(r.outermost),
            ColumnBuilder::Session(b) => b.append_value(session),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            ColumnBuilder::Long(_, b) => Arc::new(b.finish()),
            ColumnBuilder::Int(_, b) => Arc::new(b.finish()),
            ColumnBuilder::Bool(b) => Arc::new(b.finish()),
            ColumnBuilder::Session(b) => Arc::new(b.finish()),
        }
    }
}

/// Every batch of a session's `call` table, all columns, for writing (the
/// Parquet dataset); `with_session` false leaves out the trailing column.
pub fn call_batches(
    source: Arc<Source>,
    with_session: bool,
    batch_rows: usize,
) -> impl Iterator<Item = Result<RecordBatch>> {
    let full = table("call").expect("call is in the schema");
    let schema = if with_session {
        full.schema()
    } else {
        full.file_schema()
    };
    let columns: Vec<usize> = (0..schema.fields().len()).collect();
    let threads = match source.trace() {
        Some(t) => t
            .session
            .thread_calls()
            .filter(|(_, _, c)| !c.is_empty())
            .map(|(id, _, _)| (source.clone(), id))
            .collect(),
        None => Vec::new(),
    };
    CallBatches {
        threads,
        next: 0,
        cursor: None,
        columns,
        schema,
        batch_rows,
    }
}
