//! Charged energy per time bin, as mean power per bin for each process
//! and thread, plus the idle and unattributed parts: what a stacked power
//! view draws. The parts of every bin add up to the measured power of
//! that bin.

use crate::sweep::BinsRaw;
use serde::Serialize;
use tracekit_model::{Session, ThreadId};

/// One stacked series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// Label: a process or thread name, `idle` or `unattributed`.
    pub label: String,
    /// `process`, `thread`, `idle` or `unattributed`.
    pub kind: &'static str,
    /// Process id, for processes and threads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Thread id, for threads.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tid: Option<u32>,
    /// Mean power in each bin, W.
    pub watts: Vec<f64>,
    /// Energy over all bins, J.
    pub energy_j: f64,
}

/// Power per bin, split.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bins {
    /// Start of the first bin, ns on the session's timeline.
    pub start_ns: i64,
    /// Width of a bin, ns.
    pub width_ns: i64,
    /// The base part.
    pub idle: Series,
    /// Excess no thread was charged.
    pub unattributed: Series,
    /// Per process, most energy first.
    pub processes: Vec<Series>,
    /// Per thread, most energy first (threads charged nothing are left out).
    pub threads: Vec<Series>,
}

fn series(
    label: String,
    kind: &'static str,
    pid: Option<u32>,
    tid: Option<u32>,
    joules: &[f64],
    width_s: f64,
) -> Series {
    Series {
        label,
        kind,
        pid,
        tid,
        watts: joules.iter().map(|j| j / width_s).collect(),
        energy_j: joules.iter().sum(),
    }
}

impl Bins {
    pub(crate) fn from_raw(session: &Session, raw: BinsRaw, (start, width, n): (i64, i64, usize)) -> Bins {
        let w = width as f64 * 1e-9;
        let mut threads: Vec<Series> = raw
            .threads
            .iter()
            .enumerate()
            .filter(|(_, j)| j.iter().any(|&x| x != 0.0))
            .map(|(i, j)| {
                let t = session.thread(ThreadId(i as u32));
                series(
                    t.label(),
                    "thread",
                    crate::pid_of(session, ThreadId(i as u32)),
                    Some(t.tid),
                    j,
                    w,
                )
            })
            .collect();
        threads.sort_by(|a, b| b.energy_j.total_cmp(&a.energy_j));
        let mut by_pid: Vec<(Option<u32>, Vec<f64>)> = Vec::new();
        for (i, j) in raw.threads.iter().enumerate() {
            if j.iter().all(|&x| x == 0.0) {
                continue;
            }
            let pid = crate::pid_of(session, ThreadId(i as u32));
            let slot = match by_pid.iter().position(|p| p.0 == pid) {
                Some(k) => k,
                None => {
                    by_pid.push((pid, vec![0.0; n]));
                    by_pid.len() - 1
                }
            };
            for (a, b) in by_pid[slot].1.iter_mut().zip(j) {
                *a += b;
            }
        }
        let mut processes: Vec<Series> = by_pid
            .into_iter()
            .map(|(pid, j)| {
                let name = pid
                    .and_then(|p| session.processes.iter().find(|x| x.pid == p).map(|x| x.name.clone()))
                    .or_else(|| pid.and_then(|p| session.threads.iter().find(|x| x.tid == p).map(|x| x.label())))
                    .unwrap_or_else(|| pid.map_or("(no process)".to_owned(), |p| format!("pid {p}")));
                series(name, "process", pid, None, &j, w)
            })
            .collect();
        processes.sort_by(|a, b| b.energy_j.total_cmp(&a.energy_j));
        Bins {
            start_ns: start,
            width_ns: width,
            idle: series("idle".into(), "idle", None, None, &raw.idle, w),
            unattributed: series("unattributed".into(), "unattributed", None, None, &raw.unattributed, w),
            processes,
            threads,
        }
    }

    /// Number of bins.
    pub fn len(&self) -> usize {
        self.idle.watts.len()
    }

    /// True without bins.
    pub fn is_empty(&self) -> bool {
        self.idle.watts.is_empty()
    }

    /// Total power of bin `b` over all parts, W.
    pub fn total_w(&self, b: usize) -> f64 {
        self.idle.watts[b] + self.unattributed.watts[b] + self.processes.iter().map(|p| p.watts[b]).sum::<f64>()
    }
}
