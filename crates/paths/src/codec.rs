//! One interface over the three schemes, the JSON form of a trace and the
//! size accounting.
//!
//! A trace is a list of [`TraceItem`]s: `W`-bit words, plus (PAP only)
//! breakpoint blocks. Its size counts `W` bits per word and
//! `ceil(log2 #blocks)` bits per breakpoint block. In JSON a trace is a list
//! of integers and block-name strings: `[7, "C", 1]`.

use crate::adaptive::AdaptiveModel;
use crate::adaptracer::AdapTracer;
use crate::blpp::Blpp;
use crate::cfg::{BlockId, Cfg};
use crate::error::{word_max, PathError, Result};
use crate::pap::{node_id_bits, Pap, PapItem};
use crate::program::{MethodId, Program};
use std::fmt;
use std::str::FromStr;

/// A path-profiling scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Ball–Larus path ids, one per acyclic segment.
    Blpp,
    /// Profiling all paths: mixed-radix in-edge numbers with breakpoints.
    Pap,
    /// Adaptive arithmetic coding of out-edge choices.
    AdapTracer,
}

impl Scheme {
    /// All schemes.
    pub const ALL: [Scheme; 3] = [Scheme::Blpp, Scheme::Pap, Scheme::AdapTracer];

    /// The command-line name (`blpp`, `pap`, `adaptracer`).
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Blpp => "blpp",
            Scheme::Pap => "pap",
            Scheme::AdapTracer => "adaptracer",
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scheme {
    type Err = PathError;
    fn from_str(s: &str) -> Result<Scheme> {
        Scheme::ALL.into_iter().find(|x| x.name() == s).ok_or_else(|| {
            PathError::InvalidParameter(format!("unknown scheme {s:?} (expected blpp, pap or adaptracer)"))
        })
    }
}

/// One element of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceItem {
    /// A `W`-bit word (path id, probe value or PathID word).
    Word(u64),
    /// A PAP breakpoint's block.
    Node(BlockId),
}

/// An encoded path with its size.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedTrace {
    /// The trace.
    pub items: Vec<TraceItem>,
    /// Its size in bits.
    pub bits: u64,
    /// AdapTracer only: the ideal code length under the same model.
    pub ideal_bits: Option<f64>,
}

enum Inner<'p> {
    Blpp(Blpp<'p>),
    Pap(Pap<'p>),
    Adap(AdapTracer<'p>),
}

/// Encoder/decoder of one method under one scheme and word width.
pub struct Codec<'p> {
    program: &'p Program,
    method: MethodId,
    width: u32,
    inner: Inner<'p>,
}

impl<'p> Codec<'p> {
    /// Prepares `scheme` for `method` with `width`-bit words.
    pub fn new(program: &'p Program, method: MethodId, scheme: Scheme, width: u32) -> Result<Self> {
        let cfg = program.cfg(method);
        let inner = match scheme {
            Scheme::Blpp => Inner::Blpp(Blpp::new(cfg, width)?),
            Scheme::Pap => Inner::Pap(Pap::new(cfg, width)?),
            Scheme::AdapTracer => Inner::Adap(AdapTracer::new(program, width)?),
        };
        Ok(Codec {
            program,
            method,
            width,
            inner,
        })
    }

    /// The method's CFG.
    pub fn cfg(&self) -> &'p Cfg {
        self.program.cfg(self.method)
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        match self.inner {
            Inner::Blpp(_) => Scheme::Blpp,
            Inner::Pap(_) => Scheme::Pap,
            Inner::Adap(_) => Scheme::AdapTracer,
        }
    }

    /// Encodes `path`. AdapTracer codes under `model` and updates it
    /// (`None`: fresh counters with default parameters); the other schemes
    /// ignore it.
    pub fn encode(&self, model: Option<&mut AdaptiveModel>, path: &[BlockId]) -> Result<EncodedTrace> {
        let (items, ideal): (Vec<TraceItem>, Option<f64>) = match &self.inner {
            Inner::Blpp(b) => (b.encode(path)?.into_iter().map(TraceItem::Word).collect(), None),
            Inner::Pap(p) => (p.encode(path)?.into_iter().map(from_pap).collect(), None),
            Inner::Adap(a) => {
                let t = self.with_model(model, |m| a.encode(m, self.method, path))?;
                (t.words.into_iter().map(TraceItem::Word).collect(), Some(t.ideal_bits))
            }
        };
        Ok(EncodedTrace {
            bits: self.bits(&items),
            items,
            ideal_bits: ideal,
        })
    }

    /// Decodes a trace into the path (AdapTracer updates `model` as in
    /// [`Codec::encode`]).
    pub fn decode(&self, model: Option<&mut AdaptiveModel>, items: &[TraceItem]) -> Result<Vec<BlockId>> {
        let words_only = || -> Result<Vec<u64>> {
            items
                .iter()
                .map(|it| match it {
                    TraceItem::Word(w) => Ok(*w),
                    TraceItem::Node(b) => Err(PathError::InvalidTrace {
                        method: self.cfg().name().to_string(),
                        message: format!(
                            "block {:?} in a {} trace (only PAP records blocks)",
                            self.cfg().block_name(*b),
                            self.scheme()
                        ),
                    }),
                })
                .collect()
        };
        let max = word_max(self.width);
        if let Some(w) = items.iter().find_map(|it| match it {
            TraceItem::Word(w) if *w > max => Some(*w),
            _ => None,
        }) {
            return Err(PathError::InvalidTrace {
                method: self.cfg().name().to_string(),
                message: format!("value {w} does not fit in {} bits", self.width),
            });
        }
        match &self.inner {
            Inner::Blpp(b) => b.decode(&words_only()?),
            Inner::Pap(p) => {
                let pi: Vec<PapItem> = items
                    .iter()
                    .map(|it| match *it {
                        TraceItem::Word(w) => PapItem::Value(w),
                        TraceItem::Node(b) => PapItem::Node(b),
                    })
                    .collect();
                p.decode(&pi)
            }
            Inner::Adap(a) => {
                let words = words_only()?;
                self.with_model(model, |m| a.decode(m, self.method, &words))
            }
        }
    }

    /// Runs `f` on `model`, or on fresh default counters without one.
    fn with_model<T>(
        &self,
        model: Option<&mut AdaptiveModel>,
        f: impl FnOnce(&mut AdaptiveModel) -> Result<T>,
    ) -> Result<T> {
        match model {
            Some(m) => f(m),
            None => f(&mut AdaptiveModel::new(self.program, Default::default())?),
        }
    }

    /// Size of a trace: `W` bits per word, `ceil(log2 #blocks)` per block.
    pub fn bits(&self, items: &[TraceItem]) -> u64 {
        trace_bits(items, self.width, self.cfg().block_count())
    }
}

fn from_pap(p: PapItem) -> TraceItem {
    match p {
        PapItem::Value(v) => TraceItem::Word(v),
        PapItem::Node(b) => TraceItem::Node(b),
    }
}

/// Size of a trace in bits: `width` per word, `ceil(log2 blocks)` per block.
pub fn trace_bits(items: &[TraceItem], width: u32, blocks: usize) -> u64 {
    let node_bits = u64::from(node_id_bits(blocks));
    items
        .iter()
        .map(|it| match it {
            TraceItem::Word(_) => u64::from(width),
            TraceItem::Node(_) => node_bits,
        })
        .sum()
}

/// The JSON form of a trace: integers and block names.
pub fn trace_to_json(cfg: &Cfg, items: &[TraceItem]) -> serde_json::Value {
    serde_json::Value::Array(
        items
            .iter()
            .map(|it| match it {
                TraceItem::Word(w) => serde_json::Value::from(*w),
                TraceItem::Node(b) => serde_json::Value::from(cfg.block_name(*b)),
            })
            .collect(),
    )
}

/// One encoded path as `tracekit paths encode --json` prints it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EncodeReport {
    /// The trace in its JSON form ([`trace_to_json`]).
    pub trace: serde_json::Value,
    /// Its size in bits.
    pub bits: u64,
    /// AdapTracer: the information content of the choices, in bits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ideal_bits: Option<f64>,
}

/// One decoded path as `tracekit paths decode --json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DecodeReport {
    /// Block names from entry to exit (`method::block` when interprocedural).
    pub path: Vec<String>,
}

/// Parses the JSON form of a trace (`[7, "C", 1]`), resolving block names.
pub fn trace_from_json(cfg: &Cfg, text: &str) -> Result<Vec<TraceItem>> {
    let bad = |message: String| PathError::InvalidTrace {
        method: cfg.name().to_string(),
        message,
    };
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let serde_json::Value::Array(list) = v else {
        return Err(bad("a trace is a JSON list".into()));
    };
    list.iter()
        .enumerate()
        .map(|(i, x)| match x {
            serde_json::Value::Number(n) => n
                .as_u64()
                .map(TraceItem::Word)
                .ok_or_else(|| bad(format!("item {i} ({n}) is not an unsigned 64-bit integer"))),
            serde_json::Value::String(s) => cfg
                .block_id(s)
                .map(TraceItem::Node)
                .ok_or_else(|| bad(format!("item {i}: unknown block {s:?}"))),
            other => Err(bad(format!(
                "item {i} ({other}) is neither an integer nor a block name"
            ))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn seed_pap_json_and_bits() {
        let p = Program::from_json_str(
            r#"{"methods":[{"name":"m","entry":"A","exit":"D",
                "edges":[["A","B"],["B","C"],["C","B"],["C","D"]]}]}"#,
            Path::new("s.json"),
        )
        .unwrap();
        let m = p.method_id("m").unwrap();
        let codec = Codec::new(&p, m, Scheme::Pap, 3).unwrap();
        let path = codec
            .cfg()
            .resolve_path(&["A", "B", "C", "B", "C", "B", "C", "B", "C", "B", "C", "D"])
            .unwrap();
        let t = codec.encode(None, &path).unwrap();
        assert_eq!(t.bits, 8);
        assert_eq!(trace_to_json(codec.cfg(), &t.items).to_string(), r#"[7,"C",1]"#);
        let back = trace_from_json(codec.cfg(), r#"[7, "C", 1]"#).unwrap();
        assert_eq!(codec.decode(None, &back).unwrap(), path);
        assert!(trace_from_json(codec.cfg(), "[-1]").is_err());
        assert!(trace_from_json(codec.cfg(), r#"["Z"]"#).is_err());
        assert!(codec.decode(None, &[TraceItem::Word(8)]).is_err());
        assert_eq!("adaptracer".parse::<Scheme>().unwrap(), Scheme::AdapTracer);
        assert!("zip".parse::<Scheme>().is_err());
    }

    fn roundtrip_all(p: &Program, m: MethodId, paths: &[Vec<BlockId>], widths: &[u32]) {
        for &w in widths {
            for scheme in Scheme::ALL {
                let codec = Codec::new(p, m, scheme, w).unwrap();
                let mut enc = AdaptiveModel::new(p, Default::default()).unwrap();
                let mut dec = enc.clone();
                for path in paths {
                    let t = codec.encode(Some(&mut enc), path).unwrap();
                    assert_eq!(&codec.decode(Some(&mut dec), &t.items).unwrap(), path, "{scheme} W={w}");
                }
            }
        }
    }

    #[test]
    fn single_block_method() {
        let p = Program::from_json_str(
            r#"{"methods":[{"name":"m","entry":"A","exit":"A","edges":[]}]}"#,
            Path::new("one.json"),
        )
        .unwrap();
        let m = MethodId(0);
        roundtrip_all(&p, m, &[vec![BlockId(0)]], &[3, 64]);
        let pap = Codec::new(&p, m, Scheme::Pap, 3).unwrap();
        assert_eq!(pap.encode(None, &[BlockId(0)]).unwrap().bits, 3);
        let at = Codec::new(&p, m, Scheme::AdapTracer, 3).unwrap();
        assert_eq!(at.encode(None, &[BlockId(0)]).unwrap().bits, 0);
        assert!(at.encode(None, &[]).is_err());
    }

    #[test]
    fn forty_way_switch_in_a_loop() {
        let mut edges = vec![r#"["E","S"]"#.to_string(), r#"["J","S"]"#.into(), r#"["J","X"]"#.into()];
        for k in 0..40 {
            edges.push(format!(r#"["S","c{k}"]"#));
            edges.push(format!(r#"["c{k}","J"]"#));
        }
        let text = format!(
            r#"{{"methods":[{{"name":"m","entry":"E","exit":"X","edges":[{}]}}]}}"#,
            edges.join(",")
        );
        let p = Program::from_json_str(&text, Path::new("sw.json")).unwrap();
        let m = MethodId(0);
        let cfg = p.cfg(m);
        let path_of = |cases: &[usize]| {
            let mut names = vec!["E".to_string()];
            for c in cases {
                names.extend(["S".to_string(), format!("c{c}"), "J".to_string()]);
            }
            names.push("X".into());
            cfg.resolve_path(&names).unwrap()
        };
        let paths = [path_of(&[39, 0, 17, 17, 17, 5]), path_of(&[20]), path_of(&[1, 2, 3])];
        roundtrip_all(&p, m, &paths, &[6, 13, 64]);
        // 40 out-edges do not fit BLPP ids of 5 bits, nor PAP's 41-way join.
        assert!(Codec::new(&p, m, Scheme::Blpp, 5).is_err());
        assert!(Codec::new(&p, m, Scheme::Pap, 5).is_err());
    }
}
