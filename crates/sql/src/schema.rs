//! The relational schema: every table tracekit's SQL answers from, its
//! columns, their types and units. This list is the one definition: the
//! Arrow schemas, the Parquet files and the guide's table reference (held
//! to it by a test) all come from it.
//!
//! Conventions:
//! - every table ends with `session`, the session's id (text), so the
//!   tables of many sessions pool by `UNION ALL` and a Parquet dataset is
//!   partitioned by it;
//! - ids (`thread`, `method`, `call`, `track`) count from 0 *within a
//!   session*: join on the id **and** `session`;
//! - times are integer nanoseconds on the session's timeline (`ts`, `dur`),
//!   thread-CPU times are `thread_ts`/`thread_dur`;
//! - only signed integers, doubles, booleans and text, so every engine
//!   (DataFusion, Spark, DuckDB) reads the same values.

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use std::sync::Arc;

/// A column's type, in the few kinds every engine shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// 32-bit signed integer (`INT`).
    Int,
    /// 64-bit signed integer (`BIGINT`).
    Long,
    /// 64-bit float (`DOUBLE`).
    Double,
    /// Text (`STRING`/`VARCHAR`).
    Text,
    /// `BOOLEAN`.
    Bool,
}

impl Kind {
    /// The Arrow type.
    pub fn arrow(self) -> DataType {
        match self {
            Kind::Int => DataType::Int32,
            Kind::Long => DataType::Int64,
            Kind::Double => DataType::Float64,
            Kind::Text => DataType::Utf8,
            Kind::Bool => DataType::Boolean,
        }
    }

    /// The SQL name the guide shows.
    pub fn sql(self) -> &'static str {
        match self {
            Kind::Int => "INT",
            Kind::Long => "BIGINT",
            Kind::Double => "DOUBLE",
            Kind::Text => "STRING",
            Kind::Bool => "BOOLEAN",
        }
    }
}

/// One column.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    /// Name.
    pub name: &'static str,
    /// Type.
    pub kind: Kind,
    /// May be NULL.
    pub nullable: bool,
    /// Unit (`ns`, `J`, …) when the column has one.
    pub unit: Option<&'static str>,
    /// What it holds.
    pub doc: &'static str,
}

/// One table.
#[derive(Debug, Clone, Copy)]
pub struct Table {
    /// Name.
    pub name: &'static str,
    /// The area it belongs to (the guide's page).
    pub area: Area,
    /// What a row is.
    pub doc: &'static str,
    /// Columns, `session` last.
    pub columns: &'static [Column],
}

/// The guide's pages of tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// session, property, process, thread, method.
    Session,
    /// call.
    Call,
    /// Counters and context.
    Counter,
    /// Markers, objects, cross-process calls, scheduling, async slices.
    Events,
    /// Emulator runs.
    Emu,
    /// Path profiles.
    Paths,
}

impl Area {
    /// The guide page (under `docs/guide/src/sql/`) documenting the area.
    pub fn page(self) -> &'static str {
        match self {
            Area::Session => "session.md",
            Area::Call => "call.md",
            Area::Counter => "counter.md",
            Area::Events => "events.md",
            Area::Emu => "emu.md",
            Area::Paths => "paths.md",
        }
    }
}

const fn col(name: &'static str, kind: Kind, doc: &'static str) -> Column {
    Column {
        name,
        kind,
        nullable: false,
        unit: None,
        doc,
    }
}

const fn opt(name: &'static str, kind: Kind, doc: &'static str) -> Column {
    Column {
        name,
        kind,
        nullable: true,
        unit: None,
        doc,
    }
}

const fn ns(name: &'static str, doc: &'static str) -> Column {
    Column {
        name,
        kind: Kind::Long,
        nullable: false,
        unit: Some("ns"),
        doc,
    }
}

const fn opt_ns(name: &'static str, doc: &'static str) -> Column {
    Column {
        name,
        kind: Kind::Long,
        nullable: true,
        unit: Some("ns"),
        doc,
    }
}

const fn with_unit(mut c: Column, unit: &'static str) -> Column {
    c.unit = Some(unit);
    c
}

/// The `session` column every table ends with.
pub const SESSION: Column = col("session", Kind::Text, "the session's id (see `session`)");

const THREAD: Column = col("thread", Kind::Int, "the thread (`thread.id`)");
const OPT_THREAD: Column = opt("thread", Kind::Int, "the thread (`thread.id`), when known");

/// Every table of the schema.
pub const TABLES: &[Table] = &[
    Table {
        name: "session",
        area: Area::Session,
        doc: "One row per session (one trace, recording, emulator run or path log).",
        columns: &[
            col("name", Kind::Text, "the session's name (usually the input's base name)"),
            col("source", Kind::Text, "the input it was read from"),
            col("format", Kind::Text, "the input's format"),
            col(
                "clocks",
                Kind::Text,
                "`wall`, `thread-cpu` or `dual`: the clocks call times are on",
            ),
            opt_ns("anchor_unix_ns", "wall-clock time of timestamp 0, since the Unix epoch"),
            opt_ns("duration", "duration the source states"),
            ns(
                "horizon",
                "end of the timeline: one past the last call, marker or context record",
            ),
            col("lost_events", Kind::Long, "events the recorder lost (buffers full)"),
            SESSION,
        ],
    },
    Table {
        name: "property",
        area: Area::Session,
        doc: "The source's `key=value` properties, in order.",
        columns: &[
            col("key", Kind::Text, "the key"),
            col("value", Kind::Text, "the value"),
            SESSION,
        ],
    },
    Table {
        name: "process",
        area: Area::Session,
        doc: "Operating-system processes.",
        columns: &[
            col("pid", Kind::Int, "process id"),
            col("name", Kind::Text, "name or command"),
            SESSION,
        ],
    },
    Table {
        name: "thread",
        area: Area::Session,
        doc: "Threads of execution.",
        columns: &[
            col(
                "id",
                Kind::Int,
                "the thread's id in this session (what `call.thread` refers to)",
            ),
            col("tid", Kind::Int, "the id the OS or VM gave it"),
            opt("pid", Kind::Int, "its process, when known"),
            col("name", Kind::Text, "its name (may be empty)"),
            SESSION,
        ],
    },
    Table {
        name: "method",
        area: Area::Session,
        doc: "Methods and functions.",
        columns: &[
            col(
                "id",
                Kind::Int,
                "the method's id in this session (what `call.method` refers to)",
            ),
            col(
                "class",
                Kind::Text,
                "class (Java-style `a/b/C`), or empty for native functions",
            ),
            col("name", Kind::Text, "method or function name"),
            col("signature", Kind::Text, "signature (may be empty)"),
            col("qualified", Kind::Text, "`Class.name`, or the function's name"),
            opt("source_file", Kind::Text, "source file, when known"),
            opt("line", Kind::Int, "line, when known"),
            opt("module", Kind::Text, "shared object or module, when known"),
            opt("address", Kind::Long, "address, when known"),
            SESSION,
        ],
    },
    Table {
        name: "call",
        area: Area::Call,
        doc: "Every call (a method's invocation on a thread), from the stack walk the profile uses.",
        columns: &[
            col(
                "id",
                Kind::Long,
                "the call's number in its thread, in order of start (from 0)",
            ),
            ns("ts", "start on the session timeline"),
            ns("dur", "inclusive duration"),
            opt_ns("thread_ts", "thread-CPU time at the start (NULL without that clock)"),
            opt_ns("thread_dur", "inclusive thread-CPU time"),
            ns("self_dur", "time not spent in callees (Traceview's exclusive time)"),
            opt_ns("thread_self_dur", "thread-CPU time not spent in callees"),
            col("depth", Kind::Int, "stack depth at the start (0 = top level)"),
            opt(
                "parent",
                Kind::Long,
                "the call it was made from (`call.id` in the same thread), NULL at top level",
            ),
            col("method", Kind::Int, "the method (`method.id`)"),
            THREAD,
            col(
                "outermost",
                Kind::Bool,
                "the method was not already on the stack (Traceview's inclusive time counts only these)",
            ),
            SESSION,
        ],
    },
    Table {
        name: "counter_track",
        area: Area::Counter,
        doc: "Numeric counter tracks: power, voltage, current, CPU frequency, traffic, app counters.",
        columns: &[
            col(
                "id",
                Kind::Int,
                "the track's id in this session (what `counter.track` refers to)",
            ),
            col("name", Kind::Text, "name"),
            opt("unit", Kind::Text, "unit (`W`, `V`, `A`, `Hz`, `J`, `B`, …)"),
            col(
                "kind",
                Kind::Text,
                "`level` (holds), `sampled` (linear between samples) or `cumulative` (a running total)",
            ),
            opt("pid", Kind::Int, "process, for a per-process counter"),
            opt("cpu", Kind::Int, "CPU, for a per-CPU counter"),
            opt("wraps_at", Kind::Double, "the value a cumulative counter wraps to 0 at"),
            SESSION,
        ],
    },
    Table {
        name: "counter",
        area: Area::Counter,
        doc: "The samples of every counter track.",
        columns: &[
            col("track", Kind::Int, "the track (`counter_track.id`)"),
            with_unit(
                col("ts", Kind::Long, "time on the session timeline (may be negative)"),
                "ns",
            ),
            col("value", Kind::Double, "value, in the track's unit"),
            SESSION,
        ],
    },
    Table {
        name: "context_track",
        area: Area::Counter,
        doc: "Context items (seed 000's context log: screen, orientation, network, battery, …).",
        columns: &[
            col(
                "id",
                Kind::Int,
                "the item's id in this session (what `context.track` refers to)",
            ),
            col("label", Kind::Text, "the item's label"),
            col("type", Kind::Text, "`int`, `long`, `float`, `double` or `string`"),
            opt("unit", Kind::Text, "unit, when known"),
            col(
                "interpolated",
                Kind::Bool,
                "float and double items are linear between records; the others hold until the next",
            ),
            SESSION,
        ],
    },
    Table {
        name: "context",
        area: Area::Counter,
        doc: "Context records, typed: exactly one of the value columns is set, by the item's type.",
        columns: &[
            col("track", Kind::Int, "the item (`context_track.id`)"),
            with_unit(
                col("ts", Kind::Long, "time on the session timeline (may be negative)"),
                "ns",
            ),
            opt_ns("end_ts", "when the next record of the item starts (NULL for the last)"),
            opt("int_value", Kind::Long, "value of an int or long item"),
            opt("real_value", Kind::Double, "value of a float or double item"),
            opt("string_value", Kind::Text, "value of a string item"),
            SESSION,
        ],
    },
    Table {
        name: "marker",
        area: Area::Events,
        doc: "Instant markers (atrace `I`, Chrome `i`, the big red button's marker events).",
        columns: &[
            ns("ts", "time"),
            THREAD,
            col("name", Kind::Text, "the marker's name"),
            SESSION,
        ],
    },
    Table {
        name: "object_event",
        area: Area::Events,
        doc: "Object lifetimes and operation bodies (seed 004).",
        columns: &[
            ns("ts", "time"),
            col("pid", Kind::Int, "process"),
            OPT_THREAD,
            col(
                "kind",
                Kind::Text,
                "`created`, `destroyed`, `operation_entered` or `operation_left`",
            ),
            col("object_id", Kind::Long, "the object's id (bits of the unsigned id)"),
            col("class", Kind::Text, "the object's class"),
            opt("interface", Kind::Text, "the interface of an operation"),
            opt("operation", Kind::Text, "the operation"),
            SESSION,
        ],
    },
    Table {
        name: "remote_call",
        area: Area::Events,
        doc: "Calls between processes: proxy calls and the stubs that served them (seed 004).",
        columns: &[
            ns("ts", "time"),
            col("pid", Kind::Int, "the calling (proxy) or serving (stub) process"),
            col("remote_pid", Kind::Int, "the process on the other side"),
            OPT_THREAD,
            col("kind", Kind::Text, "`proxy_sync`, `proxy_async` or `stub`"),
            col("object_id", Kind::Long, "the remote object's id"),
            col("class", Kind::Text, "its class"),
            col("interface", Kind::Text, "the interface"),
            col("operation", Kind::Text, "the operation"),
            SESSION,
        ],
    },
    Table {
        name: "sched",
        area: Area::Events,
        doc: "Scheduling slices: which thread each CPU ran, and for how long.",
        columns: &[
            col("cpu", Kind::Int, "the CPU"),
            ns("ts", "start"),
            ns("dur", "duration"),
            THREAD,
            opt("priority", Kind::Int, "priority, when known"),
            opt(
                "end_state",
                Kind::Text,
                "the state the thread left the CPU in (`R`, `S`, `D`, …)",
            ),
            SESSION,
        ],
    },
    Table {
        name: "async_slice",
        area: Area::Events,
        doc: "Named spans that are not calls on a thread's stack (atrace `S`/`F`, Chrome async events).",
        columns: &[
            col("name", Kind::Text, "name"),
            opt("category", Kind::Text, "category, when given"),
            col("cookie", Kind::Long, "the id pairing its start and end"),
            opt("pid", Kind::Int, "process, when known"),
            OPT_THREAD,
            ns("ts", "start"),
            ns("dur", "duration"),
            col("open", Kind::Bool, "still open at the end of the trace"),
            SESSION,
        ],
    },
    Table {
        name: "emu_process",
        area: Area::Emu,
        doc: "Per process of an emulator run: executions, instructions and the profile's estimates.",
        columns: &[
            col("pid", Kind::Int, "process id (under the emulator)"),
            col(
                "parent",
                Kind::Int,
                "the parent's pid when it was forked under the profiler, else 0",
            ),
            col(
                "exited_normally",
                Kind::Bool,
                "false when it was killed (its counts are still complete)",
            ),
            col("blocks", Kind::Long, "block executions"),
            col("distinct_blocks", Kind::Long, "distinct blocks executed"),
            col("instructions", Kind::Long, "instructions executed"),
            col(
                "cycles",
                Kind::Double,
                "estimated cycles (the profile's cycles per category)",
            ),
            with_unit(
                col("time_s", Kind::Double, "estimated time at the profile's clock"),
                "s",
            ),
            with_unit(col("energy_j", Kind::Double, "estimated energy"), "J"),
            with_unit(col("power_w", Kind::Double, "estimated mean power"), "W"),
            col("profile", Kind::Text, "the categorization profile the estimates use"),
            SESSION,
        ],
    },
    Table {
        name: "emu_category",
        area: Area::Emu,
        doc: "Per process and instruction category of the profile: instructions, cycles, energy.",
        columns: &[
            col("pid", Kind::Int, "process id"),
            col(
                "category",
                Kind::Text,
                "the profile's category (`Undefined` for the rest)",
            ),
            col("instructions", Kind::Long, "instructions executed in the category"),
            col("cycles", Kind::Double, "estimated cycles"),
            with_unit(col("energy_j", Kind::Double, "estimated energy"), "J"),
            col("profile", Kind::Text, "the categorization profile"),
            SESSION,
        ],
    },
    Table {
        name: "emu_block",
        area: Area::Emu,
        doc: "Every block a process executed: where it is, what it is, how often it ran.",
        columns: &[
            col("pid", Kind::Int, "process id"),
            col("address", Kind::Long, "guest address of its first instruction"),
            col("instructions", Kind::Int, "instructions in the block"),
            col("executions", Kind::Long, "times it ran"),
            col(
                "executed_instructions",
                Kind::Long,
                "instructions executed in it (exact, also for blocks cut short)",
            ),
            col(
                "region",
                Kind::Text,
                "program, libjvm, JIT-compiled code, interpreter, libc, JNI library, …",
            ),
            col(
                "file",
                Kind::Text,
                "the mapped file holding it (`[anonymous]`: generated code)",
            ),
            opt(
                "symbol",
                Kind::Text,
                "`function+0xoffset`, when a symbol or the JVM's code map covers it",
            ),
            col(
                "disassembly",
                Kind::Text,
                "its instructions, `; `-separated (QEMU's disassembly)",
            ),
            SESSION,
        ],
    },
    Table {
        name: "path",
        area: Area::Paths,
        doc: "The distinct paths of a path log: each method's block sequences that ran.",
        columns: &[
            col(
                "id",
                Kind::Int,
                "the path's id in this session (what `path_invocation.path` refers to)",
            ),
            col("method", Kind::Int, "the method (`method.id`)"),
            col(
                "blocks",
                Kind::Text,
                "its basic blocks in order (bytecode-order ids, space-separated)",
            ),
            col("length", Kind::Int, "blocks in it"),
            SESSION,
        ],
    },
    Table {
        name: "path_invocation",
        area: Area::Paths,
        doc: "Every invocation a path log holds, in log order.",
        columns: &[
            col(
                "seq",
                Kind::Long,
                "its place in the log (per thread, in completion order)",
            ),
            THREAD,
            col("method", Kind::Int, "the method (`method.id`)"),
            col("path", Kind::Int, "the path it took (`path.id`)"),
            col("aborted", Kind::Bool, "an exception ended it"),
            col("bits", Kind::Long, "bits its record costs in the trace"),
            SESSION,
        ],
    },
    Table {
        name: "path_edge",
        area: Area::Paths,
        doc: "Edge counts per method: how often control went from one block to the next.",
        columns: &[
            col("method", Kind::Int, "the method (`method.id`)"),
            opt("from_block", Kind::Int, "the block left (NULL: the method's entry)"),
            opt(
                "to_block",
                Kind::Int,
                "the block entered (NULL: the method's exit, by return or exception)",
            ),
            col("count", Kind::Long, "times taken"),
            SESSION,
        ],
    },
    Table {
        name: "import_note",
        area: Area::Session,
        doc: "What the importer repaired, and what it read but had no use for.",
        columns: &[
            col("kind", Kind::Text, "`repair` or `skipped`"),
            col("code", Kind::Text, "the repair's code, or the skipped event's kind"),
            col("count", Kind::Long, "how many times"),
            opt("detail", Kind::Text, "one sentence, for repairs"),
            SESSION,
        ],
    },
];

/// The table named `name`.
pub fn table(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.name == name)
}

impl Table {
    /// The table's Arrow schema.
    pub fn schema(&self) -> SchemaRef {
        Arc::new(Schema::new(
            self.columns
                .iter()
                .map(|c| Field::new(c.name, c.kind.arrow(), c.nullable))
                .collect::<Vec<_>>(),
        ))
    }

    /// The Arrow schema without the trailing `session` column (what a
    /// Parquet file of one session holds; the dataset's directory names
    /// give the session).
    pub fn file_schema(&self) -> SchemaRef {
        let full = self.schema();
        Arc::new(Schema::new(full.fields()[..full.fields().len() - 1].to_vec()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_ends_with_session_and_names_columns_once() {
        for t in TABLES {
            assert_eq!(t.columns.last().unwrap().name, "session", "{}", t.name);
            let mut names: Vec<_> = t.columns.iter().map(|c| c.name).collect();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), t.columns.len(), "{}", t.name);
        }
        let mut names: Vec<_> = TABLES.iter().map(|t| t.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), TABLES.len());
    }
}
