//! AdapTracer (seed 003): arithmetic coding of out-edge choices under the
//! adaptive counters of [`AdaptiveModel`], output as fixed-width words,
//! decoded forwards from the entry — including into callees (Algorithm 2).
//!
//! Only blocks with two or more live out-edges code a symbol. In
//! interprocedural mode a block's callees (see [`Program::calls`]) are coded
//! right after the block is visited and before its out-edge choice, in one
//! shared coder; each method keeps its own counters.

use crate::adaptive::AdaptiveModel;
use crate::arith::{Decoder, Encoder};
use crate::cfg::{BlockId, Cfg};
use crate::error::{check_width, PathError, Result};
use crate::program::{MethodId, Program, Visit, WalkEvent};

/// Default limit on decoded block visits (a guard against garbage traces
/// that would decode to an endless loop).
pub const DEFAULT_MAX_STEPS: usize = 1 << 27;

/// An AdapTracer trace with its accounting.
#[derive(Debug, Clone, PartialEq)]
pub struct AdaptiveTrace {
    /// The PathID words (`W` bits each).
    pub words: Vec<u64>,
    /// Number of coded choices (blocks with several out-edges passed).
    pub choices: u64,
    /// Ideal code length `Σ −log2 p` under the same adaptive model, in bits.
    pub ideal_bits: f64,
}

/// AdapTracer encoder/decoder for one program and word width.
#[derive(Debug, Clone)]
pub struct AdapTracer<'p> {
    program: &'p Program,
    width: u32,
    max_steps: usize,
}

impl<'p> AdapTracer<'p> {
    /// Coder for `program` with `width`-bit words (3..=64).
    pub fn new(program: &'p Program, width: u32) -> Result<Self> {
        check_width(width)?;
        Ok(AdapTracer {
            program,
            width,
            max_steps: DEFAULT_MAX_STEPS,
        })
    }

    /// Changes the decoding guard (maximum block visits per trace).
    pub fn with_max_steps(mut self, max_steps: usize) -> Self {
        self.max_steps = max_steps;
        self
    }

    /// The word width.
    pub fn width(&self) -> u32 {
        self.width
    }

    fn check_model(&self, model: &AdaptiveModel) -> Result<()> {
        if model.method_count() != self.program.len() {
            return Err(PathError::InvalidParameter(format!(
                "the adaptive model covers {} methods, the program has {}",
                model.method_count(),
                self.program.len()
            )));
        }
        Ok(())
    }

    /// Encodes one invocation of `method` (callees ignored), updating `model`.
    /// The model is untouched if the path is invalid.
    pub fn encode(&self, model: &mut AdaptiveModel, method: MethodId, path: &[BlockId]) -> Result<AdaptiveTrace> {
        self.check_model(model)?;
        let mut enc = ChoiceEncoder::new(self.width);
        enc.append_path(model, self.program, method, path)?;
        Ok(enc.finish())
    }

    /// Decodes one invocation of `method` (callees ignored), updating `model`
    /// as the encoder did. On error the model is partly updated.
    pub fn decode(&self, model: &mut AdaptiveModel, method: MethodId, words: &[u64]) -> Result<Vec<BlockId>> {
        let mut path = Vec::new();
        self.decode_into(model, method, words, &mut path)?;
        Ok(path)
    }

    /// [`AdapTracer::decode`] into `path` (cleared first), whose allocation a
    /// decoder of millions of invocations reuses.
    pub fn decode_into(
        &self,
        model: &mut AdaptiveModel,
        method: MethodId,
        words: &[u64],
        path: &mut Vec<BlockId>,
    ) -> Result<()> {
        let mut stream = self.stream(words)?;
        self.decode_next_into(&mut stream, model, method, path)
    }

    /// Starts decoding a word list that holds several invocations coded one
    /// after another by one [`ChoiceEncoder`] (no padding between them).
    pub fn stream<'w>(&self, words: &'w [u64]) -> Result<PathStream<'w>> {
        let max = crate::error::word_max(self.width);
        if let Some((i, w)) = words.iter().enumerate().find(|(_, &w)| w > max) {
            return Err(PathError::InvalidParameter(format!(
                "word {i} ({w}) does not fit in {} bits",
                self.width
            )));
        }
        Ok(PathStream {
            dec: Decoder::new(words, self.width),
        })
    }

    /// Decodes the next invocation of `method` (callees ignored) from a
    /// stream.
    pub fn decode_next(
        &self,
        stream: &mut PathStream<'_>,
        model: &mut AdaptiveModel,
        method: MethodId,
    ) -> Result<Vec<BlockId>> {
        let mut path = Vec::new();
        self.decode_next_into(stream, model, method, &mut path)?;
        Ok(path)
    }

    /// [`AdapTracer::decode_next`] into `path` (cleared first).
    pub fn decode_next_into(
        &self,
        stream: &mut PathStream<'_>,
        model: &mut AdaptiveModel,
        method: MethodId,
        path: &mut Vec<BlockId>,
    ) -> Result<()> {
        self.check_model(model)?;
        self.check_live(method)?;
        let cfg = self.program.cfg(method);
        let mut cur = cfg.entry();
        path.clear();
        path.push(cur);
        while cur != cfg.exit() {
            if path.len() > self.max_steps {
                return Err(self.too_long(method));
            }
            cur = self.next_block(model, &mut stream.dec, method, cur)?;
            path.push(cur);
        }
        Ok(())
    }

    /// Encodes an interprocedural path rooted at `root`: callees' choices go
    /// into the same words. The model is untouched if the path is invalid.
    pub fn encode_visits(&self, model: &mut AdaptiveModel, root: MethodId, visits: &[Visit]) -> Result<AdaptiveTrace> {
        self.check_model(model)?;
        let mut enc = ChoiceEncoder::new(self.width);
        enc.append_visits(model, self.program, root, visits)?;
        Ok(enc.finish())
    }

    /// Decodes an interprocedural trace rooted at `root` (Algorithm 2, with
    /// an explicit stack instead of recursion).
    pub fn decode_visits(&self, model: &mut AdaptiveModel, root: MethodId, words: &[u64]) -> Result<Vec<Visit>> {
        let mut stream = self.stream(words)?;
        self.decode_next_visits(&mut stream, model, root)
    }

    /// Decodes the next interprocedural invocation tree rooted at `root`
    /// from a stream.
    pub fn decode_next_visits(
        &self,
        stream: &mut PathStream<'_>,
        model: &mut AdaptiveModel,
        root: MethodId,
    ) -> Result<Vec<Visit>> {
        self.check_model(model)?;
        self.check_live(root)?;
        struct Frame {
            m: MethodId,
            b: BlockId,
            next_call: usize,
        }
        let entry = self.program.cfg(root).entry();
        let mut out = vec![Visit {
            method: root,
            block: entry,
        }];
        let mut stack = vec![Frame {
            m: root,
            b: entry,
            next_call: 0,
        }];
        while let Some(top) = stack.last_mut() {
            if out.len() > self.max_steps {
                return Err(self.too_long(root));
            }
            let calls = self.program.calls(top.m, top.b);
            if let Some(&callee) = calls.get(top.next_call) {
                top.next_call += 1;
                self.check_live(callee)?;
                let e = self.program.cfg(callee).entry();
                out.push(Visit {
                    method: callee,
                    block: e,
                });
                stack.push(Frame {
                    m: callee,
                    b: e,
                    next_call: 0,
                });
                continue;
            }
            if top.b == self.program.cfg(top.m).exit() {
                stack.pop();
                continue;
            }
            let next = self.next_block(model, &mut stream.dec, top.m, top.b)?;
            top.b = next;
            top.next_call = 0;
            out.push(Visit {
                method: top.m,
                block: next,
            });
        }
        Ok(out)
    }

    fn check_live(&self, method: MethodId) -> Result<()> {
        let cfg = self.program.cfg(method);
        if !cfg.is_live(cfg.entry()) {
            return Err(PathError::InvalidTrace {
                method: cfg.name().to_string(),
                message: "the exit is not reachable from the entry".into(),
            });
        }
        Ok(())
    }

    fn too_long(&self, method: MethodId) -> PathError {
        PathError::InvalidTrace {
            method: self.program.cfg(method).name().to_string(),
            message: format!(
                "decoding exceeded {} block visits without reaching the exit",
                self.max_steps
            ),
        }
    }

    /// Decodes the block after `cur` (a live non-exit block).
    #[inline]
    fn next_block(
        &self,
        model: &mut AdaptiveModel,
        dec: &mut Decoder<'_>,
        m: MethodId,
        cur: BlockId,
    ) -> Result<BlockId> {
        let cfg = self.program.cfg(m);
        let succ = cfg.successors(cur);
        match succ.len() {
            0 => Err(PathError::InvalidTrace {
                method: cfg.name().to_string(),
                message: format!("block {:?} has no way to the exit", cfg.block_name(cur)),
            }),
            1 => Ok(succ[0]),
            _ => {
                let sym = model.decode_with(m, cur, dec);
                Ok(succ[model.successor_index(m, cur, sym)])
            }
        }
    }
}

/// The raw branch-choice stream of a path: for every block with two or more
/// live out-edges, the index of the out-edge taken (the symbols AdapTracer
/// codes; a reference input for general-purpose compressors).
pub fn choice_stream(cfg: &Cfg, path: &[BlockId]) -> Result<Vec<u32>> {
    cfg.check_path(path)?;
    Ok(path
        .windows(2)
        .filter(|w| cfg.successors(w[0]).len() > 1)
        .map(|w| cfg.successor_index(w[0], w[1]).expect("checked path") as u32)
        .collect())
}

/// A word list being decoded invocation after invocation (see
/// [`AdapTracer::stream`]).
#[derive(Debug, Clone)]
pub struct PathStream<'w> {
    dec: Decoder<'w>,
}

/// Codes choices one edge at a time, or whole invocations one after another
/// into one word list (a per-thread stream that pays the final flush and
/// word padding once instead of per invocation).
#[derive(Debug, Clone)]
pub struct ChoiceEncoder {
    enc: Encoder,
    choices: u64,
    ideal_bits: f64,
}

impl ChoiceEncoder {
    /// A fresh coder for `width`-bit words.
    pub fn new(width: u32) -> Self {
        ChoiceEncoder {
            enc: Encoder::new(width),
            choices: 0,
            ideal_bits: 0.0,
        }
    }

    /// Codes the live edge `from → to` of method `m` if `from` has a choice.
    #[inline]
    pub fn step(&mut self, model: &mut AdaptiveModel, program: &Program, m: MethodId, from: BlockId, to: BlockId) {
        let cfg = program.cfg(m);
        if cfg.successors(from).len() < 2 {
            return;
        }
        let s = model.symbol(m, from, cfg.successor_index(from, to).expect("live edge"));
        let (enc, ideal) = (&mut self.enc, &mut self.ideal_bits);
        model.code_with(m, from, s, |cum, freq, total| {
            enc.encode(cum, freq, total);
            *ideal += (total as f64 / freq as f64).log2();
        });
        self.choices += 1;
    }

    /// Appends one invocation of `method` (callees ignored); the model is
    /// untouched if the path is invalid.
    pub fn append_path(
        &mut self,
        model: &mut AdaptiveModel,
        program: &Program,
        method: MethodId,
        path: &[BlockId],
    ) -> Result<()> {
        program.cfg(method).check_path(path)?;
        for w in path.windows(2) {
            self.step(model, program, method, w[0], w[1]);
        }
        Ok(())
    }

    /// Appends an interprocedural invocation tree rooted at `root`; the model
    /// is untouched if the path is invalid.
    pub fn append_visits(
        &mut self,
        model: &mut AdaptiveModel,
        program: &Program,
        root: MethodId,
        visits: &[Visit],
    ) -> Result<()> {
        let mut steps = Vec::new();
        program.walk_visits(root, visits, |e| {
            if let WalkEvent::Step { method, from, to } = e {
                steps.push((method, from, to));
            }
            Ok(())
        })?;
        for (m, f, t) in steps {
            self.step(model, program, m, f, t);
        }
        Ok(())
    }

    /// Flushes and returns the trace.
    pub fn finish(self) -> AdaptiveTrace {
        AdaptiveTrace {
            words: self.enc.finish(),
            choices: self.choices,
            ideal_bits: self.ideal_bits,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adaptive::AdaptiveParams;
    use crate::program::Program;
    use std::path::Path;

    fn seed_program() -> Program {
        Program::from_json_str(
            r#"{"methods":[{"name":"m","entry":"A","exit":"D",
                "edges":[["A","B"],["B","C"],["C","B"],["C","D"]]}]}"#,
            Path::new("seed.json"),
        )
        .unwrap()
    }

    #[test]
    fn seed_path_shrinks_on_the_second_run() {
        let p = seed_program();
        let m = p.method_id("m").unwrap();
        let names = ["A", "B", "C", "B", "C", "B", "C", "B", "C", "B", "C", "D"];
        let path = p.cfg(m).resolve_path(&names).unwrap();
        let at = AdapTracer::new(&p, 3).unwrap();
        let params = AdaptiveParams::default();
        let mut enc_model = AdaptiveModel::new(&p, params).unwrap();
        let first = at.encode(&mut enc_model, m, &path).unwrap();
        let mut dec_model = AdaptiveModel::new(&p, params).unwrap();
        assert_eq!(at.decode(&mut dec_model, m, &first.words).unwrap(), path);
        // Run 2 starts from the model the decoder wrote.
        let mut enc2 = dec_model.clone();
        let second = at.encode(&mut enc2, m, &path).unwrap();
        assert!(second.ideal_bits < first.ideal_bits);
        assert!(second.words.len() <= first.words.len());
        assert_eq!(at.decode(&mut dec_model, m, &second.words).unwrap(), path);
        // Five choices at C with inc 3: C→B at 1/2, 4/5, 7/8, 10/11, then C→D at 1/14.
        let ideal: f64 = [2.0, 5.0 / 4.0, 8.0 / 7.0, 11.0 / 10.0, 14.0]
            .iter()
            .map(|x: &f64| x.log2())
            .sum();
        assert!((first.ideal_bits - ideal).abs() < 1e-9, "{}", first.ideal_bits);
        assert_eq!(first.choices, 5);
    }

    #[test]
    fn interprocedural_roundtrip() {
        let p = Program::from_json_str(
            r#"{"methods":[
              {"name":"main","entry":"A","exit":"X",
               "edges":[["A","B"],["B","A"],["B","X"]],"calls":{"A":["f","f"]}},
              {"name":"f","entry":"E","exit":"R",
               "edges":[["E","T"],["E","F"],["T","R"],["F","R"]],"calls":{"T":["g"]}},
              {"name":"g","entry":"G","edges":[["G","H"],["G","I"],["H","J"],["I","J"]]}]}"#,
            Path::new("calls.json"),
        )
        .unwrap();
        let main = p.method_id("main").unwrap();
        let f = p.method_id("f").unwrap();
        let g = p.method_id("g").unwrap();
        let at = AdapTracer::new(&p, 5).unwrap();
        let params = AdaptiveParams::default();
        // Build a path by decoding random words, then re-encode it.
        for seed in 0..40u64 {
            let words: Vec<u64> = (0..4).map(|i| (seed * 7 + i * 13) % 32).collect();
            let mut m1 = AdaptiveModel::new(&p, params).unwrap();
            let visits = at.decode_visits(&mut m1, main, &words).unwrap();
            let mut m2 = AdaptiveModel::new(&p, params).unwrap();
            let t = at.encode_visits(&mut m2, main, &visits).unwrap();
            let mut m3 = AdaptiveModel::new(&p, params).unwrap();
            assert_eq!(at.decode_visits(&mut m3, main, &t.words).unwrap(), visits);
            let inv = p.split_invocations(main, &visits).unwrap();
            assert_eq!(inv[0].0, main);
            assert!(inv.iter().filter(|i| i.0 == f).count() >= 2);
            assert!(inv.iter().all(|i| i.0 != g || i.1.len() == 3));
        }
    }

    #[test]
    fn learned_common_path_costs_no_word() {
        let p = Program::from_json_str(
            r#"{"methods":[{"name":"m","entry":"A","exit":"X",
                "edges":[["A","F"],["A","T"],["T","X"],["F","X"]]}]}"#,
            Path::new("if.json"),
        )
        .unwrap();
        let m = p.method_id("m").unwrap();
        let path = p.cfg(m).resolve_path(&["A", "T", "X"]).unwrap();
        let at = AdapTracer::new(&p, 32).unwrap();
        let mut probe = AdaptiveModel::new(&p, AdaptiveParams::default()).unwrap();
        let mut parser = probe.clone();
        for _ in 0..5 {
            let t = at.encode(&mut probe, m, &path).unwrap();
            assert_eq!(t.words.len(), 1, "run 1: T is symbol 1");
            assert_eq!(at.decode(&mut parser, m, &t.words).unwrap(), path);
        }
        // Run 2 starts from the parser's counters: T is now symbol 0.
        let next = AdaptiveModel::from_edge_model_with_order(
            &p,
            &parser.to_edge_model(&p),
            AdaptiveParams::default(),
            crate::adaptive::SymbolOrder::Frequency,
        )
        .unwrap();
        let (mut probe2, mut parser2) = (next.clone(), next);
        let t = at.encode(&mut probe2, m, &path).unwrap();
        assert!(t.words.is_empty());
        assert_eq!(at.decode(&mut parser2, m, &t.words).unwrap(), path);
    }

    #[test]
    fn many_invocations_share_one_stream() {
        let p = seed_program();
        let m = p.method_id("m").unwrap();
        let at = AdapTracer::new(&p, 16).unwrap();
        let paths: Vec<Vec<BlockId>> = (1..30)
            .map(|n| {
                let mut names = vec!["A"];
                for _ in 0..(n % 4 + 1) {
                    names.extend(["B", "C"]);
                }
                names.push("D");
                p.cfg(m).resolve_path(&names).unwrap()
            })
            .collect();
        let mut probe = AdaptiveModel::new(&p, AdaptiveParams::default()).unwrap();
        let mut parser = probe.clone();
        let mut enc = ChoiceEncoder::new(16);
        for path in &paths {
            enc.append_path(&mut probe, &p, m, path).unwrap();
        }
        let t = enc.finish();
        assert!((t.words.len() * 16) as f64 <= t.ideal_bits + 17.0);
        let mut stream = at.stream(&t.words).unwrap();
        for path in &paths {
            assert_eq!(&at.decode_next(&mut stream, &mut parser, m).unwrap(), path);
        }
        assert_eq!(probe.to_edge_model(&p), parser.to_edge_model(&p));
    }

    #[test]
    fn choice_stream_lists_out_edge_indices() {
        let p = seed_program();
        let cfg = p.method("m").unwrap();
        let path = cfg.resolve_path(&["A", "B", "C", "B", "C", "D"]).unwrap();
        assert_eq!(choice_stream(cfg, &path).unwrap(), vec![0, 1]);
    }

    #[test]
    fn invalid_path_leaves_model_alone() {
        let p = seed_program();
        let m = p.method_id("m").unwrap();
        let at = AdapTracer::new(&p, 8).unwrap();
        let mut model = AdaptiveModel::new(&p, AdaptiveParams::default()).unwrap();
        let bad = p.cfg(m).resolve_path(&["A", "B", "C", "B", "D"]).unwrap();
        assert!(at.encode(&mut model, m, &bad).is_err());
        let c = p.cfg(m).block_id("C").unwrap();
        assert_eq!(model.counters(m, c), &[1, 1]);
    }

    #[test]
    fn garbage_that_loops_hits_the_guard() {
        // Symbol 0 at C is "loop again": all-zero words loop forever.
        let p = seed_program();
        let m = p.method_id("m").unwrap();
        let at = AdapTracer::new(&p, 8).unwrap().with_max_steps(10_000);
        let mut model = AdaptiveModel::new(&p, AdaptiveParams::default()).unwrap();
        let e = at.decode(&mut model, m, &[]).unwrap_err().to_string();
        assert!(e.contains("exceeded 10000 block visits"), "{e}");
    }
}
