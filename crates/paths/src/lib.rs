//! Path profiling, independent of any bytecode: control-flow graphs and
//! three ways to record the exact block-by-block path of an invocation in
//! fixed-width words — Ball–Larus (BLPP), PAP and AdapTracer (seed 003).
//!
//! # Public API
//!
//! - [`Cfg`] / [`CfgBuilder`]: one method's CFG (named blocks, one entry,
//!   one exit — a virtual [`VIRTUAL_EXIT`] joins several sinks — loops,
//!   switches, unreachable blocks, exception edges). Only *live* blocks
//!   (reachable from the entry and reaching the exit) take part in coding.
//! - [`Program`]: CFGs by name plus call sites; [`Program::load`] reads the
//!   CFG JSON file `{"methods": [{"name", "entry", "exit", "edges", …}]}`
//!   (format in [`program`]).
//! - [`Blpp`], [`Pap`], [`AdapTracer`]: the schemes, each with `encode` and
//!   `decode`; [`Codec`] puts them behind one interface with [`TraceItem`]s,
//!   size accounting ([`EncodedTrace::bits`]) and the JSON trace form
//!   ([`trace_to_json`], [`trace_from_json`]).
//! - [`AdaptiveModel`] ([`AdaptiveParams`]: `inc`, `bound`;
//!   [`ModelOptions`]: [`SymbolOrder`], [`ContextKind`]): AdapTracer's
//!   per-block counters, updated by encoding and by decoding alike;
//!   [`EdgeModel`]: the model file (method, from, to, probability, counter),
//!   format in [`edge_model`].
//! - [`ChoiceEncoder`] / [`AdapTracer::stream`]: many invocations in one
//!   AdapTracer word list (e.g. one per thread), paying the flush and the
//!   word padding once.
//! - [`ContextEncoder`] / [`ContextDecoder`] (opt-in *context stream*):
//!   one coder per thread: a flag per invocation when it repeats the one
//!   its history predicts ([`repeat`]), otherwise its method id, end and
//!   choices, with predictions from the thread's event history
//!   ([`predictor`]); the exact
//!   rules are in [`context_stream`], `testdata/vectors-context.json` pins
//!   them down.
//! - [`arith`]: the bit-exact arithmetic coder ([`arith::Encoder`],
//!   [`arith::Decoder`]) for probes written in other languages.
//!
//! ```
//! use tracekit_paths::*;
//! use std::path::Path;
//! let program = Program::from_json_str(
//!     r#"{"methods": [{"name": "m", "entry": "A", "exit": "D",
//!         "edges": [["A","B"], ["B","C"], ["C","B"], ["C","D"]]}]}"#,
//!     Path::new("example.json"),
//! ).unwrap();
//! let m = program.method_id("m").unwrap();
//! let cfg = program.cfg(m);
//! let path = cfg.resolve_path(&["A","B","C","B","C","B","C","B","C","B","C","D"]).unwrap();
//!
//! // PAP with 3-bit values: the seed's worked example, 7, C, 1 in 8 bits.
//! let pap = Codec::new(&program, m, Scheme::Pap, 3).unwrap();
//! let t = pap.encode(None, &path).unwrap();
//! assert_eq!(trace_to_json(cfg, &t.items).to_string(), r#"[7,"C",1]"#);
//! assert_eq!(t.bits, 8);
//!
//! // AdapTracer: encoder and decoder each keep a model; both adapt alike.
//! let at = AdapTracer::new(&program, 3).unwrap();
//! let mut probe_model = AdaptiveModel::new(&program, AdaptiveParams::default()).unwrap();
//! let mut parser_model = probe_model.clone();
//! let trace = at.encode(&mut probe_model, m, &path).unwrap();
//! assert_eq!(at.decode(&mut parser_model, m, &trace.words).unwrap(), path);
//! // The decoder's counters are the next run's model file.
//! let next: EdgeModel = parser_model.to_edge_model(&program);
//! assert!(next.counter("m", "C", "B").unwrap() > next.counter("m", "C", "D").unwrap());
//! ```
//!
//! # AdapTracer bit by bit (for probes in other languages)
//!
//! All arithmetic is on unsigned integers below `2^53`, so Java `long`s
//! mirror it directly. `testdata/vectors.json` holds cases that both sides
//! must reproduce.
//!
//! **Choices.** A block `v` with `k ≥ 2` live out-edges (live successors in
//! CFG declaration order, duplicates merged) codes the *symbol* `s` of the
//! edge taken. Blocks with one live out-edge code nothing. By default the
//! symbol is the edge's index among the live successors; with
//! [`SymbolOrder::Frequency`] the out-edges are numbered by starting
//! counter, largest first, ties in successor order (fixed for the whole
//! run). [`AdaptiveModel::symbol`] gives an edge's symbol; the vector files
//! list them under `symbols` (`testdata/vectors.json`: successor order,
//! `testdata/vectors-frequency.json`: frequency order). Counters
//! `c[0..k)`, in symbol order, start at 1 or at the model file's values
//! (halved — `c = max(1, c >> 1)` for all — until `Σc ≤ 2^20`). With
//! `total = Σc` and
//! `cum = Σ_{i<s} c[i]` the coder codes `(cum, c[s], total)`, then the
//! counters update:
//! `if c[s] + inc > bound || total + inc > 2^20 { c[i] = max(1, c[i] >> 1) for all i; total = Σc }`
//! then `c[s] += inc; total += inc`.
//! With [`ContextKind::Runs`] (opt-in) a block with 2 to 16 symbols picks
//! one of `2k` counter sets before each choice from its own history — the
//! exact rule is in the [`adaptive`] module docs, `testdata/vectors-runs.json`
//! pins it down.
//! In interprocedural mode, the callees of a block are coded (entry to exit,
//! recursively, in call order) after the block is entered and before its own
//! choice; each method has its own counters; one coder spans the whole
//! invocation tree of the root.
//!
//! **Coder** (32-bit Witten–Neal–Cleary with pending bits, `HALF = 2^31`,
//! `QUARTER = 2^30`). Start: `low = 0`, `high = 2^32 − 1`, `pending = 0`.
//! Coding `(cum, freq, total)`:
//!
//! ```text
//! range = high − low + 1
//! high  = low + range·(cum + freq) / total − 1      (integer division)
//! low   = low + range·cum / total
//! loop:
//!   if high < HALF:            put 0, then `pending` 1s; pending = 0
//!   elif low ≥ HALF:           put 1, then `pending` 0s; pending = 0; low −= HALF; high −= HALF
//!   elif low ≥ QUARTER and high < HALF + QUARTER:
//!                              pending += 1; low −= QUARTER; high −= QUARTER
//!   else: break
//!   low = 2·low; high = 2·high + 1
//! ```
//!
//! At the exit: if `low > 0` or `pending > 0`, put a single 1 (otherwise
//! nothing).
//!
//! **Words.** Bits are packed most significant first into `W`-bit words
//! (`3 ≤ W ≤ 64`); the last word is padded with zeros; then trailing words
//! equal to 0 are dropped (a probe can hold back zero words and write them
//! only when a non-zero word follows). A path without choices, or whose
//! choices all code at `low = 0`, is the empty list. The decoder reads zeros
//! past the last word.
//!
//! # BLPP and PAP conventions
//! See [`blpp`] (start-relative ids after a back edge, greedy DAG splitting
//! by cut blocks) and [`pap`] (in-edge order: non-back edges first, the
//! entry's start edge at index 0; a breakpoint records the value before the
//! overflowing update and the edge's source block).

pub mod adaptive;
pub mod adaptracer;
pub mod arith;
pub mod blpp;
pub mod cfg;
pub mod codec;
mod context_model;
pub mod context_stream;
pub mod edge_model;
pub mod error;
pub mod model_options;
pub mod pap;
pub mod predictor;
pub mod program;
pub mod repeat;
pub mod synth;

pub use adaptive::{AdaptiveModel, AdaptiveParams, ContextKind, ModelOptions, SymbolOrder};
pub use adaptracer::{choice_stream, AdapTracer, AdaptiveTrace, ChoiceEncoder, DEFAULT_MAX_STEPS};
pub use blpp::{Blpp, BlppStep};
pub use cfg::{BlockId, Cfg, CfgBuilder, EdgeKind, VIRTUAL_EXIT};
pub use codec::{
    trace_bits, trace_from_json, trace_to_json, Codec, DecodeReport, EncodeReport, EncodedTrace, Scheme, TraceItem,
};
pub use context_stream::{
    ContextBlockDecoder, ContextDecoder, ContextEncoder, ContextLayout, ContextTrace, StreamInvocation,
};
pub use edge_model::EdgeModel;
pub use error::{PathError, Result};
pub use pap::{node_id_bits, Pap, PapItem};
pub use program::{EdgeSpec, MethodId, MethodSpec, Program, Visit, WalkEvent};
