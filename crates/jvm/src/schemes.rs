//! Scheme-specific runtime tables and decoders.

use std::path::Path;

use anyhow::{bail, Result};

use crate::cfg::MethodCfg;
use crate::log::{Record, Token};
use crate::program::{Program, StoredProgram};
use crate::tables::{Config, Scheme};

/// Per-method tables of the configured scheme, ready to be written.
pub struct SchemeTables {
    scheme: Scheme,
    model: Option<String>,
}

impl SchemeTables {
    /// Computes the scheme's numbering for every method of `program`.
    pub fn new(_program: &Program, config: &Config, model: Option<&Path>) -> Result<SchemeTables> {
        let model = match model {
            Some(p) => Some(std::fs::read_to_string(p).map_err(|e| anyhow::anyhow!("cannot read model {}: {e}", p.display()))?),
            None => None,
        };
        if config.scheme != Scheme::Raw {
            bail!("scheme {} is not available yet (waiting for the path-profiling core)", config.scheme.name());
        }
        Ok(SchemeTables { scheme: config.scheme, model })
    }

    /// Appends the rows of method `id` to the tables text.
    pub fn rows(&self, _id: usize, _cfg: &MethodCfg, _out: &mut String) {
        match self.scheme {
            Scheme::Raw => {}
            _ => unreachable!("rejected in new()"),
        }
    }

    /// The model text the probes start from.
    pub fn model_text(&self) -> Option<String> {
        self.model.clone()
    }
}

/// Decodes records of one log in order, keeping the adaptive state.
pub struct Decoder<'a> {
    stored: &'a StoredProgram,
}

impl<'a> Decoder<'a> {
    /// A decoder for logs of the jar described by `stored`.
    pub fn new(stored: &'a StoredProgram) -> Result<Decoder<'a>> {
        Ok(Decoder { stored })
    }

    /// Writes the AdapTracer edge-probability model updated with every
    /// decoded path (the seed's TraceParser).
    pub fn write_updated_model(&self, _decoded: &crate::decode::Decoded, _path: &Path) -> Result<()> {
        bail!("model updates need the path-profiling core")
    }

    /// Decodes one record into the node sequence from ENTRY to EXIT
    /// (completed when the invocation aborted; the caller truncates).
    pub fn decode(&mut self, record: &Record) -> Result<Vec<u32>> {
        let cfg = &self.stored.program.methods[record.method].cfg;
        match self.stored.config.scheme {
            Scheme::Raw => {
                let mut path = vec![0u32];
                for t in &record.tokens {
                    match t {
                        Token::Value(v) if *v < cfg.node_count() as u64 => path.push(*v as u32),
                        _ => bail!("raw trace holds {t:?}, not a node id of this method"),
                    }
                }
                Ok(path)
            }
            s => bail!("scheme {} is not available yet", s.name()),
        }
    }
}
