//! The Perfetto messages this crate reads and writes, written by hand as
//! `prost` structs with the field numbers of Perfetto's `.proto` files
//! (`protos/perfetto/trace/…`). Only the fields tracekit uses are declared;
//! prost skips the rest. Text fields are declared as `bytes` (same wire
//! type) so that a name that is not UTF-8 is read lossily instead of failing
//! the whole packet. Oneof members are plain optional fields: on the wire
//! they are the same.
//!
//! `TracePacket` and `FtraceEvent` are walked by hand when reading (see
//! `import`), so that every field kind the importer skips can be counted;
//! their structs here are used for writing.

#![allow(missing_docs)]

use prost::Message;

/// `TracePacket` (trace_packet.proto), the fields the writer fills.
#[derive(Clone, PartialEq, Message)]
pub struct TracePacket {
    #[prost(uint64, optional, tag = "8")]
    pub timestamp: Option<u64>,
    #[prost(uint32, optional, tag = "10")]
    pub trusted_packet_sequence_id: Option<u32>,
    #[prost(uint32, optional, tag = "13")]
    pub sequence_flags: Option<u32>,
    #[prost(bool, optional, tag = "87")]
    pub first_packet_on_sequence: Option<bool>,
    #[prost(message, optional, tag = "12")]
    pub interned_data: Option<InternedData>,
    #[prost(message, optional, tag = "11")]
    pub track_event: Option<TrackEvent>,
    #[prost(message, optional, tag = "60")]
    pub track_descriptor: Option<TrackDescriptor>,
    #[prost(message, optional, tag = "6")]
    pub clock_snapshot: Option<ClockSnapshot>,
    #[prost(message, optional, tag = "1")]
    pub ftrace_events: Option<FtraceEventBundle>,
}

/// `TracePacket.sequence_flags` bit: the sequence's interned data and
/// defaults start afresh with this packet.
pub const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
/// `TracePacket.sequence_flags` bit: the packet uses interned data.
pub const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;

/// `TrackEvent.type`.
pub mod event_type {
    pub const SLICE_BEGIN: i32 = 1;
    pub const SLICE_END: i32 = 2;
    pub const INSTANT: i32 = 3;
    pub const COUNTER: i32 = 4;
}

/// `TrackEvent` (track_event/track_event.proto).
#[derive(Clone, PartialEq, Message)]
pub struct TrackEvent {
    #[prost(uint64, repeated, packed = "false", tag = "3")]
    pub category_iids: Vec<u64>,
    #[prost(bytes = "vec", repeated, tag = "22")]
    pub categories: Vec<Vec<u8>>,
    #[prost(uint64, optional, tag = "10")]
    pub name_iid: Option<u64>,
    #[prost(bytes = "vec", optional, tag = "23")]
    pub name: Option<Vec<u8>>,
    #[prost(int32, optional, tag = "9")]
    pub r#type: Option<i32>,
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
    #[prost(int64, optional, tag = "30")]
    pub counter_value: Option<i64>,
    #[prost(double, optional, tag = "44")]
    pub double_counter_value: Option<f64>,
    #[prost(uint64, repeated, packed = "false", tag = "31")]
    pub extra_counter_track_uuids: Vec<u64>,
    #[prost(int64, repeated, packed = "false", tag = "12")]
    pub extra_counter_values: Vec<i64>,
    #[prost(uint64, repeated, packed = "false", tag = "45")]
    pub extra_double_counter_track_uuids: Vec<u64>,
    #[prost(double, repeated, packed = "false", tag = "46")]
    pub extra_double_counter_values: Vec<f64>,
    #[prost(message, repeated, tag = "4")]
    pub debug_annotations: Vec<DebugAnnotation>,
    #[prost(int64, optional, tag = "16")]
    pub timestamp_absolute_us: Option<i64>,
    #[prost(int64, optional, tag = "17")]
    pub thread_time_absolute_us: Option<i64>,
}

/// `DebugAnnotation`: only the name and the scalar values.
#[derive(Clone, PartialEq, Message)]
pub struct DebugAnnotation {
    #[prost(uint64, optional, tag = "1")]
    pub name_iid: Option<u64>,
    #[prost(bytes = "vec", optional, tag = "10")]
    pub name: Option<Vec<u8>>,
    #[prost(bool, optional, tag = "2")]
    pub bool_value: Option<bool>,
}

/// `TrackDescriptor` (track_event/track_descriptor.proto).
#[derive(Clone, PartialEq, Message)]
pub struct TrackDescriptor {
    #[prost(uint64, optional, tag = "1")]
    pub uuid: Option<u64>,
    #[prost(uint64, optional, tag = "5")]
    pub parent_uuid: Option<u64>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub name: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "10")]
    pub static_name: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "13")]
    pub atrace_name: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "14")]
    pub description: Option<Vec<u8>>,
    #[prost(message, optional, tag = "3")]
    pub process: Option<ProcessDescriptor>,
    #[prost(message, optional, tag = "4")]
    pub thread: Option<ThreadDescriptor>,
    #[prost(message, optional, tag = "8")]
    pub counter: Option<CounterDescriptor>,
}

/// `ProcessDescriptor`.
#[derive(Clone, PartialEq, Message)]
pub struct ProcessDescriptor {
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    #[prost(bytes = "vec", repeated, tag = "2")]
    pub cmdline: Vec<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub process_name: Option<Vec<u8>>,
}

/// `ThreadDescriptor`.
#[derive(Clone, PartialEq, Message)]
pub struct ThreadDescriptor {
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    #[prost(int64, optional, tag = "2")]
    pub tid: Option<i64>,
    #[prost(bytes = "vec", optional, tag = "5")]
    pub thread_name: Option<Vec<u8>>,
}

/// `CounterDescriptor.type`: the thread's CPU time in ns.
pub const COUNTER_THREAD_TIME_NS: i32 = 1;

/// `CounterDescriptor.unit` values.
pub mod counter_unit {
    pub const TIME_NS: i32 = 1;
    pub const COUNT: i32 = 2;
    pub const SIZE_BYTES: i32 = 3;
}

/// `CounterDescriptor` (track_event/counter_descriptor.proto).
#[derive(Clone, PartialEq, Message)]
pub struct CounterDescriptor {
    #[prost(int32, optional, tag = "1")]
    pub r#type: Option<i32>,
    #[prost(int32, optional, tag = "3")]
    pub unit: Option<i32>,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub unit_name: Option<Vec<u8>>,
    #[prost(int64, optional, tag = "4")]
    pub unit_multiplier: Option<i64>,
    #[prost(bool, optional, tag = "5")]
    pub is_incremental: Option<bool>,
}

/// `InternedData`: the three tables track events use.
#[derive(Clone, PartialEq, Message)]
pub struct InternedData {
    #[prost(message, repeated, tag = "1")]
    pub event_categories: Vec<InternedString>,
    #[prost(message, repeated, tag = "2")]
    pub event_names: Vec<InternedString>,
    #[prost(message, repeated, tag = "3")]
    pub debug_annotation_names: Vec<InternedString>,
}

/// `EventCategory`, `EventName` and `DebugAnnotationName` share this shape.
#[derive(Clone, PartialEq, Message)]
pub struct InternedString {
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub name: Option<Vec<u8>>,
}

/// `TracePacketDefaults` (trace_packet_defaults.proto).
#[derive(Clone, PartialEq, Message)]
pub struct TracePacketDefaults {
    #[prost(uint32, optional, tag = "58")]
    pub timestamp_clock_id: Option<u32>,
    #[prost(message, optional, tag = "11")]
    pub track_event_defaults: Option<TrackEventDefaults>,
}

/// `TrackEventDefaults`.
#[derive(Clone, PartialEq, Message)]
pub struct TrackEventDefaults {
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
    #[prost(uint64, repeated, packed = "false", tag = "31")]
    pub extra_counter_track_uuids: Vec<u64>,
    #[prost(uint64, repeated, packed = "false", tag = "45")]
    pub extra_double_counter_track_uuids: Vec<u64>,
}

/// Builtin clock ids (`BuiltinClock`).
pub mod clock {
    pub const REALTIME: u32 = 1;
    pub const BOOTTIME: u32 = 6;
}

/// `ClockSnapshot` (clock_snapshot.proto).
#[derive(Clone, PartialEq, Message)]
pub struct ClockSnapshot {
    #[prost(message, repeated, tag = "1")]
    pub clocks: Vec<Clock>,
    #[prost(int32, optional, tag = "2")]
    pub primary_trace_clock: Option<i32>,
}

/// `ClockSnapshot.Clock`.
#[derive(Clone, PartialEq, Message)]
pub struct Clock {
    #[prost(uint32, optional, tag = "1")]
    pub clock_id: Option<u32>,
    #[prost(uint64, optional, tag = "2")]
    pub timestamp: Option<u64>,
    #[prost(bool, optional, tag = "3")]
    pub is_incremental: Option<bool>,
    #[prost(uint64, optional, tag = "4")]
    pub unit_multiplier_ns: Option<u64>,
}

/// `ProcessTree` (ps/process_tree.proto).
#[derive(Clone, PartialEq, Message)]
pub struct ProcessTree {
    #[prost(message, repeated, tag = "1")]
    pub processes: Vec<ProcessTreeProcess>,
    #[prost(message, repeated, tag = "2")]
    pub threads: Vec<ProcessTreeThread>,
}

/// `ProcessTree.Process`.
#[derive(Clone, PartialEq, Message)]
pub struct ProcessTreeProcess {
    #[prost(int32, optional, tag = "1")]
    pub pid: Option<i32>,
    #[prost(bytes = "vec", repeated, tag = "3")]
    pub cmdline: Vec<Vec<u8>>,
}

/// `ProcessTree.Thread`.
#[derive(Clone, PartialEq, Message)]
pub struct ProcessTreeThread {
    #[prost(int32, optional, tag = "1")]
    pub tid: Option<i32>,
    #[prost(int32, optional, tag = "3")]
    pub tgid: Option<i32>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub name: Option<Vec<u8>>,
}

/// `BatteryCounters` (power/battery_counters.proto).
#[derive(Clone, PartialEq, Message)]
pub struct BatteryCounters {
    #[prost(int64, optional, tag = "1")]
    pub charge_counter_uah: Option<i64>,
    #[prost(float, optional, tag = "2")]
    pub capacity_percent: Option<f32>,
    #[prost(int64, optional, tag = "3")]
    pub current_ua: Option<i64>,
    #[prost(int64, optional, tag = "4")]
    pub current_avg_ua: Option<i64>,
    #[prost(bytes = "vec", optional, tag = "5")]
    pub name: Option<Vec<u8>>,
    #[prost(int64, optional, tag = "6")]
    pub energy_counter_uwh: Option<i64>,
    #[prost(int64, optional, tag = "7")]
    pub voltage_uv: Option<i64>,
}

/// `PowerRails` (power/power_rails.proto).
#[derive(Clone, PartialEq, Message)]
pub struct PowerRails {
    #[prost(message, repeated, tag = "1")]
    pub rail_descriptor: Vec<RailDescriptor>,
    #[prost(message, repeated, tag = "2")]
    pub energy_data: Vec<EnergyData>,
}

/// `PowerRails.RailDescriptor`.
#[derive(Clone, PartialEq, Message)]
pub struct RailDescriptor {
    #[prost(uint32, optional, tag = "1")]
    pub index: Option<u32>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub rail_name: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub subsys_name: Option<Vec<u8>>,
}

/// `PowerRails.EnergyData`: cumulative energy in µWs (µJ).
#[derive(Clone, PartialEq, Message)]
pub struct EnergyData {
    #[prost(uint32, optional, tag = "1")]
    pub index: Option<u32>,
    #[prost(uint64, optional, tag = "2")]
    pub timestamp_ms: Option<u64>,
    #[prost(uint64, optional, tag = "3")]
    pub energy: Option<u64>,
}

/// `FtraceEventBundle` (ftrace/ftrace_event_bundle.proto), as written.
#[derive(Clone, PartialEq, Message)]
pub struct FtraceEventBundle {
    #[prost(uint32, optional, tag = "1")]
    pub cpu: Option<u32>,
    #[prost(message, repeated, tag = "2")]
    pub event: Vec<FtraceEvent>,
}

/// `FtraceEvent` (ftrace/ftrace_event.proto), as written.
#[derive(Clone, PartialEq, Message)]
pub struct FtraceEvent {
    #[prost(uint64, optional, tag = "1")]
    pub timestamp: Option<u64>,
    #[prost(uint32, optional, tag = "2")]
    pub pid: Option<u32>,
    #[prost(message, optional, tag = "4")]
    pub sched_switch: Option<SchedSwitch>,
    #[prost(message, optional, tag = "3")]
    pub print: Option<Print>,
    #[prost(message, optional, tag = "11")]
    pub cpu_frequency: Option<CpuState>,
    #[prost(message, optional, tag = "13")]
    pub cpu_idle: Option<CpuState>,
}

/// `SchedSwitchFtraceEvent` (ftrace/sched.proto).
#[derive(Clone, PartialEq, Message)]
pub struct SchedSwitch {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub prev_comm: Option<Vec<u8>>,
    #[prost(int32, optional, tag = "2")]
    pub prev_pid: Option<i32>,
    #[prost(int32, optional, tag = "3")]
    pub prev_prio: Option<i32>,
    #[prost(int64, optional, tag = "4")]
    pub prev_state: Option<i64>,
    #[prost(bytes = "vec", optional, tag = "5")]
    pub next_comm: Option<Vec<u8>>,
    #[prost(int32, optional, tag = "6")]
    pub next_pid: Option<i32>,
    #[prost(int32, optional, tag = "7")]
    pub next_prio: Option<i32>,
}

/// `CpuFrequencyFtraceEvent` and `CpuIdleFtraceEvent` (ftrace/power.proto)
/// share this shape: a state and a CPU.
#[derive(Clone, PartialEq, Message)]
pub struct CpuState {
    #[prost(uint32, optional, tag = "1")]
    pub state: Option<u32>,
    #[prost(uint32, optional, tag = "2")]
    pub cpu_id: Option<u32>,
}

/// `PrintFtraceEvent` (ftrace/print.proto): a `trace_marker` write.
#[derive(Clone, PartialEq, Message)]
pub struct Print {
    #[prost(bytes = "vec", optional, tag = "2")]
    pub buf: Option<Vec<u8>>,
}

/// `FtraceEventBundle.CompactSched`: sched_switch events as columns.
#[derive(Clone, PartialEq, Message)]
pub struct CompactSched {
    #[prost(bytes = "vec", repeated, tag = "5")]
    pub intern_table: Vec<Vec<u8>>,
    #[prost(uint64, repeated, tag = "1")]
    pub switch_timestamp: Vec<u64>,
    #[prost(int64, repeated, tag = "2")]
    pub switch_prev_state: Vec<i64>,
    #[prost(int32, repeated, tag = "3")]
    pub switch_next_pid: Vec<i32>,
    #[prost(int32, repeated, tag = "4")]
    pub switch_next_prio: Vec<i32>,
    #[prost(uint32, repeated, tag = "6")]
    pub switch_next_comm_index: Vec<u32>,
    #[prost(uint64, repeated, tag = "7")]
    pub waking_timestamp: Vec<u64>,
}

/// `SystemInfo` (common/system_info.proto): what the trace says of the device.
#[derive(Clone, PartialEq, Message)]
pub struct SystemInfo {
    #[prost(message, optional, tag = "1")]
    pub utsname: Option<Utsname>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub android_build_fingerprint: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "14")]
    pub android_device_manufacturer: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "9")]
    pub android_soc_model: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub tracing_service_version: Option<Vec<u8>>,
    #[prost(uint64, optional, tag = "5")]
    pub android_sdk_version: Option<u64>,
    #[prost(uint32, optional, tag = "8")]
    pub num_cpus: Option<u32>,
}

/// `Utsname`: the kernel's `uname`.
#[derive(Clone, PartialEq, Message)]
pub struct Utsname {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub sysname: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub version: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub release: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub machine: Option<Vec<u8>>,
}
